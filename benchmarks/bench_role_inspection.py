"""The role inspection a PostgreSQL warehouse connection runs on connect, on a big catalog.

    .venv/bin/python benchmarks/bench_role_inspection.py

A throwaway database (dropped after) with ``SCHEMAS`` x ``TABLES_PER_SCHEMA`` tables, a
sequence and a view per schema and ``FUNCTIONS`` functions; a reader role with SELECT on all
of it. Measured as that role: the inspection alone (median of ``RUNS``), a new connection
alone and a connection plus the inspection, as Vitrina's warehouse opens one. Every new or
healed connection pays the inspection, so it has a goal. Skipped (empty) without PostgreSQL
at VITRINA_TEST_PG_URL.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from vitrina.warehouse.pg_load import pg_conninfo  # noqa: E402
from vitrina.warehouse.privileges import inspect_postgres_role  # noqa: E402
from vitrina.warehouse.reader_role import create_reader_role  # noqa: E402

PG_URL = os.environ.get("VITRINA_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
SCHEMAS, TABLES_PER_SCHEMA, FUNCTIONS, RUNS = 20, 250, 500, 30
TARGETS = {"inspect_ms_median": "< 100 ms"}


def _timed(action, runs: int = RUNS) -> float:
    """Median milliseconds of ``action()`` over ``runs`` calls."""
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        action()
        times.append(time.perf_counter() - began)
    return round(statistics.median(times) * 1000, 2)


def run() -> dict[str, float]:
    import psycopg

    admin_url = pg_conninfo(PG_URL)
    try:
        psycopg.connect(admin_url, connect_timeout=3).close()
    except psycopg.Error:
        return {}
    name = f"vt_bench_roles_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    url = admin_url.rsplit("/", 1)[0] + f"/{name}"
    try:
        with psycopg.connect(url, autocommit=True) as admin:
            for s in range(SCHEMAS):
                tables = "; ".join(
                    f"CREATE TABLE s{s}.t{t}(id int PRIMARY KEY, v text)"
                    for t in range(TABLES_PER_SCHEMA)
                )
                admin.execute(
                    f"CREATE SCHEMA s{s}; {tables}; CREATE SEQUENCE s{s}.q; "
                    f"CREATE VIEW s{s}.v AS SELECT id FROM s{s}.t0"
                )
            admin.execute(
                "; ".join(
                    f"CREATE FUNCTION s0.f{i}(int) RETURNS int LANGUAGE sql AS 'SELECT $1'"
                    for i in range(FUNCTIONS)
                )
            )
        reader = pg_conninfo(create_reader_role(url, [f"s{s}" for s in range(SCHEMAS)]))
        with psycopg.connect(reader, autocommit=True) as conn:
            assert not inspect_postgres_role(conn).privileged
            inspect_ms = _timed(lambda: inspect_postgres_role(conn))
            relations = conn.execute("SELECT count(*) FROM pg_class").fetchone()[0]  # type: ignore[index]

        def connect_and_inspect() -> None:
            with psycopg.connect(reader, autocommit=True) as conn:
                inspect_postgres_role(conn)

        connect_ms = _timed(lambda: psycopg.connect(reader, autocommit=True).close(), 10)
        both_ms = _timed(connect_and_inspect, 10)
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            admin.execute(f'DROP ROLE IF EXISTS "{name}_reader"')
    return {
        "relations": float(relations),
        "inspect_ms_median": inspect_ms,
        "connect_ms_median": connect_ms,
        "connect_and_inspect_ms_median": both_ms,
    }


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key}: {value}")
