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

REQUEST = "Сумма платежей по регионам за 3 квартал 2026 с прошлым годом"


class ProcessDied(BaseException):
    """What the run sees of a SIGKILL: nothing after this point is written."""


def test_a_crashed_run_is_shown_and_resumed_once(make_task, make_service, tmp_path: Path):
    state = tmp_path / "tasks.sqlite"
    asker = make_service(write_files=True)
    calls: list[str] = []

    def dying_run_plan(plan, **kwargs):
        """Steps 1 and 2 are plans run through ask (the request's, then a year back)."""
        calls.append(plan.period.start.isoformat())
        if len(calls) == 2:  # inside step 2, before it commits
            raise ProcessDied
        return asker.run_plan(plan, **kwargs)

    crashed = make_task(state_path=state, run_plan=dying_run_plan)
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

        assert router.resume_interrupted() == [task_id]
        assert make_task(state_path=state).claim_resume(task_id) is False  # one claim each
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
