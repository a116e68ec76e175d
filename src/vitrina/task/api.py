"""The task page's HTTP API (a FastAPI router the web app mounts) and the page itself.

    POST /api/tasks                    {request, mode}             -> 202 {task_id}
    GET  /api/tasks/{id}                                           -> the task (plan, pending, summary, files)
    POST /api/tasks/{id}/decision      {action, steps?, comment?}  -> 202 (409: not possible now)
    GET  /api/tasks/{id}/events?after=N                            -> SSE: one event per node, then `idle`
    GET  /api/tasks/{id}/files/{n}                                 -> the task's n-th file, as a download
    GET  /task, /task/static/{file}                                -> the page (HTML, JS, CSS)

Runs happen in a background pool; the event log feeds the live step output. Every task
belongs to the owner that started it (the `owner` dependency: the app's token id); to
anyone else it does not exist (404). Event streams are async (sse-starlette: no thread is
held per open stream) and capped per owner (`streams`). `stop` is always accepted: a
running task stops at its next node, a task wedged without a pending approval is marked
stopped at once.
"""  # noqa: E501

from __future__ import annotations

import asyncio
import functools
import json
import time
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from fastapi import APIRouter, Depends, HTTPException
from fastapi.responses import FileResponse, JSONResponse
from markdown_it import MarkdownIt
from pydantic import BaseModel, Field
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.background import BackgroundTask

from vitrina.task.display import readable
from vitrina.task.messages import text
from vitrina.task.runner import TaskRunner
from vitrina.task.service import LOCAL_OWNER, InvalidDecision, TaskService, TaskView
from vitrina.task.state import Mode

STATIC = Path(__file__).parent / "static"
PAGE_FILES = {"task.html": "text/html", "task.js": "text/javascript", "task.css": "text/css"}
MAX_STARTING = 1000  # tasks remembered between submit and their first checkpoint
STREAM_MAX_S = 600.0  # one SSE connection's longest life; the page reconnects with ?after=
POLL_S = 0.25  # an open stream looks for new events this often (a cheap lookup, no thread held)
PING_S = 15.0  # a comment line keeps proxies from closing a quiet stream
# The summary as HTML for the page: CommonMark and tables, raw HTML escaped, unsafe links dropped.
MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table")


class StartTask(BaseModel):
    request: str = Field(min_length=3, max_length=4000)
    mode: Mode = "semi"


class Decision(BaseModel):
    action: Literal["approve", "edit", "replan", "clarify", "redo", "skip", "stop"]
    comment: str | None = Field(None, max_length=2000)
    choice: str | None = Field(None, max_length=200)  # clarify: the chosen option's id
    steps: list[str | dict[str, Any]] | None = Field(None, max_length=50)


def _local_owner() -> str:
    return LOCAL_OWNER


def _sse(index: int, event: dict[str, Any]) -> ServerSentEvent:
    return ServerSentEvent(
        data=json.dumps(event, ensure_ascii=False, default=str),
        id=str(index),
        event=str(event.get("node", "message")),
        sep="\n",
    )


def summary_html(summary: str | None, lang: str) -> str | None:
    """The summary rendered for a browser, without its "Files" section of server paths
    (the page lists the same files as download links)."""
    if not summary:
        return None
    heading = f"## {text('summary_files', lang if lang in ('ru', 'en') else 'ru')}"
    body = summary.split(f"\n{heading}\n", 1)[0]
    return str(MARKDOWN.render(body))


def downloads(task_id: str, files: list[str], out_dir: str | None) -> list[dict[str, str]]:
    """The task's files as API links: its n-th file by index, named relative to its folder."""
    base = Path(out_dir) if out_dir else None
    links = []
    for n, name in enumerate(files):
        path = Path(name)
        shown = str(path.relative_to(base)) if base and path.is_relative_to(base) else path.name
        links.append({"name": shown, "url": f"/api/tasks/{task_id}/files/{n}"})
    return links


def _resume(
    service: TaskService,
    task_id: str,
    event: dict[str, Any],
    on_event: Callable[[dict[str, Any]], None],
) -> TaskView:
    """A run that continues a crashed one: says so first, then resumes from the checkpoint."""
    on_event(event)
    return service.resume(task_id, on_event=on_event)


def _resumed_text(lang: str, step: int | None) -> str:
    if step is None:
        return text("run_resumed_between", lang)
    return text("run_resumed", lang, n=step)


def _step_in_flight(view: TaskView) -> int | None:
    """The step a run was in when it stopped (marked in progress and not finished)."""
    return next((s.n for s in view.plan if s.status == "in_progress"), None)


