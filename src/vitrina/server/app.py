"""Build the app: one FastAPI object from settings and options, its routes from the table."""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Depends, FastAPI
from fastapi.staticfiles import StaticFiles

from vitrina import __version__
from vitrina.config import Settings, load_settings
from vitrina.server import access_log
from vitrina.server.assets import STATIC_DIR
from vitrina.server.auth import owner_id, require
from vitrina.server.checkpointer import close_checkpointer, is_postgres, make_checkpointer
from vitrina.server.docs_source import find_docs_dir
from vitrina.server.errors import install_error_handlers
from vitrina.server.headers import SecurityHeadersMiddleware
from vitrina.server.limits import BodyLimitMiddleware, TokenBuckets
from vitrina.server.monitor_loop import MonitorLoop
from vitrina.server.options import ServeOptions
from vitrina.server.rebalance import RebalanceMiddleware
from vitrina.server.routes import ROUTES
from vitrina.server.row_policy import unpoliced
from vitrina.server.seams import AskServing
from vitrina.server.state import ServerState
from vitrina.server.store import Store
from vitrina.server.tokens import owner_policy
from vitrina.server.turns import TurnRunner
from vitrina.server.views.models import ERRORS

if TYPE_CHECKING:
    from vitrina.ask import AskResult
    from vitrina.sql.policy import RowPolicy

log = logging.getLogger(__name__)

DESCRIPTION = """Answers from your warehouse over HTTP: dialogs, streamed progress (SSE), results
as Excel and Chart.js specs, the catalog and the measure manual. Send `Authorization: Bearer TOKEN`
(create one with `vitrina token create NAME`). Every failure has the body
`{"error": {"code", "message", "message_ru"}}`."""


def build_service(settings: Settings) -> AskServing:
    """The ask service over this process's checkpointer (SQLite, or PostgreSQL at scale)."""
    from vitrina.ask import AskService

    return AskService(
        settings, checkpointer=make_checkpointer(settings), write_files=False
    )  # files on download


def job_routers(
    settings: Settings, service: AskServing, streams: Any = None, store: Store | None = None
) -> list[APIRouter]:
    """Routers other jobs contribute, behind the same auth and roles: experiments of `vitrina
    eval` (admin) and the task page and API of `vitrina task` (analyst, sharing this app's ask
    pipeline). Both store the caller's owner id with what they create and show it to no one else;
    a task reads through its owner's row policy (`store`)."""
    from vitrina.eval import experiments_router
    from vitrina.task import TASK_POOL_SIZE, TaskService, build_router

    guarded = APIRouter(dependencies=[Depends(require("admin")), Depends(unpoliced)])
    guarded.include_router(experiments_router(owner=owner_id))

    def ask(question: str, policy: RowPolicy | None = None, **chosen: Any) -> AskResult:
        # chosen: a step clarification's answer (topics=[id] or segment=id)
        return service.ask(question, policy=policy, **chosen)

    tasks = TaskService(
        settings,
        catalog=service.catalog,
        warehouse=service.warehouse,
        ask=ask,
        run_plan=service.run_plan,  # a derived step is a changed plan (vitrina.task.tools.ask)
        policy_of=(lambda owner: owner_policy(store, owner)) if store is not None else None,
        # on a PostgreSQL state every process sees every task (a decision taken on another
        # process resumes it there); else tasks.sqlite under VITRINA_HOME, as before
        checkpointer=make_checkpointer(settings, pool_size=TASK_POOL_SIZE)
        if is_postgres(settings.state_url)
        else None,
    )
    return [
        guarded,
        build_router(
            tasks, dependencies=[Depends(require("analyst"))], owner=owner_id, streams=streams
        ),
    ]


def _resume_tasks(router: Any) -> None:
    """Resume what a crash left running; a failure here is logged, never a failed start (the
    tasks stay resumable with `vitrina task "" --task ID`). A replaced worker of
    `--workers N` resumes nothing (`VITRINA_RESUME_TASKS=0`): its siblings may be running them."""
    if os.environ.get("VITRINA_RESUME_TASKS", "1") == "0":
        return
    try:
        resumed = router.resume_interrupted()
    except Exception:
        log.exception("interrupted tasks not resumed")
        return
    if resumed:
        log.warning("resumed %d interrupted task(s): %s", len(resumed), resumed)


def create_app(
    settings: Settings | None = None,
    options: ServeOptions | None = None,
    *,
    service: AskServing | None = None,
    store: Store | None = None,
) -> FastAPI:
    """The whole app. ``service`` may be given (tests pass one with a fixed "today")."""
    settings = settings or load_settings()
    options = options or ServeOptions()
    options.check()
    access_log.install()
    owns_service = service is None
    service = service or build_service(settings)
    store = store or Store.from_settings(settings)
    state = ServerState(
        settings=settings,
        options=options,
        service=service,
        store=store,
        runner=TurnRunner(
            service,
            store,
            workers=options.threads,
            max_rows=options.max_result_rows,
            max_chars=settings.result_cell_max_chars,
            streams_per_token=options.streams_per_token,
            docs_dir=lambda: find_docs_dir(options.docs_dir, settings.outputs_dir),
        ),
        buckets=TokenBuckets(options.rate_per_minute, options.burst),
    )

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        access_log.install()  # again after uvicorn configured its loggers: no token in a line
        monitor = MonitorLoop(settings)  # the board's stale-task signals (issue 31 item 7)
        monitor.start()
        _app.state.monitor = monitor
        for router in routers:  # tasks a crash left running continue from their checkpoints
            if hasattr(router, "resume_interrupted"):
                _resume_tasks(router)
        yield
        await monitor.stop()
        state.runner.close()
        for router in routers:
            if hasattr(router, "state"):  # the task runner: its threads, then the tasks' state
                router.state.close()
                close_checkpointer(router.state.service.checkpointer)  # PostgreSQL: a pool
        if owns_service:
            service.close()
            close_checkpointer(service.checkpointer)
        store.close()

    app = FastAPI(
        title="Vitrina",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )  # the stock API pages load scripts from a CDN
    app.state.vitrina = state
    for route in ROUTES:
        app.add_api_route(
            route.path,
            route.view,
            methods=[route.method],
            name=route.name,
            include_in_schema=route.api,
            responses=ERRORS if route.api else None,
        )
    routers = job_routers(settings, service, streams=state.runner.slots.acquire, store=store)
    state.runner.start_task = next(
        (r.start_task for r in routers if hasattr(r, "start_task")), None
    )
    for router in routers:
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    install_error_handlers(app)
    app.add_middleware(BodyLimitMiddleware, max_bytes=options.max_body_bytes)
    app.add_middleware(SecurityHeadersMiddleware)  # CSP and friends; no token in a URL
    app.add_middleware(RebalanceMiddleware)  # outermost: it sees every response's headers
    return app


def app_from_env() -> FastAPI:
    """The app of one worker process of `vitrina serve --workers N` (uvicorn's factory):
    settings from the VITRINA_* environment, options from VITRINA_SERVE_OPTIONS."""
    from vitrina.server.options import options_from_env

    return create_app(load_settings(), options_from_env())
