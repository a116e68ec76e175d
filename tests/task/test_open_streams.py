"""Open task event streams are async: 100 of them held open (a running task, nothing to send)
leave the server free to answer /healthz, and the per-owner cap refuses the 101st stream of
one token with 429. A functional bound only (the thread-per-stream design took 23 s to answer
/healthz with 45 streams)."""

from __future__ import annotations

import asyncio
import threading
import time

import httpx
import uvicorn
from fastapi import FastAPI, Header

from vitrina.server.errors import install_error_handlers
from vitrina.server.spawn import free_port
from vitrina.server.streams import StreamSlots
from vitrina.task.api import build_router

REQUEST = "Сумма платежей по регионам за 3 квартал 2026, доли"
STREAMS = 100
HEALTHZ_BOUND_S = 5.0  # generous: a blocked server would not answer at all while streams are open


def _owner(x_owner: str = Header("local")) -> str:
    return x_owner


def test_open_streams_do_not_block_the_server(make_task) -> None:
    service = make_task()
    slots = StreamSlots(per_owner=STREAMS)
    router = build_router(service, owner=_owner, streams=slots.acquire)
    app = FastAPI()
    app.include_router(router)
    app.add_api_route("/healthz", lambda: {"status": "ok"})
    install_error_handlers(app)  # ApiError (429) as in the real app
    task_id = service.start(REQUEST, owner="local").task_id
    release = threading.Event()
    runner = router.state
    runner.submit(
        task_id, lambda on_event: (release.wait(60), service.view(task_id))[1]
    )  # busy, silent

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(100):  # bounded start wait
        if server.started:
            break
        time.sleep(0.05)
    base = f"http://127.0.0.1:{port}"

    async def scenario() -> tuple[list[int], int, float]:
        limits = httpx.Limits(max_connections=STREAMS + 10)
        async with httpx.AsyncClient(base_url=base, timeout=30, limits=limits) as client:
            opened = []
            statuses = []
            for _ in range(STREAMS):
                request = client.build_request(
                    "GET", f"/api/tasks/{task_id}/events", headers={"x-owner": "local"}
                )
                response = await client.send(request, stream=True)
                statuses.append(response.status_code)
                opened.append(response)
            over = await client.get(f"/api/tasks/{task_id}/events", headers={"x-owner": "local"})
            start = time.perf_counter()
            health = await client.get("/healthz")
            took = time.perf_counter() - start
            assert health.status_code == 200
            for response in opened:
                await response.aclose()
            return statuses, over.status_code, took

    try:
        statuses, over, took = asyncio.run(scenario())
    finally:
        release.set()
        server.should_exit = True
        thread.join(timeout=10)
        runner.close()
    assert statuses == [200] * STREAMS
    assert over == 429
    assert took < HEALTHZ_BOUND_S
