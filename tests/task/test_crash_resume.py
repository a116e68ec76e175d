"""A run cut off mid-step (the process died: here a BaseException nothing catches, as a
SIGKILL leaves the checkpoint) is shown as crashed by the API, resumed from its checkpoint
by `resume_interrupted` (what `vitrina serve` calls when it starts), claimed once per
checkpoint, and finished with each step's result once."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from vitrina.task.api import build_router

from .conftest import ProcessDied, dying_in_step_2

REQUEST = "Сумма платежей по регионам за 3 квартал 2026 с прошлым годом"


def test_a_crashed_run_is_shown_and_resumed_once(make_task, make_service, tmp_path: Path):
    state = tmp_path / "tasks.sqlite"
    asker = make_service(write_files=True)
    crashed = make_task(state_path=state, **dying_in_step_2(asker))
    with pytest.raises(ProcessDied):
        crashed.run(REQUEST, mode="auto")
    task_id = crashed._task_ids(10)[0]
    assert crashed.view(task_id).status == "running"

    restarted = make_task(state_path=state)  # a new process over the same checkpoints
    router = build_router(restarted)
    app = FastAPI()
    app.include_router(router)
    with TestClient(app) as client:
        shown = client.get(f"/api/tasks/{task_id}").json()
        assert shown["status"] == "running" and not shown["running"]
        assert "прервано сбоем сервера на шаге 2" in shown["notice"]

        interrupted_at = restarted.checkpoint_of(task_id)
        assert router.resume_interrupted() == [task_id]
        # one claim per checkpoint: another process cannot claim the one just resumed (the
        # resumed run may already have moved the task to a later checkpoint by now)
        another = make_task(state_path=state)
        assert another.claim_resume(task_id, checkpoint_id=interrupted_at) is False
        deadline = time.monotonic() + 120
        task = shown
        while time.monotonic() < deadline:
            task = client.get(f"/api/tasks/{task_id}").json()
            if task["status"] in ("done", "failed") and not task["running"]:
                break
            time.sleep(0.1)
        assert task["status"] == "done", task.get("summary")
        assert "шаг 2 прерван сбоем" in task["notice"] and "перезапущен" in task["notice"]
        assert [h["n"] for h in task["history"]] == list(range(1, len(task["plan"]) + 1))
        assert router.resume_interrupted() == []  # nothing left to resume
    router.state.close()
