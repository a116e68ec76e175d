"""The real-Superset tier: Apache Superset 6 from its cached environment, started for the
session on 127.0.0.1 with a SQLite metadata database, a per-run admin password and secret
key (tests/superset_real/server.py), and the demo warehouse in this run's PostgreSQL
database, which Superset reads through a read-only role of its own.

Without the environment (`make superset-env` builds it) these tests skip and say so; with
CI=true they must run (the Makefile builds the environment before `make test` there).
"""

from __future__ import annotations

import secrets
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
    import psycopg

    from vitrina.warehouse.demo import build_demo_warehouse
    from vitrina.warehouse.pg_load import load_demo_into_postgres

    duck = tmp_path_factory.mktemp("superset-demo") / "demo.duckdb"
    build_demo_warehouse(duck, scale=0.05)
    load_demo_into_postgres(duck, pg_url)
    role = f"vitrina_superset_ro_{secrets.token_hex(4)}"
    password = secrets.token_urlsafe(16)
    database = pg_url.rsplit("/", 1)[1]
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN PASSWORD '{password}'")
        conn.execute(f'GRANT CONNECT ON DATABASE "{database}" TO {role}')
        conn.execute(f"GRANT USAGE ON SCHEMA dwh TO {role}")
        conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA dwh TO {role}")
        conn.execute(f"ALTER ROLE {role} SET default_transaction_read_only = on")
    host = pg_url.split("@", 1)[1].rsplit("/", 1)[0]
    reader = f"postgresql://{role}:{password}@{host}/{database}"
    try:
        yield {
            # Vitrina refuses a superuser warehouse: it reads through the same read-only role
            "vitrina_url": reader,
            "superset_uri": reader,
            "role": role,
        }
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f"REASSIGN OWNED BY {role} TO CURRENT_USER")
            conn.execute(f"DROP OWNED BY {role}")
        admin = pg_url.rsplit("/", 1)[0] + "/postgres"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"DROP ROLE IF EXISTS {role}")


@pytest.fixture
def superset_target(superset: server.SupersetServer, superset_warehouse: dict):
    from vitrina.team.publish.superset import SupersetTarget
    from vitrina.team.publish.superset_bundle import SupersetDatabase

    return SupersetTarget(
        superset.url,
        superset.username,
        superset.password,
        SupersetDatabase(DATABASE_NAME, superset_warehouse["superset_uri"]),
    )


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
