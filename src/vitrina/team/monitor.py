"""Monitoring the board: signals for stuck work, and a report of where the time went.

`scan` looks at one build and raises a signal for a review open too long, a task blocked
too long, and a running build in which nothing moved for too long (no next step). `raise_signals`
puts each signal on the board as the coordinator's comment on the task (keyed, so a signal
is raised once per task and kind) with an audit entry, and hands it to `on_signal` (the
notifier, or the runner that wakes the coordinator). `bottlenecks` reads every task's
history from the audit log and names the slowest role and state and the reworked steps.

>>> MonitorLimits().review_s
3600.0
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from vitrina.team.board import BoardStore, Task
from vitrina.team.lifecycle import TaskKind, TaskStatus

SignalKind = Literal["stale_review", "blocked", "no_next_step"]
MAX_SIGNALS = 100  # one scan raises at most this many


@dataclass(frozen=True)
class MonitorLimits:
    review_s: float = 3600.0  # a review open longer than this is stale
    blocked_s: float = 4 * 3600.0  # a blocker nobody answers
    idle_s: float = 1800.0  # a running build where nothing moved


@dataclass(frozen=True)
class Signal:
    kind: SignalKind
    build_id: int
    task_id: int | None
    role: str
    age_s: float
    message: str


def _age(task: Task, now: float) -> float:
    return max(0.0, now - task.updated_at)


def scan(
    store: BoardStore,
    build_id: int,
    *,
    now: float | None = None,
    limits: MonitorLimits | None = None,
) -> list[Signal]:
    """Every signal the build's board shows now."""
    now = time.time() if now is None else now
    limits = limits or MonitorLimits()
    build = store.get_build(build_id)
    if build is None:
        return []
    tasks = store.tasks(build_id)
    signals: list[Signal] = []
    for task in tasks:
        if len(signals) >= MAX_SIGNALS:
            break
        age = _age(task, now)
        if task.kind is TaskKind.REVIEW and task.is_open and task.status is not TaskStatus.BLOCKED:
            if age > limits.review_s:
                signals.append(
                    Signal(
                        "stale_review",
                        build_id,
                        task.id,
                        task.role,
                        age,
                        f"review {task.id} ({task.role}) has been open for {age / 60:.0f} min",
                    )
                )
        elif task.status is TaskStatus.BLOCKED and age > limits.blocked_s:
            signals.append(
                Signal(
                    "blocked",
                    build_id,
                    task.id,
                    task.role,
                    age,
                    f"task {task.id} ({task.role}) has been blocked for {age / 60:.0f} min",
                )
            )
    if build.status == "running" and tasks:
        last = max(t.updated_at for t in tasks)
        if now - last > limits.idle_s and not any(s.kind == "stale_review" for s in signals):
            latest = max(tasks, key=lambda t: t.updated_at)
            signals.append(
                Signal(
                    "no_next_step",
                    build_id,
                    latest.id,
                    "coordinator",
                    now - last,
                    f"nothing moved on build {build_id} for {(now - last) / 60:.0f} min",
                )
            )
    return signals


def raise_signals(
    store: BoardStore,
    signals: list[Signal],
    *,
    on_signal: Callable[[Signal], None] | None = None,
) -> list[Signal]:
    """Put each new signal on the board (once per task and kind); the ones that were new."""
    from vitrina.team.primitives import Primitives
    from vitrina.team.roles import Roster
    from vitrina.team.workspace import Workspace

    new: list[Signal] = []
    for signal in signals:
        build = store.get_build(signal.build_id)
        if build is None or signal.task_id is None:
            continue
        task = store.get_task(signal.task_id)
        if task is None:
            continue
        prims = Primitives(store, Roster.default(), build.id, Workspace.open(Path(build.workspace)))
        _comment, _parsed, created = prims.comment(
            "coordinator",
            signal.task_id,
            f"[monitor] {signal.message}",
            key=f"monitor:{signal.kind}:r{task.round}",
        )
        if not created:
            continue
        store.audit(
            build_id=build.id,
            actor="monitor",
            action=f"signal:{signal.kind}",
            outcome="raised",
            task_id=signal.task_id,
            age_s=round(signal.age_s, 1),
        )
        new.append(signal)
        if on_signal is not None:
            on_signal(signal)
    return new


