"""A `vitrina serve` over PostgreSQL (the warehouse and the state database) heals by itself:
after every backend of both databases is terminated (a failover, a restart, a DBA), /readyz
comes back to 200 without a restart and the next question over HTTP is answered."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg
import pytest

from pg_roles import reader_role  # tests/pg_roles.py
from vitrina.server.spawn import spawn_server
from vitrina.server.store import PING_AFTER_IDLE_S
from vitrina.warehouse.pg_load import load_demo_into_postgres

from .helpers import sse_events

pytestmark = pytest.mark.postgres

QUESTION = "Сколько кошельков открыли в мае 2025?"


@pytest.fixture
def warehouse_url(own_pg_database: str, demo_db: Path) -> Iterator[str]:
    """The demo in schema dwh of this test's own database (the state tables go to public);
    the URL of a reader role of its own."""
    load_demo_into_postgres(demo_db, own_pg_database)
    yield from reader_role(own_pg_database, ["dwh"])


def _kill_all(database_url: str) -> int:
    """Terminate every backend of the database (the server's state and warehouse connections)
    but this one; wait until they are gone."""
    name = database_url.rsplit("/", 1)[1]
    server = database_url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(server, autocommit=True) as admin:
        pids = [
            pid
            for (pid,) in admin.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                (name,),
            ).fetchall()
        ]
        for pid in pids:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        for _ in range(100):  # bounded: 10 s
            if not admin.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(%s)", (pids,)
            ).fetchone()[0]:
                break
            time.sleep(0.1)
    return len(pids)


def _ask(base: str, headers: dict[str, str]) -> dict:
    thread = httpx.post(f"{base}/api/threads", json={"segment": "auto"}, headers=headers)
    assert thread.status_code == 200, thread.text
    resp = httpx.post(
        f"{base}/api/threads/{thread.json()['id']}/messages",
        json={"text": QUESTION},
        headers=headers,
        timeout=60,
    )
    assert resp.status_code == 200, resp.text
    events = sse_events(resp.text)
    assert events[-1]["type"] == "result", events[-1]
    return events[-1]["result"]


def test_readyz_and_questions_heal_after_every_backend_is_killed(
    own_pg_database: str, warehouse_url: str, tmp_path: Path
) -> None:
    env = {
        "VITRINA_HOME": str(tmp_path / "home"),
        "VITRINA_STATE_URL": own_pg_database,
        "VITRINA_DB_URL": warehouse_url,
    }
    created = subprocess.run(
        [sys.executable, "-m", "vitrina.cli", "token", "create", "reconnect"],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    headers = {"Authorization": f"Bearer {created.stdout.split()[-1]}"}
    with spawn_server(env, log=tmp_path / "serve.log") as server:
        before = _ask(server.url, headers)
        assert before["status"] == "answered", before

        # at once after the kill: still ready (each probe is a read, retried once on a
        # connection found dead), with no restart
        assert _kill_all(own_pg_database) >= 2  # the warehouse's and the state's
        ready = httpx.get(f"{server.url}/readyz", timeout=30)
        assert ready.status_code == 200, (ready.text, server.log.read_text()[-3000:])
        assert ready.json()["checks"] == {
            "warehouse": "ok",
            "checkpointer": "ok",
            "store": "ok",
        }

        # as after a failover (seconds): every idle connection is checked, the question,
        # with its token lookup, dialog record and checkpoints, is answered
        assert _kill_all(own_pg_database) >= 2  # the warehouse's and the state's
        time.sleep(PING_AFTER_IDLE_S * 2)
        assert httpx.get(f"{server.url}/readyz", timeout=30).status_code == 200
        assert _kill_all(own_pg_database) >= 2  # the warehouse's and the state's
        time.sleep(PING_AFTER_IDLE_S * 2)
        after = _ask(server.url, headers)
        assert after["status"] == "answered", after
        assert after["rows"] == before["rows"]
    assert "Traceback" not in server.log.read_text()