class _Tasks:
    """The router's state and its steps: the service, the run pool, the tasks submitted but
    not checkpointed yet and the tasks resumed after a restart. Each route is one call here."""

    def __init__(
        self,
        service: TaskService,
        runner: TaskRunner,
        streams: Callable[[str], Callable[[], None]] | None,
    ) -> None:
        self.service = service
        self.runner = runner
        self.streams = streams
        # tasks submitted whose first checkpoint is not written yet (the pool has not started
        # them): task id -> the view they have until then, so a stream opened at once finds them
        self.starting: dict[str, TaskView] = {}
        self.resumed: dict[
            str, int | None
        ] = {}  # tasks resumed after a restart -> the step cut off

    def _owned_view(self, task_id: str, who: str) -> TaskView | None:
        """The owner's checkpointed task, or None (unknown, too long an id, another owner's)."""
        try:
            return self.service.view(task_id, owner=who) if len(task_id) <= 64 else None
        except KeyError:
            return None

    def _find(self, task_id: str, who: str) -> TaskView:
        view = self._owned_view(task_id, who)
        if view is None:
            early = self.starting.get(task_id)
            view = early if early is not None and early.owner == who else None
        else:
            self.starting.pop(task_id, None)
        if view is None:
            raise HTTPException(404, f"no task {task_id[:64]}")
        return view

    def view_or_404(self, task_id: str, who: str) -> dict[str, Any]:
        view = self._find(task_id, who)
        data = view.model_dump(mode="json", exclude={"owner"})
        data["running"] = self.runner.busy(task_id)
        data["summary_html"] = summary_html(data.get("summary"), data.get("lang") or "ru")
        data["downloads"] = downloads(task_id, data.get("files") or [], data.get("out_dir"))
        data.pop("out_dir", None)  # a server path: the page gets links instead
        readable(data, self.service.context.catalog)  # questions in words, previews formatted
        if data["running"] and data["status"] in ("awaiting_plan", "awaiting_step"):
            data["status"], data["pending"] = "running", None  # the answer is being processed
        data["notice"] = self.crash_notice(view, data["running"], self.resumed.get(task_id))
        return data

    def crash_notice(self, view: TaskView, running: bool, resumed_step: int | None) -> str | None:
        """What the page shows about a crash: a run nobody is running (the server died
        mid-step), or a run resumed after a restart."""
        if view.status == "running" and not running:
            n = _step_in_flight(view)
            key = "run_crashed" if n is not None else "run_crashed_between"
            return text(key, view.lang, n=n, task_id=view.task_id)
        if view.task_id in self.resumed:
            return _resumed_text(view.lang, resumed_step)
        return None

    def resume_interrupted(self) -> list[str]:
        """Resume every task a crash left running, from its checkpoint, as its owner (the
        owner is in the checkpoint); called once when the server starts."""
        out = []
        for task_id in self.service.interrupted():
            if not self.service.claim_resume(task_id):
                continue  # another server process took it
            view = self.service.view(task_id)
            step = _step_in_flight(view)
            self.resumed[task_id] = step
            message = _resumed_text(view.lang, step)
            event = {"node": "resumed", "step": step, "message": message}
            try:
                self.runner.submit(
                    task_id, functools.partial(_resume, self.service, task_id, event)
                )
            except BaseException:
                self.service.release_claim(task_id)  # its lock, on a PostgreSQL state
                raise
            out.append(task_id)
        return out

    def submit(self, request: str, mode: Mode = "semi", owner: str = LOCAL_OWNER) -> str:
        task_id = uuid.uuid4().hex[:12]
        starting = self.starting
        if len(starting) >= MAX_STARTING:  # bounded: entries of tasks never looked at again
            starting.pop(next(iter(starting)))
        starting[task_id] = TaskView(
            task_id=task_id, status="planning", owner=owner, request=request, mode=mode
        )
        service = self.service
        self.runner.submit(
            task_id,
            lambda on_event: service.start(
                request, mode=mode, task_id=task_id, on_event=on_event, owner=owner
            ),
        )
        return task_id

    def _stop(self, task_id: str, view: dict[str, Any]) -> dict[str, str]:
        """`stop` is always accepted: a running task stops at its next node, a task wedged
        without a pending approval is marked stopped at once."""
        if self.runner.request_stop(task_id):
            return {"task_id": task_id, "status": "stopping"}
        if view["status"] not in ("done", "stopped", "failed"):
            self.service.force_stop(
                task_id, reason="stopped by its owner while no approval was pending"
            )
        return {"task_id": task_id, "status": "stopped"}

    def decide(self, task_id: str, body: Decision, who: str) -> dict[str, str]:
        view = self.view_or_404(task_id, who)
        decision = body.model_dump(exclude_none=True)
        if body.action == "stop" and (self.runner.busy(task_id) or view["pending"] is None):
            return self._stop(task_id, view)
        if self.runner.busy(task_id):
            raise HTTPException(409, "the task is running; wait for it to ask (or send stop)")
        try:
            self.service.check_decision(task_id, decision)
        except InvalidDecision as exc:
            raise HTTPException(409, str(exc)) from None
        service = self.service
        self.runner.submit(
            task_id, lambda on_event: service.decide(task_id, decision, on_event=on_event)
        )
        return {"task_id": task_id}

    def file(self, task_id: str, n: int, who: str) -> FileResponse:
        view = self._owned_view(task_id, who)
        if view is None:
            raise HTTPException(404, f"no task {task_id[:64]}")
        files = sorted(set(view.files))
        if not 0 <= n < len(files):
            raise HTTPException(404, f"task {task_id} has no file {n}")
        path = Path(files[n])
        base = Path(view.out_dir).resolve() if view.out_dir else None
        if base is None or not path.resolve().is_relative_to(base) or not path.is_file():
            raise HTTPException(404, f"task {task_id} has no file {n}")
        return FileResponse(path, filename=path.name)

    async def produce(
        self, task_id: str, after: int, release: Callable[[], None]
    ) -> AsyncIterator[ServerSentEvent]:
        """The task's events from `after` on, until the run is idle or the stream's life ends."""
        try:
            deadline = time.monotonic() + STREAM_MAX_S
            cursor = max(0, after)
            while time.monotonic() < deadline:
                batch, nxt, idle = self.runner.events_now(task_id, cursor)
                for i, event in enumerate(batch):
                    yield _sse(cursor + i, event)
                cursor = nxt
                if idle and (not batch or batch[-1].get("node") in ("idle", "error")):
                    return
                if not batch:
                    await asyncio.sleep(POLL_S)
        finally:
            release()

    async def events(self, task_id: str, after: int, who: str) -> EventSourceResponse:
        from starlette.concurrency import run_in_threadpool

        await run_in_threadpool(self.view_or_404, task_id, who)
        streams = self.streams
        release = (
            streams(who) if streams is not None else (lambda: None)
        )  # raises when none is free
        return EventSourceResponse(
            self.produce(task_id, after, release),
            ping=int(PING_S),
            sep="\n",
            background=BackgroundTask(release),
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )


