"""The task page's HTTP API (a FastAPI router the web app mounts) and the page itself.

    POST /api/tasks                    {request, mode}             -> 202 {task_id}
    GET  /api/tasks/{id}                                           -> the task (plan, pending, summary, files)
    POST /api/tasks/{id}/decision      {action, steps?, comment?}  -> 202 (409: not possible now)
    GET  /api/tasks/{id}/events?after=N                            -> SSE: one event per node, then `idle`
    GET  /task, /task/static/{file}                                -> the page (HTML, JS, CSS)

Runs happen in a background pool; the event log feeds the live step output.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse, StreamingResponse
from pydantic import BaseModel, Field

from vitrina.task.runner import TaskRunner
from vitrina.task.service import InvalidDecision, TaskService

STATIC = Path(__file__).parent / "static"
PAGE_FILES = {"task.html": "text/html", "task.js": "text/javascript", "task.css": "text/css"}
STREAM_MAX_S = 600.0  # one SSE connection's longest life; the page reconnects with ?after=
POLL_S = 1.0


class StartTask(BaseModel):
    request: str = Field(min_length=3, max_length=4000)
    mode: Literal["semi", "auto"] = "semi"


class Decision(BaseModel):
    action: Literal["approve", "edit", "replan", "redo", "skip", "stop"]
    comment: str | None = Field(None, max_length=2000)
    steps: list[str | dict[str, Any]] | None = Field(None, max_length=50)


def _sse(events: Iterator[tuple[int, dict[str, Any]]]) -> Iterator[str]:
    for index, event in events:
        yield f"id: {index}\nevent: {event.get('node', 'message')}\ndata: {json.dumps(event, ensure_ascii=False, default=str)}\n\n"


def build_router(service: TaskService, *, dependencies: Sequence[Any] = (), workers: int = 2) -> APIRouter:
    """The router over one TaskService; `dependencies` (e.g. the app's auth) guard the API routes."""
    runner = TaskRunner(service, workers=workers)
    router = APIRouter()
    api = APIRouter(prefix="/api/tasks", tags=["task"], dependencies=list(dependencies))
    router.state = runner  # type: ignore[attr-defined]  # the app closes it on shutdown

    def view_or_404(task_id: str) -> dict[str, Any]:
        try:
            view = service.view(task_id)
        except KeyError:
            raise HTTPException(404, f"no task {task_id}") from None
        data = view.model_dump(mode="json")
        data["running"] = runner.busy(task_id)
        if data["running"] and data["status"] in ("awaiting_plan", "awaiting_step"):
            data["status"], data["pending"] = "running", None  # the answer is being processed
        return data

    @api.post("", status_code=202)
    def start_task(body: StartTask) -> dict[str, str]:
        task_id = uuid.uuid4().hex[:12]
        runner.submit(task_id, lambda on_event: service.start(body.request, mode=body.mode, task_id=task_id,
                                                               on_event=on_event))
        return {"task_id": task_id}

    @api.get("/{task_id}")
    def get_task(task_id: str) -> dict[str, Any]:
        return view_or_404(task_id)

    @api.post("/{task_id}/decision", status_code=202)
    def decide(task_id: str, body: Decision) -> dict[str, str]:
        view_or_404(task_id)
        if runner.busy(task_id):
            raise HTTPException(409, "the task is running; wait for it to ask")
        decision = body.model_dump(exclude_none=True)
        try:
            service.check_decision(task_id, decision)
        except InvalidDecision as exc:
            raise HTTPException(409, str(exc)) from None
        runner.submit(task_id, lambda on_event: service.decide(task_id, decision, on_event=on_event))
        return {"task_id": task_id}

    @api.get("/{task_id}/events")
    def events(task_id: str, after: int = 0) -> StreamingResponse:
        def produce() -> Iterator[tuple[int, dict[str, Any]]]:
            deadline = time.monotonic() + STREAM_MAX_S
            cursor = max(0, after)
            while time.monotonic() < deadline:
                batch, nxt, idle = runner.events(task_id, cursor, POLL_S)
                for i, event in enumerate(batch):
                    yield cursor + i, event
                cursor = nxt
                if idle and not batch:
                    return
                if idle and batch and batch[-1].get("node") in ("idle", "error"):
                    return

        return StreamingResponse(_sse(produce()), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    @router.get("/task", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "task.html", media_type="text/html")

    @router.get("/task/static/{name}", include_in_schema=False)
    def asset(name: str) -> FileResponse:
        if name not in PAGE_FILES:
            raise HTTPException(404, "not found")
        return FileResponse(STATIC / name, media_type=PAGE_FILES[name])

    router.include_router(api)
    return router
