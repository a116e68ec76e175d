"""Two `vitrina serve` processes over one PostgreSQL serve the same dialogs and tokens."""

from __future__ import annotations

import subprocess
import sys

import httpx
import pytest

from vitrina.server.spawn import spawn_server

from .helpers import sse_events

pytestmark = pytest.mark.postgres


def _ask(base: str, headers: dict[str, str], thread: str, text: str) -> dict:
    resp = httpx.post(
        f"{base}/api/threads/{thread}/messages", json={"text": text}, headers=headers, timeout=60
    )
    assert resp.status_code == 200, resp.text
    events = sse_events(resp.text)
    assert events[-1]["type"] == "result", events[-1]
    return events[-1]["result"]


def test_one_dialog_continues_across_two_processes(pg_url, demo_db, tmp_path):
    base_env = {"VITRINA_STATE_URL": pg_url, "VITRINA_DB_URL": f"duckdb:///{demo_db}"}
    env_a = {
        **base_env,
        "VITRINA_HOME": str(tmp_path / "a"),
    }  # separate homes: no SQLite state shared
    env_b = {**base_env, "VITRINA_HOME": str(tmp_path / "b")}
    created = subprocess.run(
        [sys.executable, "-m", "vitrina.cli", "token", "create", "two-servers"],
        env={**__import__("os").environ, **env_a},
        capture_output=True,
        text=True,
        check=True,
    )
    headers = {"Authorization": f"Bearer {created.stdout.split()[-1]}"}
    with (
        spawn_server(env_a, log=tmp_path / "a.log") as a,
        spawn_server(env_b, log=tmp_path / "b.log") as b,
    ):
        assert a.url != b.url
        thread = httpx.post(
            f"{a.url}/api/threads", json={"segment": "auto"}, headers=headers
        ).json()["id"]
        first = _ask(a.url, headers, thread, "Сколько открыли в мае 2025?")
        assert first["status"] == "clarification"
        on_b = httpx.get(f"{b.url}/api/threads/{thread}", headers=headers).json()
        assert on_b["pending_clarification"]["options"] == first["clarification"]["options"]
        answered = _ask(b.url, headers, thread, "1")
        assert answered["status"] == "answered" and answered["topic"] == "wallets"
        follow = _ask(a.url, headers, thread, "а в декабре?")
        assert follow["status"] == "answered" and "декабр" in follow["rewritten_question"]
        history_a = httpx.get(f"{a.url}/api/threads/{thread}", headers=headers).json()
        history_b = httpx.get(f"{b.url}/api/threads/{thread}", headers=headers).json()
        assert [t["status"] for t in history_a["turns"]] == [
            "clarification",
            "answered",
            "answered",
        ]
        assert history_a["turns"] == history_b["turns"]
        assert thread in [
            t["id"] for t in httpx.get(f"{b.url}/api/threads", headers=headers).json()
        ]
        assert httpx.get(f"{b.url}/readyz").json()["checks"]["checkpointer"] == "ok"
    assert not (tmp_path / "a" / "state.sqlite").exists() or _no_sqlite_checkpoints(
        tmp_path / "a" / "state.sqlite"
    )


def _no_sqlite_checkpoints(path) -> bool:
    import sqlite3

    with sqlite3.connect(path) as conn:
        tables = {r[0] for r in conn.execute("select name from sqlite_master where type='table'")}
    return "checkpoints" not in tables
