"""Fixtures of the LLM tests: the local OpenAI-compatible server and settings aimed at it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from vitrina.config import Settings

from .openai_server import OpenAIServer, ServerState, serve


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    """A fresh server per test on 127.0.0.1 and a free port."""
    with serve(ServerState()) as srv:
        yield srv


def settings_for(base_url: str, tmp: Path, **changes: object) -> Settings:
    """Settings that point the openai provider at `base_url` with short timeouts."""
    values: dict[str, object] = {
        "llm_provider": "openai",
        "llm_base_url": base_url,
        "llm_model": "test-model",
        "llm_timeout_s": 1.0,
    }
    values.update(changes)
    return Settings(home=tmp, **values)  # type: ignore[arg-type]
