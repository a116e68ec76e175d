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
