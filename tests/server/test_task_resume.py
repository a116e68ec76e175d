"""Tasks survive the server: a real `vitrina serve` killed with SIGKILL in the middle of a
task over HTTP, then started again, resumes the task from its checkpoint as its owner; the
task completes with each step's result once, the API says the run was cut off and resumed,
and the CLI refuses to continue another token's task."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import httpx
import pytest

from vitrina.server.spawn import cli_tokens, spawn_server

REQUEST = (
    "сравни открытия кошельков за 3 квартал 2026 с прошлым годом по регионам, найди где "
    "падение, доли и сделай прогноз на 3 месяца"
)
STEPS = 8  # data, last year, compare, decline, shares, series, forecast, files
POLL_S = 0.05
RUN_LIMIT_S = 300.0


def _poll_until(http: httpx.Client, task_id: str, done, limit_s: float = RUN_LIMIT_S) -> dict:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        task = http.get(f"/api/tasks/{task_id}").json()
        if done(task):
            return task
        time.sleep(POLL_S)
    raise AssertionError(f"task {task_id} never got there: {task['status']}")


@pytest.mark.parametrize("finished", [1, 4])  # kill -9 after this many steps finished
def test_serve_killed_mid_task_resumes_it_once(
    demo_db: Path, tmp_path: Path, monkeypatch, capsys, finished: int
) -> None:
    env = {"VITRINA_HOME": str(tmp_path / "home"), "VITRINA_DB_URL": f"duckdb:///{demo_db}"}
    owner, other = cli_tokens(env, "tasks", 2, role="analyst")
    auth = {"Authorization": f"Bearer {owner}"}
    serve_args = ("--rate-limit", "0")

    first = spawn_server(env, *serve_args, log=tmp_path / "serve1.log", ready_timeout_s=180)
    with first as one, httpx.Client(base_url=one.url, headers=auth, timeout=60) as http:
        body = {"request": REQUEST, "mode": "auto"}
        task_id = http.post("/api/tasks", json=body).json()["task_id"]
        # kill -9 once a step has finished and the run is inside a later one
        seen = _poll_until(
            http,
            task_id,
            lambda t: t.get("status") == "done" or len(t.get("history") or []) >= finished,
        )
        one.process.send_signal(signal.SIGKILL)
        one.process.wait(timeout=10)
    assert seen["status"] == "running", f"the task ended before the kill: {seen['status']}"
    assert len(seen["history"]) < STEPS

    second = spawn_server(env, *serve_args, log=tmp_path / "serve2.log", ready_timeout_s=180)
    with second as two, httpx.Client(base_url=two.url, headers=auth, timeout=60) as http:
        task = _poll_until(http, task_id, lambda t: t["status"] in ("done", "failed"))
        assert task["status"] == "done", task.get("summary")
        assert task["notice"] and "перезапущен" in task["notice"]  # the API says so
        steps = [h["n"] for h in task["history"]]
        assert steps == list(range(1, STEPS + 1)), steps  # each step's result once
        assert [s["status"] for s in task["plan"]] == ["done"] * STEPS
        assert f"Выполнено шагов: {STEPS} из {STEPS}" in task["summary"]
        # the owner is kept: the task is still its owner's and nobody else's
        stranger = {"Authorization": f"Bearer {other}"}
        assert http.get(f"/api/tasks/{task_id}", headers=stranger).status_code == 404
    assert "resumed 1 interrupted task(s)" in (tmp_path / "serve2.log").read_text()

    # the CLI acts as the local user: another token's task is refused, not resumed
    from vitrina.cli import main

    for key, value in env.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(SystemExit) as refused:
        main(["task", "", "--task", task_id, "--no-llm"])
    assert refused.value.code == 2
    assert "принадлежит другому владельцу" in capsys.readouterr().err
