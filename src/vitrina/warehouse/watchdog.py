"""Statement timeouts on one shared thread instead of a timer thread per query.

DuckDB has no statement timeout of its own: a query is stopped by `cursor.interrupt()` from
another thread. A `threading.Timer` per query starts an OS thread, and `Thread.start` waits
until the new thread has run, which needs the GIL: with four turns running in one process,
as in a server worker, a start waited 1.4 ms median, 17 ms p95 and up to 138 ms, about
10 ms of every turn's latency (two or three queries a turn). One daemon thread per process
sleeps until the earliest deadline instead (decision 141); it exits when nothing has been
armed for IDLE_EXIT_S, and the next `arm` starts it again.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

log = logging.getLogger("vitrina.warehouse")

IDLE_EXIT_S = 60.0  # the thread ends after this long with nothing armed


def _nothing() -> None:
    return None


@dataclass(order=True)
class Alarm:
    """One armed deadline; `cancel` makes it harmless (it is dropped when it comes due)."""

    deadline: float
    seq: int
    fire: Callable[[], object] = field(compare=False)
    cancelled: bool = field(default=False, compare=False)

    def cancel(self) -> None:
        self.cancelled = True
        self.fire = _nothing  # a cancelled alarm waits in the heap until due: keep no cursor


class Watchdog:
    """Calls `fire` of every alarm whose deadline passed and that was not cancelled."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._alarms: list[Alarm] = []
        self._seq = itertools.count()
        self._thread: threading.Thread | None = None
        os.register_at_fork(after_in_child=self._forget)

    def arm(self, timeout_s: float, fire: Callable[[], object]) -> Alarm:
        """Call `fire()` in `timeout_s` seconds unless the returned alarm is cancelled."""
        alarm = Alarm(time.monotonic() + timeout_s, next(self._seq), fire)
        with self._cond:
            heapq.heappush(self._alarms, alarm)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._watch, name="vitrina-statement-timeouts", daemon=True
                )
                self._thread.start()
            elif self._alarms[0] is alarm:
                self._cond.notify()  # an earlier deadline than the one slept towards
        return alarm

    def pending(self) -> int:
        """Alarms armed and not cancelled (for tests)."""
        with self._cond:
            return sum(not a.cancelled for a in self._alarms)

    def _forget(self) -> None:
        """In a forked child: the parent's thread and alarms do not exist here."""
        self._cond = threading.Condition()
        self._alarms = []
        self._thread = None

    def _due(self) -> list[Alarm] | None:
        """Wait for the alarms that come due (None: idle long enough, the thread ends).
        Called with the condition held."""
        idle_since = time.monotonic()
        while True:  # bounded: every pass waits, and IDLE_EXIT_S of no alarms ends it
            while self._alarms and self._alarms[0].cancelled:
                heapq.heappop(self._alarms)
            now = time.monotonic()
            if not self._alarms:
                if now - idle_since >= IDLE_EXIT_S:
                    self._thread = None
                    return None
                self._cond.wait(IDLE_EXIT_S - (now - idle_since))
                continue
            if self._alarms[0].deadline <= now:
                due = []
                while self._alarms and self._alarms[0].deadline <= now:
                    alarm = heapq.heappop(self._alarms)
                    if not alarm.cancelled:
                        due.append(alarm)
                return due
            idle_since = now
            self._cond.wait(self._alarms[0].deadline - now)

    def _watch(self) -> None:
        while True:
            with self._cond:
                due = self._due()
            if due is None:
                return
            for alarm in due:
                if alarm.cancelled:  # cancelled while the others fired
                    continue
                try:
                    alarm.fire()
                except Exception as exc:  # the query then runs on; its caller is not here
                    log.warning("statement timeout could not stop a query: %s", exc)


WATCHDOG = Watchdog()
