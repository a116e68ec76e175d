"""Task resume over one PostgreSQL state shared by several server processes (issue 38 item
8, decision 168 addendum): the task's advisory lock, not the SQLite claims table, says who
resumes it. Two servers starting together resume an interrupted task once; a lock whose
session died (its process) is free at once."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest

from vitrina.config import load_settings
from vitrina.server.checkpointer import close_checkpointer, make_checkpointer
from vitrina.task.api import build_router
from vitrina.task.service import TASK_POOL_SIZE, TaskBusy

from .conftest import ProcessDied, dying_in_step_2

pytestmark = pytest.mark.postgres

REQUEST = "Сумма платежей по регионам за 3 квартал 2026 с прошлым годом"


@pytest.fixture
def pg_tasks(make_task, make_service, own_pg_database):
    """factory(**kw) -> a TaskService over this test's own PostgreSQL database (one per
    "process"), and `crashed()`: the id of a task whose run died in step 2."""
    savers = []

    def factory(**kw):
        saver = make_checkpointer(
            load_settings(state_url=own_pg_database), pool_size=TASK_POOL_SIZE
        )
        savers.append(saver)
        return make_task(checkpointer=saver, **kw)

    def crashed() -> str:
        asker = make_service(write_files=True)
        service = factory(**dying_in_step_2(asker))
        with pytest.raises(ProcessDied):
            service.run(REQUEST, mode="auto")
        (task_id,) = service.interrupted()
        return task_id

    factory.crashed = crashed
    yield factory
    for saver in savers:
        close_checkpointer(saver)


def _terminate(url: str, pid: int) -> None:
    """End a backend as the server does when its client process dies, and wait until gone."""
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        for _ in range(100):
            row = admin.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE pid = %s", (pid,)
            ).fetchone()
            if row is not None and row[0] == 0:
                return
            time.sleep(0.05)
    raise AssertionError(f"backend {pid} still there")


def _wait_done(service, router, task_id):
    deadline = time.monotonic() + 120
    view = service.view(task_id)
    while time.monotonic() < deadline:
        view = service.view(task_id)
        if view.status in ("done", "failed", "stopped") and not router.state.busy(task_id):
            return view
        time.sleep(0.1)
    raise AssertionError(f"task {task_id} still {view.status}")


def test_two_servers_starting_together_resume_the_task_once(pg_tasks):
    task_id = pg_tasks.crashed()
    services = [pg_tasks(), pg_tasks()]
    routers = [build_router(service) for service in services]
    barrier = threading.Barrier(2)
    resumed: list[list[str] | None] = [None, None]

    def start(i: int) -> None:
        barrier.wait(10)
        resumed[i] = routers[i].resume_interrupted()

    workers = [threading.Thread(target=start, args=(i,)) for i in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert sorted(resumed, key=lambda r: len(r or [])) == [[], [task_id]]
    winner = 0 if resumed[0] else 1
    view = _wait_done(services[winner], routers[winner], task_id)
    assert view.status == "done", view.summary
    # every step ran once, the one cut off included
    assert [h["n"] for h in view.history] == list(range(1, len(view.plan) + 1))
    # a third server starting later finds nothing to resume
    assert build_router(pg_tasks()).resume_interrupted() == []
    for router in routers:
        router.state.close()


def test_a_claim_is_refused_while_held_and_free_once_its_process_died(pg_tasks, own_pg_database):
    task_id = pg_tasks.crashed()
    running, restarted = pg_tasks(), pg_tasks()
    held = running.locks.try_hold("task", task_id)  # a live process runs the task
    assert held is not None
    assert restarted.claim_resume(task_id) is False
    with pytest.raises(TaskBusy):  # nor can it run the task (a decision, a CLI resume)
        restarted.resume(task_id)
    _terminate(own_pg_database, held.backend_pid)  # that process dies
    assert restarted.claim_resume(task_id) is True
    assert running.claim_resume(task_id) is False  # the restarted one holds it now
    view = restarted.resume(task_id)
    assert view.status == "done", view.summary
    held.release()  # its connection is gone: logged and dropped, nothing raised
    assert restarted.claim_resume(task_id) is False  # done: nothing to resume


def test_a_dead_holders_lock_is_taken_at_once(own_pg_database):
    from vitrina.advisory import pool_locks

    one = make_checkpointer(load_settings(state_url=own_pg_database), pool_size=3)
    two = make_checkpointer(load_settings(state_url=own_pg_database), pool_size=3)
    try:
        mine, theirs = pool_locks(one.conn, limit=2), pool_locks(two.conn, limit=2)
        held = mine.try_hold("task", "t-dead")
        assert held is not None
        assert theirs.try_hold("task", "t-dead") is None
        assert theirs.try_hold("turn", "t-dead") is not None  # another kind, another key
        held.conn.close()  # the process's connection closes (its exit)
        taken = None
        for _ in range(50):  # the server ends the session as soon as it sees the close
            taken = theirs.try_hold("task", "t-dead")
            if taken is not None:
                break
            time.sleep(0.05)
        assert taken is not None
        held.release()
        taken.release()
        assert mine.try_hold("task", "t-dead") is not None
    finally:
        close_checkpointer(one)
        close_checkpointer(two)


def test_the_locks_held_by_a_process_are_bounded(own_pg_database):
    from vitrina.advisory import LocksExhausted, pool_locks

    saver = make_checkpointer(load_settings(state_url=own_pg_database), pool_size=4)
    try:
        locks = pool_locks(saver.conn, limit=2)
        first, second = locks.try_hold("task", "a"), locks.try_hold("task", "b")
        with pytest.raises(LocksExhausted):
            locks.try_hold("task", "c")
        assert first is not None and second is not None
        first.release()
        first.release()  # idempotent: the slot is given back once
        third = locks.try_hold("task", "c")
        assert third is not None
        with pytest.raises(LocksExhausted):
            locks.try_hold("task", "d")
        second.release()
        third.release()
    finally:
        close_checkpointer(saver)
