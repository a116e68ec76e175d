"""Load on `vitrina serve` over loopback: POST /api/threads/{id}/messages in rules mode.

    .venv/bin/python benchmarks/bench_serve.py

A real server process (the demo warehouse, SQLite state, no auth, no rate limit) answers
questions from 1, 8 and 32 concurrent httpx clients. Each level is bounded in time and in
request count. A request is timed from the POST to the final SSE event (the whole turn,
Excel and PNG included). The server's resident memory is read from /proc at the end.
"""

from __future__ import annotations

import asyncio
import itertools
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from vitrina.server.spawn import spawn_server
from vitrina.warehouse.demo import build_demo_warehouse

LEVELS = (1, 8, 32)
MAX_SECONDS = 10.0  # per concurrency level
MAX_REQUESTS = 240  # per concurrency level
QUESTIONS = [
    "Сколько кошельков открыли в мае 2025?",
    "Сумма платежей по регионам за 3 квартал 2026",
    "Revenue by region in Q3 2026",
    "Количество платежей по месяцам в 2025 году",
]
TARGETS = {"p95_ms_c1": "< 500 ms", "failures_c32": "0", "rss_peak_mb": "< 800 MB"}


def _rss_mb(pid: int) -> tuple[float, float]:
    """Current and peak resident memory of a process, MiB (Linux /proc)."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    kib = lambda k: float(fields.get(k, "0 kB").split()[0])  # noqa: E731
    return kib("VmRSS") / 1024, kib("VmHWM") / 1024


async def _level(base: str, clients: int) -> dict[str, float]:
    latencies: list[float] = []
    failures = 0
    questions = itertools.cycle(QUESTIONS)
    deadline = time.perf_counter() + MAX_SECONDS
    budget = [MAX_REQUESTS]

    async def worker(http: httpx.AsyncClient) -> None:
        nonlocal failures
        while time.perf_counter() < deadline and budget[0] > 0:
            budget[0] -= 1
            thread = (await http.post("/api/threads", json={})).json()["id"]
            start = time.perf_counter()
            async with http.stream("POST", f"/api/threads/{thread}/messages", json={"text": next(questions)}) as resp:
                body = (await resp.aread()).decode()
            latencies.append((time.perf_counter() - start) * 1000)
            if resp.status_code != 200 or '"type": "result"' not in body:
                failures += 1

    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as http:
        started = time.perf_counter()
        await asyncio.gather(*(worker(http) for _ in range(clients)))
        elapsed = time.perf_counter() - started
    ordered = sorted(latencies)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))] if ordered else float("nan")
    return {f"rps_c{clients}": round(len(latencies) / elapsed, 2), f"p95_ms_c{clients}": round(p95, 1),
            f"median_ms_c{clients}": round(statistics.median(latencies), 1) if latencies else float("nan"),
            f"requests_c{clients}": float(len(latencies)), f"failures_c{clients}": float(failures)}


def run() -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="vitrina-bench-serve-") as tmp:
        root = Path(tmp)
        db = root / "warehouse.duckdb"
        build_demo_warehouse(db)
        env = {"VITRINA_HOME": str(root / "home"), "VITRINA_DB_URL": f"duckdb:///{db}"}
        results: dict[str, float] = {}
        with spawn_server(env, "--no-auth", "--rate-limit", "0", "--threads", "8", log=root / "serve.log") as server:
            asyncio.run(_level(server.url, 1))  # warm-up: imports, first plans, matplotlib fonts
            for clients in LEVELS:
                results.update(asyncio.run(_level(server.url, clients)))
            rss, peak = _rss_mb(server.pid)
        results["rss_mb"] = round(rss, 1)
        results["rss_peak_mb"] = round(peak, 1)
        return results


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:>18}: {value}")
    sys.exit(0)
