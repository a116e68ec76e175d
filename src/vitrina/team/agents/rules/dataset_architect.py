"""Dataset architect by rules: a card and a breakdown view per KPI, through the ask planner."""

from __future__ import annotations

from vitrina.team.agents.base import WorkItem, bullet_list
from vitrina.team.agents.rules.common import blocked, done, scope_of, unchanged_rework
from vitrina.team.lifecycle import HandoffStatus
from vitrina.team.messages import text
from vitrina.team.toolbox import Toolbox


class DatasetArchitectRules:
    def act(self, work: WorkItem, tools: Toolbox) -> str:
        if work.mode == "amendments":
            return blocked(text("cannot_apply", work.lang), work.amendments)
        design = tools.plan_views(scope_of(tools.read_spec()))
        if design.problems:
            return blocked(
                text("dataset_blocked", work.lang),
                [f"[{p.code}] {p.view}: {p.message}" for p in design.problems],
            )
        changed = tools.write_spec("dataset", design.model_dump(mode="json")) is not None
        if reply := unchanged_rework(work, changed):
            return reply
        lines = [f"{v.id}: {v.question}" for v in design.views]
        body = (
            f"{text('dataset_done', work.lang, views=len(design.views))}\n"
            f"{bullet_list(lines, limit=24)}"
        )
        return done(body, HandoffStatus.READY_FOR_REVIEW, work)
