"""`vitrina serve --workers N`: several real processes over one SQLite state, and the
per-thread SQLite connections of the checkpointer."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from vitrina.checkpoint import sqlite_checkpointer
from vitrina.server.spawn import spawn_server

QUESTIONS = [
    "Сколько кошельков открыли в мае 2025?",
    "Revenue by region in Q3 2026",
    "Количество платежей по месяцам в 2025 году",
    "Сумма платежей по регионам за 3 квартал 2026",
]


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def _ask(base: str, question: str) -> tuple[str, dict]:
    with httpx.Client(base_url=base, timeout=120) as http:
        thread = http.post("/api/threads", json={}).json()["id"]
        body = http.post(f"/api/threads/{thread}/messages", json={"text": question}).text
        final = [json.loads(line[6:]) for line in body.splitlines() if line.startswith("data: ")][
            -1
        ]
        return thread, final


def test_two_worker_processes_share_the_sqlite_state(demo_db: Path, tmp_path: Path) -> None:
    env = {"VITRINA_HOME": str(tmp_path / "home"), "VITRINA_DB_URL": f"duckdb:///{demo_db}"}
    with spawn_server(
        env,
        "--no-auth",
        "--rate-limit",
        "0",
        "--workers",
        "2",
        log=tmp_path / "serve.log",
        ready_timeout_s=180,
    ) as server:
        assert len(_children(server.pid)) >= 2, (tmp_path / "serve.log").read_text()[-2000:]
        with ThreadPoolExecutor(4) as pool:
            answered = list(pool.map(lambda q: _ask(server.url, q), QUESTIONS * 2))
        assert [f["result"]["status"] for _, f in answered] == ["answered"] * len(QUESTIONS) * 2
        # any process reads any dialog and makes its files: the state is shared, not per process
        with httpx.Client(base_url=server.url, timeout=120) as http:
            for thread, final in answered:
                turns = http.get(f"/api/threads/{thread}").json()["turns"]
                assert [t["run_id"] for t in turns] == [final["run_id"]]
                assert http.get(f"/api/runs/{final['run_id']}/excel").status_code == 200


def test_each_thread_has_its_own_connection_in_wal_mode(tmp_path: Path) -> None:
    saver = sqlite_checkpointer(tmp_path / "state.sqlite")
    seen: dict[str, int] = {}
    together = threading.Barrier(4)  # all four alive at once

    def use(name: str) -> None:
        with saver.cursor() as cur:
            cur.execute("SELECT COUNT(*) FROM checkpoints")
            seen[name] = id(saver.conn)
        together.wait(timeout=30)

    threads = [threading.Thread(target=use, args=(f"t{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(seen.values())) == 4 and id(saver.conn) not in seen.values()
    mode = saver.conn.execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    saver.close()


def test_a_finished_threads_connection_serves_the_next_thread(tmp_path: Path) -> None:
    """LangGraph writes from fresh threads on every run: connections must not pile up."""
    saver = sqlite_checkpointer(tmp_path / "state.sqlite")

    def use() -> None:
        with saver.cursor() as cur:
            cur.execute("SELECT COUNT(*) FROM checkpoints")

    for _ in range(20):  # one after another: each new thread finds the last one's connection
        t = threading.Thread(target=use)
        t.start()
        t.join()
    assert len(saver._all) == 2  # the main thread's and one lent in turn
    saver.close()
