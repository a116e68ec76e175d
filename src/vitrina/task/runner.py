"""Background runs of tasks for the web page: one worker pool, an event log per task (bounded).

A running task can be asked to stop (`request_stop`): the run ends at its next node and the
task is marked stopped, so no task stays `running` with nobody able to end it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

MAX_EVENTS = 2_000  # per task; older events are dropped first
MAX_TASKS = 500  # logs kept in memory


class TaskStopped(Exception):
    """Raised between nodes of a run whose owner asked it to stop."""


class TaskRunner:
    def __init__(self, service: Any, *, workers: int = 2) -> None:
        self.service = service
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="vitrina-task")
        self._logs: dict[str, list[dict[str, Any]]] = {}
        self._offsets: dict[str, int] = {}
        self._busy: set[str] = set()
        self._stop: set[str] = set()
        self._lock = threading.Condition()

    def busy(self, task_id: str) -> bool:
        with self._lock:
            return task_id in self._busy

    def request_stop(self, task_id: str) -> bool:
        """Ask a running task to stop at its next node; False when it is not running here."""
        with self._lock:
            if task_id not in self._busy:
                return False
            self._stop.add(task_id)
            return True

    def _append(self, task_id: str, event: dict[str, Any]) -> None:
        with self._lock:
            if task_id in self._stop and event.get("node") not in ("idle", "error"):
                raise TaskStopped(task_id)
            log = self._logs.setdefault(task_id, [])
            log.append(event)
            if len(log) > MAX_EVENTS:
                drop = len(log) - MAX_EVENTS
                del log[:drop]
                self._offsets[task_id] = self._offsets.get(task_id, 0) + drop
            self._lock.notify_all()

    def submit(self, task_id: str, work: Callable[[Callable[[dict[str, Any]], None]], Any]) -> None:
        """Run `work(on_event)` in the pool; the log ends the run with an `idle` (or `error`)
        event."""
        with self._lock:
            if task_id in self._busy:
                raise RuntimeError(f"task {task_id} is already running")
            self._busy.add(task_id)
            if len(self._logs) >= MAX_TASKS and task_id not in self._logs:
                self._logs.pop(next(iter(self._logs)))

        def job() -> None:
            try:
                view = work(lambda e: self._append(task_id, e))
                final = {"node": "idle", "status": view.status}
            except TaskStopped:
                final = {"node": "idle", "status": self._stopped(task_id)}
            except Exception as exc:  # shown on the page; the checkpoint keeps the task resumable
                final = {"node": "error", "message": f"{type(exc).__name__}: {exc}"}
            with self._lock:  # one step: a stream never sees "not busy" before the last event
                self._busy.discard(task_id)
                self._stop.discard(task_id)
                self._append(task_id, final)

        self._pool.submit(job)

    def _stopped(self, task_id: str) -> str:
        try:
            self.service.force_stop(task_id, reason="stopped by its owner while it was running")
        except Exception:  # the checkpoint stays as it was; the page shows the error status
            return "failed"
        return "stopped"

    def events_now(self, task_id: str, after: int) -> tuple[list[dict[str, Any]], int, bool]:
        """Like `events` without waiting (for async streams, which sleep on the event loop)."""
        return self.events(task_id, after, 0.0)

    def events(
        self, task_id: str, after: int, wait_s: float
    ) -> tuple[list[dict[str, Any]], int, bool]:
        """Events with index >= `after` (waiting up to `wait_s` for some), the next index, and
        whether the task is idle."""
        with self._lock:
            waiting = len(self._logs.get(task_id, [])) + self._offsets.get(task_id, 0) <= after
            if waiting and task_id in self._busy and wait_s > 0:
                self._lock.wait(timeout=wait_s)
            offset = self._offsets.get(task_id, 0)
            log = self._logs.get(task_id, [])
            start = max(0, after - offset)
            return list(log[start:]), offset + len(log), task_id not in self._busy

    def close(self) -> None:
        self._pool.shutdown(wait=True)
