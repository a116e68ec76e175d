"""Time the full-size demo build, its PostgreSQL copy and introspection.

    .venv/bin/python benchmarks/bench_demo_build.py

The PostgreSQL numbers are measured only when VITRINA_TEST_PG_URL (default
postgresql://postgres@127.0.0.1:5432/test) is reachable; the load goes into a scratch
schema that is dropped afterwards.
"""

from __future__ import annotations

import os
import tempfile
import time
import uuid
from pathlib import Path

from vitrina.warehouse.demo import build_demo_warehouse
from vitrina.warehouse.introspect import introspect
from vitrina.warehouse.pg_load import load_demo_into_postgres, pg_conninfo

TARGETS = {"build_seconds": "< 60 s", "pg_load_seconds": "< 60 s"}
PG_URL = os.environ.get("VITRINA_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")


def _pg_reachable(url: str) -> bool:
    try:
        import psycopg

        with psycopg.connect(pg_conninfo(url), connect_timeout=3):
            return True
    except Exception:  # any failure means "skip the PostgreSQL part"
        return False


def run() -> dict[str, float]:
    """Seconds and row counts of one full-size build (and PG load when reachable)."""
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="vitrina-bench-") as tmp:
        stats = build_demo_warehouse(Path(tmp) / "demo.duckdb")
        out["build_seconds"] = stats.seconds
        out["rows_total"] = float(sum(stats.rows.values()))
        out["rows_fact_payment"] = float(stats.rows["fact_payment"])
        out["file_mib"] = round(stats.path.stat().st_size / 2**20, 1)
        t0 = time.perf_counter()
        introspect(f"duckdb:///{stats.path}")
        out["introspect_duckdb_seconds"] = round(time.perf_counter() - t0, 3)
        if _pg_reachable(PG_URL):
            import psycopg

            schema = f"vitrina_bench_{uuid.uuid4().hex[:8]}"
            try:
                t0 = time.perf_counter()
                load_demo_into_postgres(stats.path, PG_URL, schema=schema)
                out["pg_load_seconds"] = round(time.perf_counter() - t0, 3)
                t0 = time.perf_counter()
                introspect(PG_URL, schemas=[schema])
                out["introspect_pg_seconds"] = round(time.perf_counter() - t0, 3)
            finally:
                with psycopg.connect(pg_conninfo(PG_URL), autocommit=True) as c:
                    c.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    return out


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:28} {value:>14,.3f}")