# the report ---------------------------------------------------------------------------


@dataclass
class Bottlenecks:
    seconds_by_role: dict[str, float] = field(default_factory=dict)
    seconds_by_state: dict[str, float] = field(default_factory=dict)
    rework_by_step: dict[str, int] = field(default_factory=dict)
    tasks: int = 0

    @property
    def slowest_role(self) -> str | None:
        return (
            max(self.seconds_by_role, key=lambda role: self.seconds_by_role[role])
            if self.seconds_by_role
            else None
        )

    @property
    def slowest_state(self) -> str | None:
        return (
            max(self.seconds_by_state, key=lambda state: self.seconds_by_state[state])
            if self.seconds_by_state
            else None
        )

    def lines(self, lang: str = "en") -> list[str]:
        ru = lang == "ru"
        out = []
        if self.slowest_role:
            out.append(
                ("Дольше всех работает роль " if ru else "The slowest role is ")
                + f"{self.slowest_role}: {self.seconds_by_role[self.slowest_role]:.1f} s"
            )
        if self.slowest_state:
            out.append(
                ("Дольше всего задачи в статусе " if ru else "Tasks spend the longest in ")
                + f"{self.slowest_state}: {self.seconds_by_state[self.slowest_state]:.1f} s"
            )
        for step, count in sorted(self.rework_by_step.items(), key=lambda kv: -kv[1]):
            out.append(
                f"Доработок шага {step}: {count}" if ru else f"{step} was reworked {count} time(s)"
            )
        return out


_STATUS_OF_ACTION = {"return_for_rework": "rework", "open_blocker": "blocked"}


def _status_after(action: str, detail: dict[str, Any]) -> str | None:
    if action == "open_task":
        return "new"
    if action == "change_status":
        return str(detail.get("status") or "") or None
    if action == "hand_off" and detail.get("status") == "READY-FOR-REVIEW":
        return "review"
    return _STATUS_OF_ACTION.get(action)


def bottlenecks(store: BoardStore, build_id: int, *, now: float | None = None) -> Bottlenecks:
    """Time per role and per state from every task's history; rework rounds per step."""
    now = time.time() if now is None else now
    tasks = {t.id: t for t in store.tasks(build_id)}
    history: dict[int, list[tuple[float, str]]] = defaultdict(list)
    for entry in store.audit_log(build_id):
        if entry.task_id is None or entry.outcome != "done":
            continue
        status = _status_after(entry.action, entry.detail)
        if status is not None:
            history[entry.task_id].append((entry.at, status))
    report = Bottlenecks(tasks=len(tasks))
    by_role: dict[str, float] = defaultdict(float)
    by_state: dict[str, float] = defaultdict(float)
    for task_id, moves in history.items():
        task = tasks.get(task_id)
        if task is None or task.kind is TaskKind.BLOCKER:
            continue
        moves.sort()
        for (at, status), following in zip(moves, [*moves[1:], None], strict=True):
            if status == "done":
                continue
            end = following[0] if following else (now if task.is_open else task.updated_at)
            seconds = max(0.0, end - at)
            by_state[status] += seconds
            if status in ("in_progress", "rework"):  # the assignee is the one working
                by_role[task.role] += seconds
            elif status == "review":
                reviews = [t for t in tasks.values() if t.parent_id == task.id]
                for review in reviews or [task]:
                    by_role[review.role] += seconds / max(1, len(reviews))
        if task.kind is TaskKind.WORK and task.round > 1:
            report.rework_by_step[task.step] = task.round - 1
    report.seconds_by_role = {k: round(v, 3) for k, v in sorted(by_role.items())}
    report.seconds_by_state = {k: round(v, 3) for k, v in sorted(by_state.items())}
    return report
