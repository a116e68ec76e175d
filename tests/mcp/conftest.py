"""A running `vitrina mcp --transport http` for the MCP tests, with tokens of each role."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import httpx
import pytest

from vitrina.config import Settings
from vitrina.server.spawn import free_port
from vitrina.server.store import Store
from vitrina.server.tokens import create_token


@contextmanager
def mcp_http_process(environ: dict[str, str], home: Path) -> Iterator[tuple[str, Path]]:
    """`vitrina mcp --transport http` started with ``environ``: its URL once it answers, and
    its log (in ``home``)."""
    port = free_port()
    log_path = home / "mcp.log"
    with log_path.open("wb") as log:
        command = ["mcp", "--transport", "http", "--port", str(port)]
        proc = subprocess.Popen(
            [sys.executable, "-m", "vitrina.cli", *command],
            env=environ,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{port}/mcp"
        try:
            deadline = time.monotonic() + 60
            while True:
                assert proc.poll() is None, log_path.read_text()
                try:
                    httpx.get(url, timeout=1)
                    break
                except httpx.HTTPError:
                    assert time.monotonic() < deadline, "MCP HTTP server did not start"
                    time.sleep(0.2)
            yield url, log_path
        finally:
            proc.terminate()
            proc.wait(timeout=10)


@contextmanager
def running_mcp_http(
    demo_db: Path, home: Path, env: dict[str, str] | None = None
) -> Iterator[tuple[str, dict[str, str], Path]]:
    """The server's URL, tokens of each role (plus a second analyst, "other") and its log;
    ``env`` adds VITRINA_* settings."""
    store = Store.from_settings(Settings(home=home))
    tokens = {role: create_token(store, role, role) for role in ("viewer", "analyst", "admin")}
    tokens["other"] = create_token(store, "other", "analyst")
    store.close()
    environ = {
        **os.environ,
        "VITRINA_HOME": str(home),
        "VITRINA_DB_URL": f"duckdb:///{demo_db}",
        **(env or {}),
    }
    with mcp_http_process(environ, home) as (url, log_path):
        yield url, tokens, log_path


Running = tuple[str, dict[str, str], Path]


@pytest.fixture
def start_mcp_http(demo_db: Path, tmp_path: Path) -> Callable[..., AbstractContextManager[Running]]:
    """``start_mcp_http(env=None)``: `running_mcp_http` over the demo warehouse in this
    test's folder."""
    return lambda env=None: running_mcp_http(demo_db, tmp_path, env)
