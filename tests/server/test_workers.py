"""`vitrina serve --workers N`: several real processes over one SQLite state, and the
per-thread SQLite connections of the checkpointer."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from vitrina.checkpoint import sqlite_checkpointer
from vitrina.server import workers as worker_processes
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


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not worker_processes.supported(), reason="SO_REUSEPORT spreading is Linux's")
def test_each_worker_listens_on_its_own_socket_and_none_outlives_the_server(
    demo_db: Path, tmp_path: Path
) -> None:
    """Workers of a killed `vitrina serve` stop by themselves (an orphan kept serving and
    burning a core before), and each worker holds a listening socket of its own."""
    env = {"VITRINA_HOME": str(tmp_path / "home"), "VITRINA_DB_URL": f"duckdb:///{demo_db}"}
    with spawn_server(
        env, "--no-auth", "--workers", "2", log=tmp_path / "serve.log", ready_timeout_s=180
    ) as server:
        port = int(server.url.rsplit(":", 1)[1])
        deadline = time.monotonic() + 120  # /readyz answers once the first worker listens
        while True:
            children = _children(server.pid)  # the workers (and multiprocessing's tracker)
            workers = [p for p in children if port in _listening_ports(p)]
            if len(workers) == 2 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert len(workers) == 2, (tmp_path / "serve.log").read_text()[-2000:]
        assert _ask(server.url, QUESTIONS[0])[1]["result"]["status"] == "answered"
        os.kill(server.pid, signal.SIGKILL)  # no graceful stop: the workers are orphaned
        deadline = time.monotonic() + 30
        while any(_alive(p) for p in children) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not any(_alive(p) for p in children), "a worker outlived its supervisor"


def _socket_inodes(pid: int) -> set[str]:
    """The inodes of a process's sockets (its fds under /proc)."""
    inodes = set()
    with contextlib.suppress(OSError):  # the process may have just ended
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                target = os.readlink(fd)
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
    return inodes


def _port(address: str) -> int:
    return int(address.rsplit(":", 1)[1], 16)  # /proc/net/tcp: "0100007F:1F90"


def _tcp_sockets() -> Iterator[tuple[str, int, int, str]]:
    """(state, local port, remote port, inode) of every TCP socket (/proc/net/tcp, tcp6)."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            yield fields[3], _port(fields[1]), _port(fields[2]), fields[9]


def _listening_ports(pid: int) -> set[int]:
    """TCP ports a process has a listening socket on (its fds matched against /proc/net)."""
    inodes = _socket_inodes(pid)
    return {local for state, local, _, inode in _tcp_sockets() if state == "0A" and inode in inodes}


def test_a_port_in_use_is_refused_in_one_line(tmp_path: Path) -> None:
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    port = holder.getsockname()[1]
    try:
        done = subprocess.run(
            [sys.executable, "-m", "vitrina", "serve", "--no-auth", "--workers", "2",
             "--port", str(port)],
            env={**os.environ, "VITRINA_HOME": str(tmp_path / "home")},
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    finally:
        holder.close()
    assert done.returncode != 0
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr and "Traceback" not in done.stderr


def _worker_of(client_port: int, server_port: int, workers: list[int]) -> int | None:
    """The worker process holding the server side of the connection from `client_port`."""
    for state, local, remote, inode in _tcp_sockets():
        if state == "01" and local == server_port and remote == client_port:  # 01: ESTABLISHED
            return next((w for w in workers if inode in _socket_inodes(w)), None)
    return None


def test_a_worker_above_its_share_of_connections_hands_clients_back(
    demo_db: Path, tmp_path: Path
) -> None:
    """Keep-alive connections split 5/1 over two workers end even: the busier worker closes
    connections after a response until it holds its share, and the clients reconnect."""
    import http.client

    env = {"VITRINA_HOME": str(tmp_path / "home"), "VITRINA_DB_URL": f"duckdb:///{demo_db}"}
    with spawn_server(
        env, "--no-auth", "--workers", "2", log=tmp_path / "serve.log", ready_timeout_s=180
    ) as server:
        port = int(server.url.rsplit(":", 1)[1])
        deadline = time.monotonic() + 120
        while len(workers := [p for p in _children(server.pid) if port in _listening_ports(p)]) < 2:
            assert time.monotonic() < deadline, (tmp_path / "serve.log").read_text()[-2000:]
            time.sleep(0.2)

        def connect() -> tuple[http.client.HTTPConnection, int | None]:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.connect()
            worker = None
            for _ in range(50):  # the server side appears in /proc/net/tcp once accepted
                if (worker := _worker_of(conn.sock.getsockname()[1], port, workers)) is not None:
                    break
                time.sleep(0.02)
            return conn, worker

        kept: dict[int, list[http.client.HTTPConnection]] = {w: [] for w in workers}
        for _ in range(200):  # an uneven start: 5 connections on one worker, 1 on the other
            conn, worker = connect()
            wanted = 5 if worker == workers[0] else 1
            if worker in kept and len(kept[worker]) < wanted:
                kept[worker].append(conn)
            else:
                conn.close()
            if all(len(kept[w]) == (5 if w == workers[0] else 1) for w in workers):
                break
        clients = [c for group in kept.values() for c in group]
        assert len(clients) == 6, "could not make the uneven start"
        for _ in range(15):
            for conn in clients:  # http.client reconnects after a "Connection: close"
                conn.request("GET", "/healthz")
                response = conn.getresponse()
                response.read()
                assert response.status == 200
        split = [0, 0]
        for conn in clients:
            if conn.sock is None:  # closed by the last response: connect again to count it
                conn.connect()
            worker = _worker_of(conn.sock.getsockname()[1], port, workers)
            split[workers.index(worker)] += 1
            conn.close()
        assert sorted(split) == [3, 3], split


@pytest.mark.parametrize(
    ("mine", "other", "over"),
    [(5, 1, True), (4, 3, False), (3, 4, False), (4, 2, True), (0, 0, False)],
)
def test_a_workers_share_is_the_total_over_the_workers_rounded_up(mine, other, over) -> None:
    from vitrina.server.rebalance import ConnectionShare

    counts = [0, other]
    assert ConnectionShare(counts, 0, range(mine)).over_share() is over
    assert counts == [mine, other]  # published for the other workers
