"""Every object belongs to the token that created it: another token gets 404 for tasks, their
event streams and decisions, experiments (by id, by prefix, by `last`), matrices, dialogs and
run files; roles (viewer, analyst, admin) gate what a token may do. The real app, real HTTP."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vitrina.eval.records import CaseRecord, RunRecord
from vitrina.eval.store import EvalStore
from vitrina.server.store import Store
from vitrina.server.tokens import verify_token

from .helpers import ask, new_thread, new_token, sse_events

REQUEST = "Сумма платежей по регионам за 3 квартал 2026, доли"
SUITES = Path(__file__).resolve().parents[2] / "suites"


def _wait_idle(client, headers, task_id: str) -> dict:
    for _ in range(200):  # bounded: a task under the rules planner plans in well under a second
        task = client.get(f"/api/tasks/{task_id}", headers=headers).json()
        if not task["running"] and task["status"] != "running":
            return task
        time.sleep(0.05)
    raise AssertionError(f"task {task_id} did not stop running")


def test_tasks_belong_to_their_token(client) -> None:
    alice, bob = new_token(client, "alice"), new_token(client, "bob")
    started = client.post("/api/tasks", json={"request": REQUEST}, headers=alice)
    assert started.status_code == 202, started.text
    task_id = started.json()["task_id"]
    task = _wait_idle(client, alice, task_id)
    assert task["status"] == "awaiting_plan" and "owner" not in task

    assert client.get(f"/api/tasks/{task_id}", headers=bob).status_code == 404
    assert client.get(f"/api/tasks/{task_id}/events", headers=bob).status_code == 404
    for action in ("approve", "stop", "skip"):
        refused = client.post(
            f"/api/tasks/{task_id}/decision", json={"action": action}, headers=bob
        )
        assert refused.status_code == 404, action
    assert client.get(f"/api/tasks/{task_id[:3]}", headers=bob).status_code == 404
    assert client.get(f"/api/tasks/{'x' * 500}", headers=bob).status_code == 404
    assert _wait_idle(client, alice, task_id)["status"] == "awaiting_plan"  # bob changed nothing

    events = client.get(f"/api/tasks/{task_id}/events", headers=alice)
    assert events.status_code == 200 and sse_events(events.text)[-1]["node"] == "idle"
    stop = client.post(f"/api/tasks/{task_id}/decision", json={"action": "stop"}, headers=alice)
    assert stop.status_code == 202
    assert _wait_idle(client, alice, task_id)["status"] == "stopped"


def test_roles_gate_the_api(client, monkeypatch) -> None:
    monkeypatch.setenv("VITRINA_EVAL_SUITES_DIR", str(SUITES))
    viewer, analyst = new_token(client, "v", "viewer"), new_token(client, "a", "analyst")
    thread_id = new_thread(client, viewer)
    assert ask(client, viewer, thread_id, "Сколько платежей в мае 2025?")[-1]["type"] == "result"
    forbidden = client.post("/api/tasks", json={"request": REQUEST}, headers=viewer)
    assert forbidden.status_code == 403 and forbidden.json()["error"]["code"] == "forbidden"
    assert "analyst" in forbidden.json()["error"]["message"]
    body = {"suite": "demo", "cases": ["ru_revenue_may_2025"], "config": {"name": "rules"}}
    assert client.post("/api/experiments", json=body, headers=viewer).status_code == 403
    assert client.post("/api/experiments", json=body, headers=analyst).status_code == 403
    assert client.get("/api/experiments/last", headers=analyst).status_code == 403


def test_experiments_belong_to_their_token(client, monkeypatch) -> None:
    monkeypatch.setenv("VITRINA_EVAL_SUITES_DIR", str(SUITES))
    alice, bob = new_token(client, "alice", "admin"), new_token(client, "bob", "admin")
    body = {"suite": "demo", "cases": ["ru_revenue_may_2025"], "config": {"name": "rules"}}
    run = client.post("/api/experiments", json=body, headers=alice).json()
    matrix_body = {
        "suite": "demo",
        "cases": ["ru_revenue_may_2025"],
        "matrix": {"configs": [{"name": "r"}]},
    }
    matrix = client.post("/api/experiments", json=matrix_body, headers=alice).json()
    for ref in (run["id"], matrix["id"], matrix["runs"][0]["id"]):
        assert client.get(f"/api/experiments/{ref}", headers=alice).status_code == 200
        assert client.get(f"/api/experiments/{ref}", headers=bob).status_code == 404
    for ref in (run["id"][:3], run["id"][:-1], "last", "%", "_" * 10):
        assert client.get(f"/api/experiments/{ref}", headers=alice).status_code == 404, ref
        assert client.get(f"/api/experiments/{ref}", headers=bob).status_code == 404, ref


def test_review_items_are_per_owner(tmp_path: Path) -> None:
    store = EvalStore(tmp_path / "state.sqlite")
    case = CaseRecord.model_validate(
        {
            "case_id": "c1",
            "question": "q",
            "verdict": "wrong",
            "in_review": True,
            "kind": "sql",
            "expect": "answer",
            "fingerprint": "f",
        }
    )
    for owner, run_id in (("alice", "r-alice"), ("bob", "r-bob")):
        store.save_run(
            RunRecord(
                id=run_id, suite="s", config_name="c", owner=owner, started_at="now", cases=[case]
            )
        )
    assert [i.run_id for i in store.open_reviews(owner="alice")] == ["r-alice"]
    with pytest.raises(Exception, match="no run"):
        store.decide("r-alice", "c1", "right", "looks fine", owner="bob")
    with pytest.raises(Exception, match="no run"):
        store.load_run("r-", owner="alice")  # a prefix finds nothing through the API path
    assert len(store.open_reviews()) == 2  # the CLI (local operator) sees every run
    store.close()


def test_cli_token_roles(client) -> None:
    from vitrina.cli import app

    runner = CliRunner()
    made = runner.invoke(app, ["token", "create", "reader", "--role", "viewer"])
    assert made.exit_code == 0, made.output
    record = verify_token(
        Store.from_settings(client.app.state.vitrina.settings), made.output.split()[-1]
    )
    assert record is not None and record.role == "viewer"
    assert "viewer" in runner.invoke(app, ["token", "list"]).output
    bad = runner.invoke(app, ["token", "create", "x", "--role", "root"])
    assert bad.exit_code == 2 and "viewer, analyst, admin" in bad.output


def test_old_state_database_gets_the_role_column(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute(
            "CREATE TABLE vitrina_tokens (id VARCHAR(32) PRIMARY KEY, name VARCHAR(200) NOT NULL, "
            "secret_sha256 VARCHAR(64) NOT NULL, created_at FLOAT NOT NULL, revoked_at FLOAT)"
        )
        conn.execute("INSERT INTO vitrina_tokens VALUES ('abc', 'old', 'x', 0, NULL)")
    store = Store(f"sqlite:///{path}")
    record = store.token("abc")
    store.close()
    assert record is not None and record.role == "analyst"
