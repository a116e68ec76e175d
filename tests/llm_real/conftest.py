"""The real-model tier (`make test-llm`): llama-cpp-python's OpenAI-compatible server with a
small GGUF model from PyPI wheels, both in their own cached environment
(tests/llm_real/setup_env.sh). Collected only when VITRINA_TEST_LLM_ENV names that
environment (the Makefile sets it); the normal suite never sees these tests.

Figures (turn times, calls, repairs, cuts, fallbacks) are collected in `FIGURES` and
written to $VITRINA_TEST_LLM_REPORT (default: llm_real_report.json in the temp folder).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

MODEL_FILE = "models/gemma-3-270m-q4_k_m.gguf"
STARTUP_S = 180  # loading the model on a loaded 2-core machine
TURN_BUDGET_S = 15.0
FIGURES: dict[str, Any] = {"turn_budget_s": TURN_BUDGET_S}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def llm_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The server on 127.0.0.1 for the session; its base URL. Stopped by its own PID."""
    env_dir = Path(os.environ["VITRINA_TEST_LLM_ENV"])
    model = env_dir / MODEL_FILE
    if not model.is_file():
        pytest.fail(
            f"{model} is missing: run `make test-llm` (tests/llm_real/setup_env.sh builds it)"
        )
    port = _free_port()
    log = tmp_path_factory.mktemp("llm-server") / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [
                str(env_dir / "bin" / "python"),
                "-m",
                "llama_cpp.server",
                "--model",
                str(model),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--n_ctx",
                "4096",
                "--n_threads",
                "2",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + STARTUP_S
        while True:
            if proc.poll() is not None:
                pytest.fail(
                    f"the llama-cpp-python server exited: {log.read_text(errors='replace')[-2000:]}"
                )
            try:
                if httpx.get(f"{base_url}/models", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"the server did not start within {STARTUP_S} s")
            time.sleep(0.5)
        FIGURES["server_start_s"] = round(STARTUP_S - (deadline - time.monotonic()), 1)
        yield base_url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture
def real_settings(llm_server: str, tmp_path: Path):
    """Settings aimed at the server, under a fresh VITRINA_HOME (no breaker state carried)."""
    from vitrina.config import Settings

    def make(**changes: Any) -> Settings:
        values: dict[str, Any] = {
            "home": tmp_path,
            "llm_provider": "openai",
            "llm_base_url": llm_server,
            "llm_model": "gemma-3-270m",
            "llm_timeout_s": 10.0,
            "llm_turn_budget_s": TURN_BUDGET_S,
            **changes,
        }
        return Settings(**values)

    return make


def report_path() -> Path:
    return Path(
        os.environ.get("VITRINA_TEST_LLM_REPORT")
        or Path(tempfile.gettempdir()) / "llm_real_report.json"
    )


def record(key: str, value: Any) -> None:
    """Keep a figure and rewrite the report (so a failed run still leaves its figures)."""
    FIGURES[key] = value
    report_path().write_text(
        json.dumps(FIGURES, ensure_ascii=False, indent=2, default=str), encoding="utf-8"
    )
