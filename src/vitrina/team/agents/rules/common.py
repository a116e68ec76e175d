"""Helpers the rule agents share: typed spec sections, stored results, the standard replies."""

from __future__ import annotations

import json
from typing import Any

from vitrina.present.columns import ColumnMeta
from vitrina.team.agents.base import Finding, WorkItem, bullet_list, codes, handoff, review
from vitrina.team.data.results import decode_result
from vitrina.team.data.scope import Scope
from vitrina.team.data.views import DatasetDesign, DatasetView
from vitrina.team.lifecycle import HandoffStatus
from vitrina.team.messages import text
from vitrina.team.toolbox import Toolbox, ToolError
from vitrina.warehouse import QueryResult


def scope_of(spec: dict[str, Any]) -> Scope:
    if "scope" not in spec:
        raise ToolError("the spec has no scope section yet")
    return Scope.model_validate(spec["scope"])


def design_of(spec: dict[str, Any]) -> DatasetDesign:
    if "dataset" not in spec:
        raise ToolError("the spec has no dataset section yet")
    return DatasetDesign.model_validate(spec["dataset"])


def metas_of(view: DatasetView) -> list[ColumnMeta]:
    return [ColumnMeta.model_validate(c) for c in view.columns]


def stored_result(tools: Toolbox, view_id: str, *, ref: str | None = None) -> QueryResult | None:
    raw = tools.read_artifact(f"data/{view_id}.json", ref=ref)
    return decode_result(json.loads(raw)) if raw else None


def blocked(body: str, items: list[str]) -> str:
    return handoff(f"{body}\n{bullet_list(items)}", HandoffStatus.BLOCKED)


def cannot_apply(work: WorkItem, known: set[str]) -> str | None:
    """The BLOCKED reply when the amendments name codes this role's rules cannot apply."""
    unknown = [a for a in work.amendments if not (codes([a]) & known)]
    return blocked(text("cannot_apply", work.lang), unknown) if unknown else None


def done(
    body: str,
    status: HandoffStatus,
    work: WorkItem,
    *,
    reviewers: list[str] | None = None,
    next_phase: str | None = None,
) -> str:
    """READY-FOR-REVIEW / BUILD-COMPLETE, saying what a rework addressed."""
    if work.mode == "rework" and work.amendments:
        body += f"\n\n{text('rework_done', work.lang)}\n{bullet_list(work.amendments)}"
    return handoff(body, status, reviewers=reviewers, next_phase=next_phase)


def unchanged_rework(work: WorkItem, changed: bool) -> str | None:
    """A rework whose rules give the same artifact cannot fix what the review found."""
    if work.mode == "rework" and not changed:
        return blocked(text("same_result", work.lang), work.amendments)
    return None


def finish_review(
    work: WorkItem,
    tools: Toolbox,
    findings: list[Finding],
    checks: list[str],
    record: dict[str, Any] | None = None,
) -> str:
    """Write the reviewer's verdict section (on the reviewed branch) and its comment."""
    tools.write_spec(
        "verdicts",
        {
            "reviewer": tools.role.id,
            "round": work.task.round,
            **(record or {}),
            "findings": [f.amendment() for f in findings],
            "checks": checks,
        },
    )
    joined = ", ".join(checks)
    if not findings:
        return review(text("review_ok", work.lang, checks=joined), findings)
    return review(
        f"{text('review_findings', work.lang, checks=joined)}\n"
        f"{bullet_list([f.amendment() for f in findings], limit=20)}",
        findings,
    )
