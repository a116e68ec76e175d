"""The store's connections on a real PostgreSQL: single statements run in autocommit, a
turn's writes are one statement, and a connection the server dropped is replaced."""

from __future__ import annotations

import time

import psycopg
import pytest
from sqlalchemy import event

from vitrina.server import store as store_module
from vitrina.server.store import Store

pytestmark = pytest.mark.postgres


def _store(url: str) -> Store:
    return Store(url.replace("postgresql://", "postgresql+psycopg://"))


def _kill_connections(url: str) -> int:
    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as admin:
        rows = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid()",
            (name,),
        ).fetchall()
    return len(rows)


def test_a_dropped_connection_is_replaced_after_idle(own_pg_database, monkeypatch):
    monkeypatch.setattr(store_module, "PING_AFTER_IDLE_S", 0.05)
    store = _store(own_pg_database)
    try:
        store.add_token("t1", "alice", "0" * 64)
        assert store.token("t1") is not None
        assert _kill_connections(own_pg_database) >= 1  # as a database restart does
        time.sleep(0.2)
        record = store.token("t1")  # the idle connection is pinged, found dead, replaced
        assert record is not None and record.name == "alice"
    finally:
        store.close()


def test_single_statements_autocommit_and_a_turn_is_one_statement(own_pg_database):
    store = _store(own_pg_database)
    seen: list[tuple[str, bool]] = []

    def record(conn, _cursor, statement, *_args) -> None:
        seen.append((statement.split()[0].upper(), conn.connection.dbapi_connection.autocommit))

    for engine in (store.engine, store._single):  # transactions, and single statements
        event.listen(engine, "before_cursor_execute", record)
    try:
        store.create_thread("th1", "local", "auto", [])
        assert store.thread("th1") is not None
        assert seen and all(autocommit for _, autocommit in seen), seen
        seen.clear()
        store.record_turn("th1", "first question", run_id="r1", note=("steps", {"n": 1}, "c1"))
        assert seen == [("WITH", True)]  # the run, the dialog's time and the note at once
        # a clarification and its answer share one run id: the run is recorded once
        store.record_turn("th1", "second", run_id="r1", note=("steps", {"n": 2}, "c2"))
        assert store.run_thread("r1") == "th1"
        assert [n["data"] for n in store.notes("th1", "steps")] == [{"n": 1}, {"n": 2}]
        dialog = store.thread("th1")
        assert dialog is not None and dialog.title == "first question"  # the first title kept
    finally:
        store.close()


def test_a_read_right_after_the_kill_is_retried_once_and_a_write_never(
    own_pg_database, monkeypatch, caplog
):
    """Inside the ping window (here: never pinged) a dropped connection fails its first
    statement: a read runs once more on a new connection, a write is not repeated."""
    from sqlalchemy.exc import DBAPIError

    monkeypatch.setattr(store_module, "PING_AFTER_IDLE_S", 3600.0)
    store = _store(own_pg_database)
    try:
        store.add_token("t1", "alice", "0" * 64)
        assert store.token("t1") is not None
        assert _kill_connections(own_pg_database) >= 1
        with caplog.at_level("WARNING", logger="vitrina.server.store"):
            record = store.token("t1")
        assert record is not None and record.name == "alice"
        assert "the read is retried once" in caplog.text
        assert _kill_connections(own_pg_database) >= 1
        with pytest.raises(DBAPIError) as info:
            store.add_token("t2", "bob", "1" * 64)
        assert info.value.connection_invalidated
        assert store.token("t2") is None  # not written, and not written twice
        store.add_token("t2", "bob", "1" * 64)  # the next write gets a new connection
        assert store.token("t2") is not None
    finally:
        store.close()


def test_the_checkpointer_pool_heals(own_pg_database, tmp_path):
    """LangGraph's PostgreSQL checkpointer: its readiness probe answers right after every
    connection was killed, and after the ping window a turn's reads and writes do too."""
    from vitrina.config import Settings
    from vitrina.server.checkpointer import close_checkpointer, make_checkpointer, ping_checkpointer

    saver = make_checkpointer(Settings(home=tmp_path, state_url=own_pg_database), pool_size=3)
    config = {"configurable": {"thread_id": "t", "checkpoint_ns": ""}}
    try:
        ping_checkpointer(saver)
        assert _kill_connections(own_pg_database) >= 1
        ping_checkpointer(saver)  # failed once, every idle connection checked, read again
        assert _kill_connections(own_pg_database) >= 1
        time.sleep(store_module.PING_AFTER_IDLE_S * 2)  # idle: checked before it is handed out
        from langgraph.checkpoint.base import empty_checkpoint

        saver.put(config, empty_checkpoint(), {"source": "input", "step": 0}, {})
        assert saver.get_tuple(config) is not None
    finally:
        close_checkpointer(saver)
