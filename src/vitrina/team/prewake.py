"""The pre-wake step: read the board and give the coordinator one concrete next step.

The board is the durable state of a build (docs/decisions/050-board-is-the-state.md): the
next step is a function of the tasks, their statuses, the last hand-off and verdicts, the
child reviews and the markers, so a restarted run picks up exactly where the crashed one
stopped. NEXT and NEXT-PHASE in hand-offs are read here as hints and compared with the
chain; the chain wins.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, Field

from vitrina.team.board import Build, Task
from vitrina.team.chain import STEPS, next_step
from vitrina.team.lifecycle import TaskKind, TaskStatus
from vitrina.team.primitives import (
    MARK_AMENDMENTS_APPLIED,
    MARK_AMENDMENTS_REQUESTED,
    MARK_MERGED,
    MARK_REVIEWERS,
    MARK_REWORK,
    Primitives,
    verdict_of,
)
from vitrina.team.protocol import VerdictKind

MAX_REWORK_ROUNDS = 2  # a third request for rework escalates (review-rules REV-006)
S = TaskStatus
Action = Literal[
    "parse_brief",
    "wake",
    "open_review",
    "process_amendments",
    "return_for_rework",
    "accept",
    "merge",
    "next_step",
    "next_phase",
    "publish",
    "escalate",
    "finish",
]
Mode = Literal["work", "rework", "amendments", "review"]


class NextStep(BaseModel):
    """One thing to do now: ``role`` acts (the coordinator, or the role woken on a task)."""

    action: Action
    role: str = "coordinator"
    task_id: int | None = None
    mode: Mode | None = None
    reason: str
    reviewers: list[str] = Field(default_factory=list)
    amendments: list[str] = Field(default_factory=list)
    detail: dict[str, Any] = Field(default_factory=dict)


def _last_handoff(primitives: Primitives, task: Task) -> dict[str, Any] | None:
    handoffs = [
        c.handoff for c in primitives.store.comments(task.id) if c.handoff and c.author == task.role
    ]
    return handoffs[-1] if handoffs else None


def required_reviewers(primitives: Primitives, task: Task) -> list[str]:
    """The chain's reviewer of the step, plus reviewers the author asked for (reviewer roles
    only)."""
    reviewers = [STEPS[task.step].reviewer]
    marker = primitives.store.marker(task.id, MARK_REVIEWERS, task.round)
    for role in json.loads(marker.value) if marker else []:
        spec = primitives.roster.roles.get(role)
        if spec is not None and spec.kind == "reviewer" and role not in reviewers:
            reviewers.append(role)
    return reviewers


def _verdicts(
    primitives: Primitives, reviews: list[Task]
) -> dict[int, tuple[VerdictKind, list[str]]]:
    out = {}
    for review in reviews:
        verdict = verdict_of(primitives.store.comments(review.id))
        if verdict is not None and verdict.verdict:
            out[review.id] = (
                VerdictKind(verdict.verdict["verdict"]),
                list(verdict.verdict.get("amendments", [])),
            )
    return out


def plan_next_step(primitives: Primitives, build: Build) -> NextStep:
    """The one next step for this build, read from the board."""
    store = primitives.store
    tasks = store.tasks(build.id)
    blockers = [t for t in tasks if t.kind is TaskKind.BLOCKER and t.status is not S.DONE]
    if blockers:
        return NextStep(
            action="escalate",
            task_id=blockers[0].parent_id,
            reason=blockers[0].body or blockers[0].title,
            detail={"blocker": blockers[0].id},
        )
    work = [t for t in tasks if t.kind is TaskKind.WORK]
    if not work:
        return NextStep(
            action="parse_brief",
            reason="no task on the board yet: read the brief, open the scoping task",
        )
    task = work[-1]
    if task.status is S.BLOCKED:
        return NextStep(action="escalate", task_id=task.id, reason=f"task {task.id} is blocked")
    if task.status in (S.NEW, S.IN_PROGRESS):
        return NextStep(
            action="wake",
            role=task.role,
            task_id=task.id,
            mode="work",
            reason=f"task {task.id} ({task.step}) is {task.status}: {task.role} builds it",
        )
    if task.status is S.REWORK:
        marker = store.marker(task.id, MARK_REWORK, task.round - 1)
        reasons = json.loads(marker.value) if marker else []
        return NextStep(
            action="wake",
            role=task.role,
            task_id=task.id,
            mode="rework",
            amendments=reasons,
            reason=f"task {task.id} came back for rework (round {task.round}): {task.role} "
            "fixes it",
        )
    if task.status is S.REVIEW:
        return _in_review(primitives, task)
    if store.marker(task.id, MARK_MERGED, 0) is None:
        return NextStep(
            action="merge",
            task_id=task.id,
            reason=f"task {task.id} is accepted: merge {task.branch}",
        )
    following = next_step(task.step)
    if following is not None:
        hint = (_last_handoff(primitives, task) or {}).get("next_phase")
        action: Action = "next_phase" if following.phase != task.phase else "next_step"
        return NextStep(
            action=action,
            task_id=task.id,
            role="coordinator",
            reason=f"{task.step} is merged: open {following.id} for {following.role}"
            + (f" (phase {task.phase} -> {following.phase})" if action == "next_phase" else ""),
            detail={
                "step": following.id,
                "phase": following.phase,
                "from_phase": task.phase,
                "hinted_phase": hint,
            },
        )
    if not build.result.get("published"):
        return NextStep(
            action="publish", task_id=task.id, reason="every step is merged: publish the dashboard"
        )
    return NextStep(
        action="finish", task_id=task.id, reason="the dashboard is published: the build is complete"
    )


def _in_review(primitives: Primitives, task: Task) -> NextStep:
    store = primitives.store
    reviewers = required_reviewers(primitives, task)
    reviews = primitives.reviews(task, task.round)
    missing = [r for r in reviewers if r not in {t.role for t in reviews}]
    if missing:
        return NextStep(
            action="open_review",
            task_id=task.id,
            reviewers=missing,
            reason=f"task {task.id} is ready for review (round {task.round}): open reviews by "
            + ", ".join(missing),
        )
    pending = [r for r in reviews if r.status is not S.DONE]
    if pending:
        review = pending[0]
        return NextStep(
            action="wake",
            role=review.role,
            task_id=review.id,
            mode="review",
            reason=f"review {review.id} of task {task.id} waits for {review.role}",
        )
    verdicts = _verdicts(primitives, reviews)
    rework = [
        a for kind, items in verdicts.values() if kind is VerdictKind.REQUESTS_REWORK for a in items
    ]
    if rework:
        if task.round > MAX_REWORK_ROUNDS:
            return NextStep(
                action="escalate",
                task_id=task.id,
                amendments=rework,
                reason=f"task {task.id} still needs rework after {MAX_REWORK_ROUNDS} rounds",
            )
        return NextStep(
            action="return_for_rework",
            task_id=task.id,
            amendments=rework,
            reason=f"a review of task {task.id} requests rework",
        )
    amendments = [
        a
        for kind, items in verdicts.values()
        if kind is VerdictKind.APPROVED_WITH_AMENDMENTS
        for a in items
    ]
    if amendments and store.marker(task.id, MARK_AMENDMENTS_APPLIED, task.round) is None:
        if store.marker(task.id, MARK_AMENDMENTS_REQUESTED, task.round) is None:
            return NextStep(
                action="process_amendments",
                task_id=task.id,
                amendments=amendments,
                reason=f"task {task.id} is approved with amendments: send them to {task.role}",
            )
        return NextStep(
            action="wake",
            role=task.role,
            task_id=task.id,
            mode="amendments",
            amendments=amendments,
            reason=f"{task.role} applies the amendments of task {task.id}",
        )
    return NextStep(
        action="accept",
        task_id=task.id,
        reason=f"every review of task {task.id} approves"
        + (" and the amendments are applied" if amendments else ""),
    )
