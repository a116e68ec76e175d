"""Small drivers of the board used by several tests."""

from __future__ import annotations

from vitrina.team.board import Task
from vitrina.team.lifecycle import HandoffStatus, TaskStatus
from vitrina.team.primitives import Primitives
from vitrina.team.protocol import Handoff, Verdict, render_comment

REVIEW_DONE = Handoff(status=HandoffStatus.REVIEW_DONE, next="coordinator")


def task_in_review(prims: Primitives, step: str = "scoping") -> Task:
    """The work task of ``step`` opened, started and handed off for review."""
    task = prims.open_task("coordinator", step, body="", lang="en").task
    prims.change_status(task.role, task.id, TaskStatus.IN_PROGRESS)
    prims.hand_off(
        task.role, task.id, Handoff(status=HandoffStatus.READY_FOR_REVIEW, next="coordinator")
    )
    return prims.store.get_task(task.id)


def give_verdict(
    prims: Primitives, review: Task, verdict: str, amendments: list[str] | None = None
) -> None:
    prims.change_status(review.role, review.id, TaskStatus.IN_PROGRESS)
    text = render_comment(
        "checked", REVIEW_DONE, Verdict(verdict=verdict, amendments=amendments or [])
    )
    prims.comment(review.role, review.id, text, key="review:1")
    prims.change_status(review.role, review.id, TaskStatus.DONE)