def _api_routes(api: APIRouter, tasks: _Tasks, Owner: Any) -> None:
    """The task API's routes, each a thin call into `tasks`."""

    @api.post("", status_code=202)
    def start_task(body: StartTask, who: str = Owner) -> dict[str, str]:
        return {"task_id": tasks.submit(body.request, body.mode, owner=who)}

    @api.get("/{task_id}")
    def get_task(task_id: str, who: str = Owner) -> dict[str, Any]:
        # encoded here, on the thread pool: FastAPI would encode a returned dict on the loop
        return JSONResponse(tasks.view_or_404(task_id, who))  # type: ignore[return-value]

    @api.post("/{task_id}/decision", status_code=202)
    def decide(task_id: str, body: Decision, who: str = Owner) -> dict[str, str]:
        return tasks.decide(task_id, body, who)

    @api.get("/{task_id}/files/{n}")
    def task_file(task_id: str, n: int, who: str = Owner) -> FileResponse:
        """One of the task's own files (by its index in the task's list, never a client path);
        another owner's task has no files (404)."""
        return tasks.file(task_id, n, who)

    @api.get("/{task_id}/events")
    async def events(task_id: str, after: int = 0, who: str = Owner) -> EventSourceResponse:
        return await tasks.events(task_id, after, who)


def _page_routes(router: APIRouter) -> None:
    """The task page and its static files."""

    @router.get("/task", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "task.html", media_type="text/html")

    @router.get("/task/static/{name}", include_in_schema=False)
    def asset(name: str) -> FileResponse:
        if name not in PAGE_FILES:
            raise HTTPException(404, "not found")
        return FileResponse(STATIC / name, media_type=PAGE_FILES[name])


def build_router(
    service: TaskService,
    *,
    dependencies: Sequence[Any] = (),
    workers: int = 2,
    owner: Callable[..., str] = _local_owner,
    streams: Callable[[str], Callable[[], None]] | None = None,
) -> APIRouter:
    """The router over one TaskService; `dependencies` (e.g. the app's auth and role) guard the API
    routes, `owner` (a dependency) names who is asking, `streams(owner)` takes one of the owner's
    stream slots (raising, e.g. 429, when none is free) and returns its idempotent release."""
    runner = TaskRunner(service, workers=workers)
    tasks = _Tasks(service, runner, streams)
    router = APIRouter()
    api = APIRouter(prefix="/api/tasks", tags=["task"], dependencies=list(dependencies))
    router.state = runner  # type: ignore[attr-defined]  # the app closes it on shutdown
    router.resume_interrupted = tasks.resume_interrupted  # type: ignore[attr-defined]
    router.start_task = tasks.submit  # type: ignore[attr-defined]  # the web chat starts tasks here too
    _api_routes(api, tasks, Depends(owner))  # one dependency object for every route
    _page_routes(router)
    router.include_router(api)
    return router
