"""The task lifecycle in code: statuses, the transitions each kind of task may take, and
which hand-off statuses give control back to the coordinator.

Work tasks go new -> in_progress -> review -> rework -> review -> done (and blocked from
any open status); review tasks go new -> in_progress -> done; a blocker is open until it
is resolved. Nothing else moves a task: the primitives call :func:`check_transition`.

>>> check_transition("work", TaskStatus.REVIEW, TaskStatus.DONE)
>>> allowed("review", TaskStatus.NEW)
['blocked', 'in_progress']
>>> control_after("READY-FOR-REVIEW", next_role="chart-builder", role="data-engineer")
'coordinator'
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from vitrina.team.errors import InvalidTransition


class TaskStatus(StrEnum):
    NEW = "new"
    IN_PROGRESS = "in_progress"
    REVIEW = "review"
    REWORK = "rework"
    DONE = "done"
    BLOCKED = "blocked"


class TaskKind(StrEnum):
    WORK = "work"  # a step of the chain: an author's or a builder's artifact
    REVIEW = "review"  # a child of a work task: one reviewer, one round
    BLOCKER = "blocker"  # a child of any task: something a person or the coordinator must resolve


S = TaskStatus
TRANSITIONS: dict[TaskKind, dict[TaskStatus, frozenset[TaskStatus]]] = {
    TaskKind.WORK: {
        S.NEW: frozenset({S.IN_PROGRESS, S.BLOCKED}),
        S.IN_PROGRESS: frozenset({S.REVIEW, S.BLOCKED}),
        S.REVIEW: frozenset({S.REWORK, S.DONE, S.BLOCKED}),
        S.REWORK: frozenset({S.REVIEW, S.BLOCKED}),
        S.BLOCKED: frozenset({S.IN_PROGRESS, S.REWORK}),
        S.DONE: frozenset(),
    },
    TaskKind.REVIEW: {
        S.NEW: frozenset({S.IN_PROGRESS, S.BLOCKED}),
        S.IN_PROGRESS: frozenset({S.DONE, S.BLOCKED}),
        S.BLOCKED: frozenset({S.IN_PROGRESS}),
        S.DONE: frozenset(),
    },
    TaskKind.BLOCKER: {
        S.NEW: frozenset({S.DONE}),
        S.DONE: frozenset(),
    },
}
OPEN = frozenset({S.NEW, S.IN_PROGRESS, S.REVIEW, S.REWORK, S.BLOCKED})


def allowed(kind: TaskKind | str, current: TaskStatus | str) -> list[str]:
    """The statuses a task of this kind may move to from ``current``, sorted."""
    table = TRANSITIONS[TaskKind(kind)]
    return sorted(str(s) for s in table.get(TaskStatus(current), frozenset()))


def check_transition(
    kind: TaskKind | str, current: TaskStatus | str, target: TaskStatus | str, *, task_id: int = 0
) -> None:
    """Raise InvalidTransition unless ``current -> target`` is allowed for this kind."""
    table = TRANSITIONS[TaskKind(kind)]
    if TaskStatus(target) not in table.get(TaskStatus(current), frozenset()):
        raise InvalidTransition(task_id, str(kind), str(current), str(target))


# Hand-off statuses (the STATUS line of a HANDOFF block).
class HandoffStatus(StrEnum):
    IN_PROGRESS = "IN-PROGRESS"  # more work by the same role; the only status that may keep control
    READY_FOR_REVIEW = "READY-FOR-REVIEW"  # an author's artifact is ready
    BUILD_COMPLETE = "BUILD-COMPLETE"  # a builder's artifact is ready
    REVIEW_DONE = "REVIEW-DONE"  # a reviewer gave its verdict
    AMENDMENTS_APPLIED = "AMENDMENTS-APPLIED"  # an author applied the amendments of a review
    BLOCKED = "BLOCKED"  # cannot go on without a person or the coordinator
    # the coordinator's own statuses
    ASSIGNED = "ASSIGNED"
    REVIEW_OPENED = "REVIEW-OPENED"
    REWORK_REQUESTED = "REWORK-REQUESTED"
    AMENDMENTS_REQUESTED = "AMENDMENTS-REQUESTED"
    ACCEPTED = "ACCEPTED"
    MERGED = "MERGED"
    PHASE_COMPLETE = "PHASE-COMPLETE"
    PUBLISHED = "PUBLISHED"
    ESCALATED = "ESCALATED"


TERMINAL = frozenset(
    {HandoffStatus.BUILD_COMPLETE, HandoffStatus.READY_FOR_REVIEW, HandoffStatus.REVIEW_DONE}
)
COORDINATOR_STATUSES = frozenset(
    {
        HandoffStatus.ASSIGNED,
        HandoffStatus.REVIEW_OPENED,
        HandoffStatus.REWORK_REQUESTED,
        HandoffStatus.AMENDMENTS_REQUESTED,
        HandoffStatus.ACCEPTED,
        HandoffStatus.MERGED,
        HandoffStatus.PHASE_COMPLETE,
        HandoffStatus.PUBLISHED,
        HandoffStatus.ESCALATED,
    }
)
STATUSES_BY_KIND: dict[str, frozenset[HandoffStatus]] = {
    "coordinator": COORDINATOR_STATUSES | {HandoffStatus.BLOCKED},
    "author": frozenset(
        {
            HandoffStatus.IN_PROGRESS,
            HandoffStatus.READY_FOR_REVIEW,
            HandoffStatus.AMENDMENTS_APPLIED,
            HandoffStatus.BLOCKED,
        }
    ),
    "builder": frozenset(
        {
            HandoffStatus.IN_PROGRESS,
            HandoffStatus.BUILD_COMPLETE,
            HandoffStatus.AMENDMENTS_APPLIED,
            HandoffStatus.BLOCKED,
        }
    ),
    "reviewer": frozenset({HandoffStatus.REVIEW_DONE, HandoffStatus.BLOCKED}),
}


def control_after(
    status: HandoffStatus | str, *, next_role: str | None, role: str
) -> Literal["coordinator", "continue"]:
    """Who acts after a valid hand-off: the code decides, NEXT is only a hint.

    Terminal statuses, blocks and applied amendments always return control to the
    coordinator, whatever NEXT says; IN-PROGRESS keeps it only when NEXT names the same role.
    """
    if HandoffStatus(status) is HandoffStatus.IN_PROGRESS and next_role == role:
        return "continue"
    return "coordinator"
