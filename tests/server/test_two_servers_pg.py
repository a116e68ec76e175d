"""Two `vitrina serve` processes over one PostgreSQL serve the same dialogs, tokens, run files
and tasks (issue 38): a dialog continues on the other process, a token made on one works on
both and another token gets 404 on both, a task planned on one is approved and resumed on
the other, and the rate limit counts per process (decision 168)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

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


def _token(env: dict[str, str], name: str) -> dict[str, str]:
    created = subprocess.run(
        [sys.executable, "-m", "vitrina.cli", "token", "create", name],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return {"Authorization": f"Bearer {created.stdout.split()[-1]}"}


def _task_when_idle(base: str, headers: dict[str, str], task_id: str) -> dict:
    for _ in range(600):  # bounded: the rules planner plans and runs a step in seconds
        task = httpx.get(f"{base}/api/tasks/{task_id}", headers=headers, timeout=30).json()
        if not task["running"] and task["status"] != "running":
            return task
        time.sleep(0.1)
    raise AssertionError(f"task {task_id} did not stop running on {base}")


def _envs(pg_url: str, demo_db, tmp_path) -> tuple[dict[str, str], dict[str, str]]:
    base = {"VITRINA_STATE_URL": pg_url, "VITRINA_DB_URL": f"duckdb:///{demo_db}"}
    return (
        {**base, "VITRINA_HOME": str(tmp_path / "a")},
        {**base, "VITRINA_HOME": str(tmp_path / "b")},
    )


def test_tokens_ownership_and_files_hold_across_processes(pg_url, demo_db, tmp_path):
    env_a, env_b = _envs(pg_url, demo_db, tmp_path)
    alice, bob = _token(env_a, "alice"), _token(env_b, "bob")  # each made by its own process
    with (
        spawn_server(env_a, log=tmp_path / "a.log") as a,
        spawn_server(env_b, log=tmp_path / "b.log") as b,
    ):
        thread = httpx.post(f"{a.url}/api/threads", json={}, headers=alice).json()["id"]
        answered = _ask(a.url, alice, thread, "Количество платежей по месяцам в 2025 году")
        run_id = answered["run_id"]
        for base in (a.url, b.url):
            assert httpx.get(f"{base}/api/threads/{thread}", headers=bob).status_code == 404
            assert httpx.get(f"{base}/api/runs/{run_id}/csv", headers=bob).status_code == 404
            refused = httpx.post(
                f"{base}/api/threads/{thread}/messages", json={"text": "а в 2024?"}, headers=bob
            )
            assert refused.status_code == 404
        csv = httpx.get(f"{b.url}/api/runs/{run_id}/csv", headers=alice, timeout=60)
        assert csv.status_code == 200 and len(csv.text.strip().splitlines()) == 13
        assert thread not in [
            t["id"] for t in httpx.get(f"{b.url}/api/threads", headers=bob).json()
        ]
        listed = subprocess.run(
            [sys.executable, "-m", "vitrina.cli", "token", "list"],
            env={**os.environ, **env_b},
            capture_output=True,
            text=True,
            check=True,
        )
        assert "alice" in listed.stdout and "bob" in listed.stdout  # one token table


def test_a_task_planned_on_one_process_resumes_on_the_other(pg_url, demo_db, tmp_path):
    env_a, env_b = _envs(pg_url, demo_db, tmp_path)
    alice, bob = _token(env_a, "alice"), _token(env_a, "bob")
    request = "Сумма платежей по регионам за 3 квартал 2026, доли"
    with (
        spawn_server(env_a, log=tmp_path / "a.log") as a,
        spawn_server(env_b, log=tmp_path / "b.log") as b,
    ):
        started = httpx.post(f"{a.url}/api/tasks", json={"request": request}, headers=alice)
        assert started.status_code == 202, started.text
        task_id = started.json()["task_id"]
        assert _task_when_idle(a.url, alice, task_id)["status"] == "awaiting_plan"
        on_b = _task_when_idle(b.url, alice, task_id)
        assert on_b["status"] == "awaiting_plan" and on_b["pending"]["options"][0] == "approve"
        assert httpx.get(f"{b.url}/api/tasks/{task_id}", headers=bob).status_code == 404
        approve = {"action": "approve"}
        refused = httpx.post(f"{b.url}/api/tasks/{task_id}/decision", json=approve, headers=bob)
        assert refused.status_code == 404
        resumed = httpx.post(f"{b.url}/api/tasks/{task_id}/decision", json=approve, headers=alice)
        assert resumed.status_code == 202, resumed.text
        after = _task_when_idle(b.url, alice, task_id)
        assert after["status"] == "awaiting_step", after["status"]
        assert after["pending"]["step"]["outputs"][0]["row_count"] > 0
        assert _task_when_idle(a.url, alice, task_id)["status"] == "awaiting_step"  # A sees it


def test_the_rate_limit_counts_per_process(pg_url, demo_db, tmp_path):
    """Decision 168: each process keeps its own token buckets, so behind N processes a token
    gets N times `--rate-limit`: the limit is set per process (docs/serve.md)."""
    env_a, env_b = _envs(pg_url, demo_db, tmp_path)
    alice = _token(env_a, "alice")
    limits = ("--rate-limit", "6", "--burst", "3")
    with (
        spawn_server(env_a, *limits, log=tmp_path / "a.log") as a,
        spawn_server(env_b, *limits, log=tmp_path / "b.log") as b,
    ):
        codes_a = [httpx.get(f"{a.url}/api/threads", headers=alice).status_code for _ in range(4)]
        assert codes_a[:3] == [200, 200, 200] and codes_a[3] == 429
        limited = httpx.get(f"{a.url}/api/threads", headers=alice)
        assert limited.status_code == 429 and int(limited.headers["Retry-After"]) >= 1
        codes_b = [httpx.get(f"{b.url}/api/threads", headers=alice).status_code for _ in range(4)]
        assert codes_b[:3] == [200, 200, 200] and codes_b[3] == 429  # B's own bucket
