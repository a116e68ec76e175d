"""Statuses and transitions per kind of task; who gets control after a hand-off."""

from __future__ import annotations

import itertools

import pytest

from vitrina.team.errors import InvalidTransition
from vitrina.team.lifecycle import (
    TRANSITIONS,
    HandoffStatus,
    TaskKind,
    TaskStatus,
    check_transition,
    control_after,
)

S = TaskStatus
WORK_PATH = [S.NEW, S.IN_PROGRESS, S.REVIEW, S.REWORK, S.REVIEW, S.DONE]


def test_the_work_path_of_the_issue_is_allowed() -> None:
    for current, target in itertools.pairwise(WORK_PATH):
        check_transition(TaskKind.WORK, current, target)


@pytest.mark.parametrize(
    ("kind", "current", "target"),
    [
        (TaskKind.WORK, S.NEW, S.DONE),  # nothing is accepted without a review
        (TaskKind.WORK, S.IN_PROGRESS, S.DONE),
        (TaskKind.WORK, S.REWORK, S.DONE),
        (TaskKind.WORK, S.DONE, S.IN_PROGRESS),  # done is final
        (TaskKind.WORK, S.REVIEW, S.IN_PROGRESS),
        (TaskKind.REVIEW, S.NEW, S.DONE),  # a review is worked on before it is done
        (TaskKind.REVIEW, S.IN_PROGRESS, S.REVIEW),
        (TaskKind.BLOCKER, S.NEW, S.IN_PROGRESS),
    ],
)
def test_forbidden_transitions(kind: TaskKind, current: TaskStatus, target: TaskStatus) -> None:
    with pytest.raises(InvalidTransition, match=f"{current} -> {target}"):
        check_transition(kind, current, target, task_id=7)


def test_every_kind_has_a_way_to_done() -> None:
    for kind, table in TRANSITIONS.items():
        reachable, frontier = {S.NEW}, [S.NEW]
        while frontier:
            for nxt in table.get(frontier.pop(), ()):
                if nxt not in reachable:
                    reachable.add(nxt)
                    frontier.append(nxt)
        assert S.DONE in reachable, kind


@pytest.mark.parametrize(
    "status", ["BUILD-COMPLETE", "READY-FOR-REVIEW", "REVIEW-DONE", "BLOCKED", "AMENDMENTS-APPLIED"]
)
@pytest.mark.parametrize("next_role", ["chart-builder", "data-engineer", "coordinator", None])
def test_terminal_statuses_return_to_the_coordinator_whatever_next_says(
    status: str, next_role: str | None
) -> None:
    assert control_after(status, next_role=next_role, role="data-engineer") == "coordinator"


def test_in_progress_keeps_control_only_for_the_same_role() -> None:
    assert (
        control_after(HandoffStatus.IN_PROGRESS, next_role="data-engineer", role="data-engineer")
        == "continue"
    )
    assert (
        control_after(HandoffStatus.IN_PROGRESS, next_role="chart-builder", role="data-engineer")
        == "coordinator"
    )
