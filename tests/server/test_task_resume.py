"""Tasks survive the server: a real `vitrina serve` is killed with SIGKILL at every step
boundary of a task over HTTP, not by timing but exactly there, and each next server resumes
the task from its checkpoint as its owner; the task completes with each step's result once,
no committed step run again, the API says the run was cut off and resumed, and the CLI
refuses to continue another token's task.

How the kill lands exactly: the spawned servers get `tests/server/pause_at` on their
PYTHONPATH, a test-only sitecustomize that wraps LangGraph from outside (no hook in the
product) and pauses a task's run at a named boundary (see its docstring), writing a marker.
The test waits for the marker and kills the server there. Two tasks of two owners run
through one chain of servers, so that each restart covers two boundaries (a server start is
the slow part): task A is killed after each step committed (its history record written),
task B inside each step after the step's work, either before anything of it is saved (the
step must run again) or after its writes are saved and before its checkpoint (it must not).
Nine kills in a row also prove that a task resumed after a crash survives the next one,
even one inside the resumed run before it wrote a checkpoint (B's step 1: the dead server's
claim on that checkpoint is taken over, `vitrina.task.claims`).
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest

from vitrina.config import load_settings
from vitrina.server.spawn import ServerProcess, spawn_server
from vitrina.server.store import Store
from vitrina.server.tokens import create_token

PAUSE_AT = Path(__file__).parent / "pause_at"  # the test-only sitecustomize
REQUEST = (
    "сравни открытия кошельков за 3 квартал 2026 с прошлым годом по регионам, найди где "
    "падение, доли и сделай прогноз на 3 месяца"
)
STEPS = 8  # data, last year, compare, decline, shares, series, forecast, files
# one server per row, killed when both tasks are paused at their boundaries. Task A: before
# step 1 (the plan committed), then after each step committed. Task B: inside each step, after
# its work: before anything of it is saved (`work`, the step runs again) or after its writes
# are saved and before its checkpoint (`saved`, it must not); step 1 is cut twice, the second
# time in the run resumed after the first, before that run wrote a checkpoint of its own
CHAIN = [
    ("begin:1", "work:1"),
    ("step:1", "saved:1"),
    ("step:2", "saved:2"),
    ("step:3", "work:3"),
    ("step:4", "saved:4"),
    ("step:5", "work:5"),
    ("step:6", "saved:6"),
    ("step:7", "work:7"),
    ("step:8", "saved:8"),
]
RUN_TWICE = {1, 3, 5, 7}  # B's steps whose `execute` is cut off before anything is saved
SERVE_ARGS = ("--rate-limit", "0")
POLL_S = 0.05
WAIT_S = 240.0  # one boundary (or the last run) is reached within this, else the test fails


def _owner_id(token: str) -> str:
    """The token's id (`vt_ID_SECRET`): the owner a task of this token records."""
    return token.split("_", 2)[1]


def _paused(pause: Path, owner: str, server: ServerProcess) -> dict[str, Any]:
    """Where the owner's task paused in this server (its marker), waiting for it."""
    marker = pause / f"paused-{owner}"
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if marker.exists():
            return json.loads(marker.read_text())
        if server.process.poll() is not None:
            raise AssertionError(f"the server died: {server.log.read_text()[-2000:]}")
        time.sleep(POLL_S)
    raise AssertionError(f"no pause of {owner}'s task: {server.log.read_text()[-2000:]}")


