"""Shared fixtures: an isolated VITRINA_HOME, the shared fixtures folder, PostgreSQL."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED_FIXTURES = ROOT.parent / "shared" / "fixtures"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
PG_URL = os.environ.get("VITRINA_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own VITRINA_HOME unless it asks for the shared session one."""
    home = tmp_path_factory.mktemp("vitrina-home")
    monkeypatch.setenv("VITRINA_HOME", str(home))
    for key in list(os.environ):
        if key.startswith("VITRINA_LLM_"):
            monkeypatch.delenv(key, raising=False)
    return home


@pytest.fixture(scope="session")
def shared_fixtures() -> Path:
    """../shared/fixtures: skipped with a reason when absent, required under CI."""
    if not SHARED_FIXTURES.is_dir():
        if IN_CI:
            pytest.fail(f"CI=true but {SHARED_FIXTURES} is missing")
        pytest.skip(f"{SHARED_FIXTURES} not found: clone the project next to ../shared to run these")
    return SHARED_FIXTURES


def _pg_reachable(url: str) -> str | None:
    try:
        import psycopg

        with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), connect_timeout=3):
            return None
    except Exception as exc:  # noqa: BLE001 - any failure means "not reachable"
        return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


@pytest.fixture(scope="session")
def pg_url() -> str:
    """A reachable PostgreSQL URL; skip (or fail under CI) when there is none."""
    problem = _pg_reachable(PG_URL)
    if problem:
        if IN_CI:
            pytest.fail(f"CI=true but PostgreSQL at {PG_URL} is not reachable: {problem}")
        pytest.skip(f"PostgreSQL at {PG_URL} not reachable ({problem}); set VITRINA_TEST_PG_URL")
    return PG_URL
