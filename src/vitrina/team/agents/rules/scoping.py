"""Scoping analyst by rules: the brief read against the catalog, what is missing flagged."""

from __future__ import annotations

from vitrina.team.agents.base import WorkItem, bullet_list
from vitrina.team.agents.rules.common import blocked, done, unchanged_rework
from vitrina.team.data.scope import resolve_scope
from vitrina.team.lifecycle import HandoffStatus
from vitrina.team.messages import text
from vitrina.team.toolbox import Toolbox


class ScopingRules:
    def act(self, work: WorkItem, tools: Toolbox) -> str:
        if work.mode == "amendments":
            return blocked(text("cannot_apply", work.lang), work.amendments)
        scope = resolve_scope(tools.read_brief(), tools.catalog(), today=tools.ctx.today)
        changed = tools.write_spec("scope", scope.model_dump(mode="json")) is not None
        flags = [
            f"[{f.code}] {f.message}" + (f" (line {f.line})" if f.line else "") for f in scope.flags
        ]
        if scope.blocking:
            return blocked(
                text("scope_blocked", work.lang),
                [
                    f"[{f.code}] {f.message}" + (f" (line {f.line})" if f.line else "")
                    for f in scope.blocking
                ],
            )
        if reply := unchanged_rework(work, changed):
            return reply
        period = scope.period.label_ru if work.lang == "ru" else scope.period.label_en
        lines = [
            f"{k.title}: {k.metric}"
            + (f", {k.by.label_ru if work.lang == 'ru' else k.by.label_en}" if k.by else "")
            for k in scope.kpis
        ]
        body = (
            f"{text('scope_done', work.lang, kpis=len(scope.kpis), period=period, audience=scope.audience)}\n"  # noqa: E501
            f"{bullet_list(lines)}"
        )
        if flags:
            body += f"\n\n{text('flags', work.lang)}\n{bullet_list(flags)}"
        return done(body, HandoffStatus.READY_FOR_REVIEW, work, next_phase="design")