def _finished(http: httpx.Client, task_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT_S
    task: dict[str, Any] = {}
    while time.monotonic() < deadline:
        task = http.get(f"/api/tasks/{task_id}").json()
        if task["status"] in ("done", "failed", "stopped") and not task["running"]:
            return task
        time.sleep(POLL_S)
    raise AssertionError(f"task {task_id} never finished: {task.get('status')}")


def _kill_at_boundaries(
    env: dict[str, str], tokens: list[str], pause: Path, tmp_path: Path
) -> list[str]:
    """Start a task per token, then kill one server per row of CHAIN at its boundaries;
    the task ids."""
    owners = [_owner_id(t) for t in tokens]
    ids: list[str] = []
    for n, boundaries in enumerate(CHAIN):
        spec = json.dumps(dict(zip(owners, boundaries, strict=True)))
        log = tmp_path / f"serve{n}.log"
        with spawn_server(
            {**env, "PAUSE_AT": spec}, *SERVE_ARGS, log=log, ready_timeout_s=180
        ) as server:
            if n:  # every restart resumes both tasks (B's second crash in step 1 included)
                assert "resumed 2 interrupted task(s)" in log.read_text(), log.read_text()[-2000:]
            if not ids:
                for token in tokens:
                    with httpx.Client(base_url=server.url, timeout=60) as http:
                        body = {"request": REQUEST, "mode": "auto"}
                        auth = {"Authorization": f"Bearer {token}"}
                        ids.append(
                            http.post("/api/tasks", json=body, headers=auth).json()["task_id"]
                        )
            for token, owner, task_id, boundary in zip(
                tokens, owners, ids, boundaries, strict=True
            ):
                where = _paused(pause, owner, server)
                assert where == {"boundary": boundary, "pid": server.pid, "task": task_id}
                # paused where we think: the steps committed so far are in the API, no more
                kind, k = boundary.split(":")
                auth = {"Authorization": f"Bearer {token}"}
                task = httpx.get(f"{server.url}/api/tasks/{task_id}", headers=auth).json()
                assert task["status"] == "running" and task["running"], (boundary, task["status"])
                committed = int(k) if kind == "step" else int(k) - 1  # begin, work, saved
                assert [h["n"] for h in task["history"]] == list(range(1, committed + 1)), boundary
            server.process.send_signal(signal.SIGKILL)
            server.process.wait(timeout=10)
        for owner in owners:
            (pause / f"paused-{owner}").unlink()
    return ids


def test_serve_killed_at_every_step_boundary_resumes_each_step_once(
    demo_db: Path, tmp_path: Path, monkeypatch, capsys
) -> None:
    env = {"VITRINA_HOME": str(tmp_path / "home"), "VITRINA_DB_URL": f"duckdb:///{demo_db}"}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    store = Store.from_settings(load_settings())  # the state the servers will use
    tokens = [create_token(store, f"tasks-{n}", "analyst") for n in range(3)]  # A, B, a stranger
    store.close()
    pause = tmp_path / "pause"
    pause.mkdir()
    paths = [str(PAUSE_AT), *filter(None, [os.environ.get("PYTHONPATH")])]
    paused_env = {**env, "PAUSE_AT_DIR": str(pause), "PYTHONPATH": os.pathsep.join(paths)}
    ids = _kill_at_boundaries(paused_env, tokens[:2], pause, tmp_path)

    last = tmp_path / "serve-last.log"
    with spawn_server(paused_env, *SERVE_ARGS, log=last, ready_timeout_s=180) as server:
        for token, task_id in zip(tokens[:2], ids, strict=True):
            auth = {"Authorization": f"Bearer {token}"}
            with httpx.Client(base_url=server.url, headers=auth, timeout=60) as http:
                task = _finished(http, task_id)
                assert task["status"] == "done", task.get("summary")
                assert task["notice"] and "перезапущен" in task["notice"]  # the API says so
                steps = [h["n"] for h in task["history"]]
                assert steps == list(range(1, STEPS + 1)), steps  # each step's result once
                assert [s["status"] for s in task["plan"]] == ["done"] * STEPS
                assert f"Выполнено шагов: {STEPS} из {STEPS}" in task["summary"]
                # the owner is kept: the task is its owner's and nobody else's
                for other in tokens:
                    if other != token:
                        stranger = {"Authorization": f"Bearer {other}"}
                        got = http.get(f"/api/tasks/{task_id}", headers=stranger)
                        assert got.status_code == 404
    assert "resumed 2 interrupted task(s)" in last.read_text()

    # how often each step's nodes ran, over all the servers: once, but B's steps whose work
    # was cut off before anything of it was saved ran `execute` twice; a step whose writes
    # were saved (B's `saved` steps, step 1 after its re-run) or that had committed (A's)
    # never runs again
    ran = Counter(
        (line["task"], line["node"], line["step"])
        for line in map(json.loads, (pause / "nodes.jsonl").read_text().splitlines())
    )
    for task_id, rerun in zip(ids, [set(), RUN_TWICE], strict=True):
        for k in range(1, STEPS + 1):
            assert ran[(task_id, "execute", k)] == (2 if k in rerun else 1), (task_id, k)
            assert ran[(task_id, "evaluate", k)] == ran[(task_id, "compress", k)] == 1, k
        assert ran[(task_id, "finalize", None)] == 1

    # the CLI acts as the local user: another token's task is refused, not resumed
    from vitrina.cli import main

    with pytest.raises(SystemExit) as refused:
        main(["task", "", "--task", ids[0], "--no-llm"])
    assert refused.value.code == 2
    assert "принадлежит другому владельцу" in capsys.readouterr().err
