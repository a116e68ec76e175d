"""The task router on a small app: start, SSE events, plan and step decisions, the page."""

from __future__ import annotations

import json

from fastapi import FastAPI
from fastapi.testclient import TestClient

from vitrina.task.api import build_router

REQUEST = "Сумма платежей по регионам за 3 квартал 2026, доли"


def events(client: TestClient, task_id: str, after: int = 0) -> list[dict]:
    with client.stream("GET", f"/api/tasks/{task_id}/events?after={after}") as reply:
        assert reply.headers["content-type"].startswith("text/event-stream")
        body = "".join(reply.iter_text())
    return [json.loads(line[6:]) for line in body.splitlines() if line.startswith("data: ")]


def test_router_drives_a_task(make_task):
    service = make_task()
    app = FastAPI()
    router = build_router(service)
    app.include_router(router)
    with TestClient(app) as client:
        page = client.get("/task")
        assert page.status_code == 200 and "task.js" in page.text
        assert client.get("/task/static/task.js").status_code == 200
        assert client.get("/task/static/../api.py").status_code == 404
        task_id = client.post("/api/tasks", json={"request": REQUEST}).json()["task_id"]
        seen = events(client, task_id)
        assert [e["node"] for e in seen][-1] == "idle" and seen[0]["node"] == "planner"
        task = client.get(f"/api/tasks/{task_id}").json()
        assert task["status"] == "awaiting_plan" and task["pending"]["options"][0] == "approve"
        bad = client.post(f"/api/tasks/{task_id}/decision", json={"action": "redo"})
        assert bad.status_code == 409
        assert (
            client.post(f"/api/tasks/{task_id}/decision", json={"action": "approve"}).status_code
            == 202
        )
        seen = events(client, task_id, after=len(seen))
        assert any(e["node"] == "execute" and e["step"]["n"] == 1 for e in seen)
        task = client.get(f"/api/tasks/{task_id}").json()
        assert (
            task["status"] == "awaiting_step"
            and task["pending"]["step"]["outputs"][0]["row_count"] == 12
        )
        for _ in range(5):
            if task["pending"] is None:
                break
            client.post(f"/api/tasks/{task_id}/decision", json={"action": "skip"})
            events(client, task_id)
            task = client.get(f"/api/tasks/{task_id}").json()
        # every step skipped: no data step ran, so the task is failed with the reason, never done
        assert task["status"] == "failed" and "ни один шаг с данными" in task["summary"]
        assert client.get("/api/tasks/nope").status_code == 404
    router.state.close()


def test_a_task_asked_for_before_its_first_checkpoint_is_not_missing(make_task):
    """The page asks for a task's events right after the POST; a task whose first checkpoint
    is not written yet (held back here) is waited for, not answered 404."""
    import threading

    service = make_task()
    release = threading.Event()
    start = service.start

    def held_start(*args, **kwargs):
        release.wait(timeout=30)
        return start(*args, **kwargs)

    service.start = held_start
    app = FastAPI()
    router = build_router(service)
    app.include_router(router)
    with TestClient(app) as client:
        task_id = client.post("/api/tasks", json={"request": REQUEST}).json()["task_id"]
        threading.Timer(0.5, release.set).start()  # released while the GET below waits
        assert client.get(f"/api/tasks/{task_id}").status_code == 200
        assert [e["node"] for e in events(client, task_id)][-1] == "idle"
        assert client.get("/api/tasks/feedfeedfeed").status_code == 404  # never submitted
    router.state.close()
