"""PostgreSQL warehouse connections heal: a backend terminated by `pg_terminate_backend` (as a
failover, an idle timeout or a DBA does) is replaced and the next question is answered; a
query that may have run when its connection died is never run again; every new connection
is inspected like the first."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from pg_roles import reader_role  # tests/pg_roles.py
from vitrina.warehouse import Warehouse, WarehouseError
from vitrina.warehouse.pg_load import load_demo_into_postgres

pytestmark = pytest.mark.postgres


@pytest.fixture
def reader(own_pg_database: str) -> Iterator[str]:
    with psycopg.connect(own_pg_database, autocommit=True) as admin:
        admin.execute(
            "CREATE SCHEMA s; CREATE TABLE s.t AS SELECT g AS id FROM generate_series(1, 50) g"
        )
    yield from reader_role(own_pg_database, ["s"])


def terminate(admin_url: str, *, where: str, params: tuple = ()) -> list[int]:
    """Terminate the backends `where` selects (never this connection's) and wait until they
    are gone; their pids."""
    with psycopg.connect(admin_url, autocommit=True) as admin:
        pids = [
            pid
            for (pid,) in admin.execute(
                f"SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND {where}",
                params,
            ).fetchall()
        ]
        for pid in pids:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        for _ in range(100):  # bounded: 10 s
            left = admin.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(%s)", (pids,)
            ).fetchone()[0]
            if not left:
                break
            time.sleep(0.1)
    return pids


def _pid(wh: Warehouse) -> int:
    return wh.execute("SELECT pg_backend_pid() AS pid").rows[0][0]


def test_a_terminated_backend_is_replaced_and_the_read_answers(reader, own_pg_database):
    wh = Warehouse(reader)
    try:
        first = _pid(wh)
        assert terminate(own_pg_database, where="pid = %s", params=(first,)) == [first]
        result = wh.execute("SELECT count(*) AS n FROM s.t")  # dead at BEGIN: reconnect, retry
        assert result.rows == [(50,)] and result.reconnected
        assert _pid(wh) != first
        assert not wh.execute("SELECT 1 AS one").reconnected  # the new connection is kept
        assert wh.ping() is None
    finally:
        wh.close()


def test_a_query_that_may_have_run_is_not_run_again(reader, own_pg_database):
    """The backend is killed while the statement runs: the caller gets a `connect` error
    (a retry would have answered after the sleep), the next query reconnects."""
    wh = Warehouse(reader)
    outcome: dict[str, object] = {}

    def long_read() -> None:
        try:
            outcome["rows"] = wh.execute("SELECT pg_sleep(2) IS NULL AS slept").rows
        except WarehouseError as exc:
            outcome["error"] = exc

    try:
        wh.ping()
        worker = threading.Thread(target=long_read)
        worker.start()
        for _ in range(100):  # bounded: until the sleep runs
            killed = terminate(
                own_pg_database,
                where="application_name = 'vitrina' AND wait_event = 'PgSleep'",
            )
            if killed:
                break
            time.sleep(0.05)
        worker.join(timeout=30)
        assert killed, "the long query never showed up in pg_stat_activity"
        error = outcome.get("error")
        assert isinstance(error, WarehouseError) and error.kind == "connect", outcome
        assert "lost the connection to PostgreSQL during the query" in str(error)
        assert wh.execute("SELECT count(*) FROM s.t").rows == [(50,)]
    finally:
        wh.close()


def test_a_new_connection_is_inspected_like_the_first(reader, own_pg_database):
    """A role that was granted more since the first connect is refused on reconnect."""
    wh = Warehouse(reader)
    role = reader.split("://", 1)[1].split(":", 1)[0]
    try:
        first = _pid(wh)
        with psycopg.connect(own_pg_database, autocommit=True) as admin:
            admin.execute(f'GRANT CREATE ON SCHEMA s TO "{role}"')
        terminate(own_pg_database, where="pid = %s", params=(first,))
        with pytest.raises(WarehouseError) as info:
            wh.execute("SELECT count(*) FROM s.t")
        assert info.value.kind == "privileged" and "schema s" in str(info.value)
    finally:
        wh.close()


def test_the_next_question_is_answered_after_the_backend_is_killed(
    demo_db: Path, own_pg_database: str, make_service
):
    """Through the ask service on the demo in PostgreSQL: ask, kill every warehouse backend,
    ask again: answered, and the trace says the connection was replaced."""
    load_demo_into_postgres(demo_db, own_pg_database)
    roles = reader_role(own_pg_database, ["dwh"])
    url = next(roles)
    service = make_service(url)
    question = "Сколько кошельков открыли в мае 2025?"
    try:
        before = service.ask(question)
        assert before.status == "answered", before.answer
        killed = terminate(
            own_pg_database,
            where="application_name = 'vitrina' AND usename = %s",
            params=(url.split("://", 1)[1].split(":", 1)[0],),
        )
        assert killed
        after = service.ask(question)
        assert after.status == "answered", after.answer
        assert after.rows == before.rows
        assert any(e.kind == "suppressed" and "reconnected" in e.message for e in after.trace), [
            e.message for e in after.trace
        ]
    finally:
        service.close()
        next(roles, None)  # the role dropped
