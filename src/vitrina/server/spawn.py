"""Start `vitrina serve` as a child process on a free loopback port (tests, benchmarks).

Used where the real process matters: browser tests, two servers over one PostgreSQL, the
load benchmark. The child is stopped (SIGTERM, then SIGKILL) when the context exits.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class ServerProcess:
    url: str
    process: subprocess.Popen
    log: Path

    @property
    def pid(self) -> int:
        return self.process.pid


@contextmanager
def spawn_server(
    env: Mapping[str, str],
    *args: str,
    log: Path,
    port: int | None = None,
    ready_timeout_s: float = 60.0,
) -> Iterator[ServerProcess]:
    """Run ``vitrina serve --host 127.0.0.1 --port P ARGS`` until /readyz answers 200."""
    port = port or free_port()
    cmd = [
        sys.executable,
        "-m",
        "vitrina.cli",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "warning",
        *args,
    ]
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as out:
        process = subprocess.Popen(
            cmd, env={**os.environ, **env}, stdout=out, stderr=subprocess.STDOUT
        )
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + ready_timeout_s
            while True:
                if process.poll() is not None:
                    raise RuntimeError(
                        f"vitrina serve exited with {process.returncode}: {log.read_text()[-2000:]}"
                    )
                try:
                    if httpx.get(url + "/readyz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"vitrina serve not ready after {ready_timeout_s} s: "
                        f"{log.read_text()[-2000:]}"
                    )
                time.sleep(0.2)
            yield ServerProcess(url, process, log)
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=5)


def cli_tokens(env: Mapping[str, str], prefix: str, count: int, role: str = "viewer") -> list[str]:
    """`count` API tokens made as an operator makes them (`vitrina token create`), in the
    state the server started with `env` will use."""
    made = []
    for n in range(count):
        done = subprocess.run(
            [sys.executable, "-m", "vitrina", "token", "create", f"{prefix}-{n}", "--role", role],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode != 0:
            raise RuntimeError(f"vitrina token create failed: {done.stderr[-500:]}")
        made.append(done.stdout.split()[-1])
    return made
