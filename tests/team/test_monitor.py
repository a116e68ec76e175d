"""Monitoring: a stale review raises a signal once (a coordinator comment, an audit entry, a
call to the notifier); the report reads the tasks' histories and names the bottlenecks."""

from __future__ import annotations

import pytest

from vitrina.team.lifecycle import TaskStatus
from vitrina.team.monitor import MonitorLimits, bottlenecks, raise_signals, scan
from vitrina.team.protocol import VerdictKind

from .helpers import give_verdict, task_in_review


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    import vitrina.team.board.store as store_module

    clock = Clock()
    monkeypatch.setattr(store_module.time, "time", clock)
    return clock


def test_a_stale_review_raises_one_signal_and_wakes_the_coordinator(env, clock) -> None:
    task = task_in_review(env.prims, "scoping")
    review = env.prims.create_review("coordinator", task.id, "data-steward").task
    limits = MonitorLimits(review_s=3600)
    clock.advance(1800)
    assert scan(env.store, env.build.id, now=clock.now, limits=limits) == []
    clock.advance(2 * 3600)
    (signal,) = scan(env.store, env.build.id, now=clock.now, limits=limits)
    assert signal.kind == "stale_review" and signal.task_id == review.id
    assert signal.role == "data-steward" and signal.age_s == pytest.approx(9000)
    woken = []
    assert raise_signals(env.store, [signal], on_signal=woken.append) == [signal]
    assert woken == [signal]
    assert raise_signals(env.store, [signal], on_signal=woken.append) == []  # once
    comments = [c for c in env.store.comments(review.id) if c.author == "coordinator"]
    assert len(comments) == 1 and comments[0].text.startswith("[monitor] review")
    audit = [e for e in env.store.audit_log(env.build.id) if e.action == "signal:stale_review"]
    assert len(audit) == 1 and audit[0].task_id == review.id


def test_a_long_blocker_and_a_build_where_nothing_moves(env, clock) -> None:
    task = env.prims.open_task("coordinator", "scoping", body="", lang="en").task
    env.prims.change_status("scoping", task.id, TaskStatus.IN_PROGRESS)
    env.prims.open_blocker("scoping", task.id, "which period?")
    clock.advance(5 * 3600)
    kinds = {s.kind for s in scan(env.store, env.build.id, now=clock.now)}
    assert kinds == {"blocked", "no_next_step"}


def test_the_report_names_the_bottlenecks(env, clock) -> None:
    task = env.prims.open_task("coordinator", "scoping", body="", lang="en").task
    clock.advance(10)
    env.prims.change_status("scoping", task.id, TaskStatus.IN_PROGRESS)
    clock.advance(60)  # the author works a minute
    task = task_in_review_after(env, task)
    review = env.prims.create_review("coordinator", task.id, "data-steward").task
    clock.advance(600)  # the review waits ten minutes
    give_verdict(env.prims, review, VerdictKind.REQUESTS_REWORK, ["[KPI-001] empty"])
    env.prims.return_for_rework("coordinator", task.id, ["[KPI-001] empty"])
    clock.advance(30)
    report = bottlenecks(env.store, env.build.id, now=clock.now)
    assert report.rework_by_step == {"scoping": 1}
    assert report.slowest_state == "review"
    assert report.seconds_by_state["review"] == pytest.approx(600)
    assert report.seconds_by_state["in_progress"] == pytest.approx(60)
    assert report.seconds_by_state["rework"] == pytest.approx(30)
    assert report.slowest_role == "data-steward"
    lines = report.lines("ru")
    assert lines[0].startswith("Дольше всех работает роль data-steward")
    assert "Доработок шага scoping: 1" in lines


def task_in_review_after(env, task):
    from vitrina.team.lifecycle import HandoffStatus
    from vitrina.team.protocol import Handoff

    env.prims.hand_off(
        "scoping", task.id, Handoff(status=HandoffStatus.READY_FOR_REVIEW, next="coordinator")
    )
    return env.store.get_task(task.id)
