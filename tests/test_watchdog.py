"""The shared statement-timeout thread: alarms fire once when due, cancelled ones never, and
queries start no thread of their own."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest

from vitrina.warehouse import Warehouse
from vitrina.warehouse import watchdog as watchdog_module
from vitrina.warehouse.watchdog import Watchdog


def _recorder() -> tuple[list[str], threading.Event, Callable[..., Callable[[], None]]]:
    fired: list[str] = []
    done = threading.Event()

    def make(name: str, last: bool = False) -> Callable[[], None]:
        def fire() -> None:
            fired.append(name)
            if last:
                done.set()

        return fire

    return fired, done, make


def test_alarms_fire_in_deadline_order_and_cancelled_ones_never() -> None:
    dog = Watchdog()
    fired, done, make = _recorder()
    late = dog.arm(0.30, make("late", last=True))
    dropped = dog.arm(0.05, make("dropped"))
    dog.arm(0.10, make("early"))  # earlier than the deadline the thread sleeps towards
    dropped.cancel()
    assert done.wait(5)
    assert fired == ["early", "late"]
    assert late.cancelled is False
    assert dog.pending() == 0


def test_a_fire_that_raises_does_not_stop_the_thread() -> None:
    dog = Watchdog()
    fired, done, make = _recorder()

    def broken() -> None:
        raise RuntimeError("cursor already closed")

    dog.arm(0.01, broken)
    dog.arm(0.05, make("after", last=True))
    assert done.wait(5)
    assert fired == ["after"]


def test_the_thread_ends_when_idle_and_starts_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(watchdog_module, "IDLE_EXIT_S", 0.1)
    dog = Watchdog()
    fired, done, make = _recorder()
    dog.arm(0.01, make("first"))
    deadline = time.monotonic() + 5
    while dog._thread is not None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert dog._thread is None, "the idle thread did not end"
    dog.arm(0.01, make("second", last=True))
    assert done.wait(5)
    assert fired == ["first", "second"]


def test_queries_start_no_thread_each(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A threading.Timer per query was a thread start per query (see the module docstring)."""
    path = tmp_path / "w.duckdb"
    duckdb.connect(str(path)).close()
    warehouse = Warehouse(f"duckdb:///{path}")
    warehouse.execute("SELECT 1")  # the shared thread may start here, once
    started: list[str] = []
    original = threading.Thread.start

    def counting_start(self: threading.Thread) -> None:
        started.append(self.name)
        original(self)

    monkeypatch.setattr(threading.Thread, "start", counting_start)
    for _ in range(5):
        warehouse.execute("SELECT 42")
        warehouse.explain("SELECT 42")
    warehouse.close()
    assert started == []
    assert watchdog_module.WATCHDOG.pending() == 0


def test_a_cancelled_alarm_keeps_no_reference_to_its_query() -> None:
    """Cancelled alarms wait in the heap until due (30 s for a statement timeout): they must
    not keep the query's cursor alive that long."""
    import gc
    import weakref

    class Cursor:
        def interrupt(self) -> None:
            raise AssertionError("a cancelled alarm fired")

    dog = Watchdog()
    earlier = dog.arm(10, lambda: None)  # the deadline the thread sleeps towards
    cursor = Cursor()
    alive = weakref.ref(cursor)
    dog.arm(30, cursor.interrupt).cancel()
    del cursor
    gc.collect()
    assert alive() is None
    earlier.cancel()
