"""The real-Superset tier: Apache Superset 6 from its cached environment, started for the
session on 127.0.0.1 with a SQLite metadata database, a per-run admin password and secret
key (tests/superset_real/server.py), and the demo warehouse in this run's PostgreSQL
database, which Superset reads through a read-only role of its own.

Without the environment (`make superset-env` builds it) these tests skip and say so; with
CI=true they must run (the Makefile builds the environment before `make test` there).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.conftest import IN_CI

from . import server

DATABASE_NAME = "Vitrina warehouse (tests)"


@pytest.fixture(scope="session")
def superset(tmp_path_factory: pytest.TempPathFactory) -> Iterator[server.SupersetServer]:
    problem = server.env_problem()
    if problem:
        if IN_CI:
            pytest.fail(f"CI=true but {problem}")
        pytest.skip(problem)
    running = server.start(tmp_path_factory.mktemp("superset"))
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="session")
def superset_warehouse(pg_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """The small demo warehouse in this run's PostgreSQL database; Superset's read-only URI."""
    with server.demo_warehouse(pg_url, tmp_path_factory.mktemp("superset-demo")) as warehouse:
        yield warehouse


@pytest.fixture
def superset_target(superset: server.SupersetServer, superset_warehouse: dict):
    return server.publish_target(superset, superset_warehouse, DATABASE_NAME)


@pytest.fixture
def superset_client(superset: server.SupersetServer):
    from vitrina.team.publish.superset_client import SupersetClient

    with SupersetClient(superset.url, superset.username, superset.password) as client:
        yield client


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if Path(str(item.fspath)).is_relative_to(here):
            item.add_marker(pytest.mark.superset)
