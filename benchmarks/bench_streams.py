"""/healthz while 100 task event streams are open (issue 11: "100 open event streams do not
slow /healthz beyond 100 ms"), on a real `vitrina serve` process over a real port.

    .venv/bin/python benchmarks/bench_streams.py

One server process (`--workers 1`: every stream and every probe in the same process, the
worst case) with API tokens made by `vitrina token create`. A stream stays open only while
its task is running, and one token may hold at most 20 (the per-token cap), so: TOKENS
analyst tokens each start one task through the API (rules planning, then the task waits for
plan approval, idle). The bench then takes SQLite's write lock on the task database
(`BEGIN IMMEDIATE` on `$VITRINA_HOME/tasks.sqlite`) and approves every plan: each task runs
until its next checkpoint write and waits there on SQLite's busy timeout (asleep, no CPU),
so it is running but has nothing to send, as a long step is. STREAMS streams are opened,
spread over the tokens (at most 20 each), `GET /api/tasks/{id}/events`, and each is read in
the background to its end. /healthz is probed PROBES times one after another without the
streams (the same idle tasks) and with them; the lock is released before the task
database's 30 s busy timeout, and `streams_open` counts the streams still open when the
last probe returned (all of them, or the figure says how many closed early).
"""

from __future__ import annotations

import asyncio
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from vitrina.server.spawn import cli_tokens, spawn_server
from vitrina.warehouse.demo import build_demo_warehouse

STREAMS = 100
TOKENS = 6  # 100 streams over 6 tokens: at most 17 per token (the cap is 20)
PROBES = 200  # /healthz requests per phase
REQUEST = "Сумма платежей по регионам за 3 квартал 2026, доли"
PLAN_WAIT_S = 120.0  # bound on a task's rules planning under load
LOCK_BUDGET_S = 25.0  # the task database's busy timeout is 30 s: release before it
GOALS = {
    "healthz_p95_ms_streams": ("<", 100.0),
    "streams_open": ("=", float(STREAMS)),
    "tasks_running": ("=", float(TOKENS)),
}


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def _probe(http: httpx.AsyncClient) -> list[float]:
    took = []
    for _ in range(PROBES):
        start = time.perf_counter()
        response = await http.get("/healthz")
        took.append((time.perf_counter() - start) * 1000)
        if response.status_code != 200:
            raise RuntimeError(f"/healthz answered {response.status_code}")
    return took


async def _wait_status(
    http: httpx.AsyncClient, task: str, auth: dict[str, str], want: set[str]
) -> dict:
    deadline = time.monotonic() + PLAN_WAIT_S
    while time.monotonic() < deadline:
        view = (await http.get(f"/api/tasks/{task}", headers=auth)).json()
        if view.get("status") in want:
            return view
        await asyncio.sleep(0.2)
    raise RuntimeError(f"task {task} not {want} after {PLAN_WAIT_S} s: {view.get('status')}")


async def _read_to_end(response: httpx.Response, closed: list[float]) -> None:
    try:
        async for _ in response.aiter_lines():
            pass
    except httpx.HTTPError:
        pass
    closed.append(time.perf_counter())


async def _scenario(base: str, tokens: list[str], tasks_db: Path) -> dict[str, float]:
    auths = [{"Authorization": f"Bearer {t}"} for t in tokens]
    limits = httpx.Limits(max_connections=STREAMS + 20, max_keepalive_connections=STREAMS + 20)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as http:
        tasks = []
        for auth in auths:
            started = await http.post(
                "/api/tasks", json={"request": REQUEST, "mode": "semi"}, headers=auth
            )
            started.raise_for_status()
            tasks.append(started.json()["task_id"])
        for task, auth in zip(tasks, auths, strict=True):
            await _wait_status(http, task, auth, {"awaiting_plan"})
        await _probe(http)  # warm-up
        baseline = await _probe(http)

        lock = sqlite3.connect(tasks_db, timeout=5, isolation_level=None)
        lock.execute("BEGIN IMMEDIATE")  # every task's next checkpoint write waits here
        locked_at = time.perf_counter()
        streams: list[httpx.Response] = []
        readers: list[asyncio.Task] = []
        closed: list[float] = []
        try:
            for task, auth in zip(tasks, auths, strict=True):
                decided = await http.post(
                    f"/api/tasks/{task}/decision", json={"action": "approve"}, headers=auth
                )
                decided.raise_for_status()
            for n in range(STREAMS):
                k = n % len(tasks)
                request = http.build_request(
                    "GET", f"/api/tasks/{tasks[k]}/events", headers=auths[k]
                )
                response = await http.send(request, stream=True)
                if response.status_code != 200:
                    raise RuntimeError(f"stream {n}: status {response.status_code}")
                streams.append(response)
                readers.append(asyncio.create_task(_read_to_end(response, closed)))
            await asyncio.sleep(0.5)  # every stream past its first events
            with_streams = await _probe(http)
            probes_done = time.perf_counter()
            open_at_end = STREAMS - sum(1 for t in closed if t <= probes_done)
            running = 0  # the tasks are running (waiting on the lock), as the streams say
            for task, auth in zip(tasks, auths, strict=True):
                running += bool(
                    (await http.get(f"/api/tasks/{task}", headers=auth)).json()["running"]
                )
            if probes_done - locked_at > LOCK_BUDGET_S:
                raise RuntimeError(
                    f"probes took {probes_done - locked_at:.1f} s with the lock held (budget "
                    f"{LOCK_BUDGET_S} s): the tasks may have timed out; lower PROBES"
                )
        finally:
            lock.execute("ROLLBACK")
            lock.close()
            for response in streams:
                await response.aclose()
            for reader in readers:
                reader.cancel()
            await asyncio.gather(*readers, return_exceptions=True)
    return {
        "streams": float(len(streams)),
        "streams_open": float(open_at_end),
        "tasks_running": float(running),
        "healthz_median_ms_idle": round(statistics.median(baseline), 2),
        "healthz_p95_ms_idle": round(_percentile(baseline, 0.95), 2),
        "healthz_median_ms_streams": round(statistics.median(with_streams), 2),
        "healthz_p95_ms_streams": round(_percentile(with_streams, 0.95), 2),
        "healthz_max_ms_streams": round(max(with_streams), 2),
        "lock_held_s": round(probes_done - locked_at, 2),
    }


def run() -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="vitrina-bench-streams-") as tmp:
        root = Path(tmp)
        db = root / "warehouse.duckdb"
        build_demo_warehouse(db)
        home = root / "home"
        env = {"VITRINA_HOME": str(home), "VITRINA_DB_URL": f"duckdb:///{db}"}
        tokens = cli_tokens(env, "streams", TOKENS, role="analyst")
        with spawn_server(
            env,
            "--rate-limit",
            "0",
            "--workers",
            "1",
            log=root / "serve.log",
            ready_timeout_s=180,
        ) as server:
            return asyncio.run(_scenario(server.url, tokens, home / "tasks.sqlite"))


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:>26}: {value}")
