"""Check that every reference query of suites/chinook_pg.yaml says what the SQLite one says.

Why: the PostgreSQL suite's reference SQL was rewritten by hand (snake_case names,
date_trunc, EXTRACT(DOW)); a slip there would score a right answer wrong or a wrong one
right. Each case's reference runs on the SQLite fixture and on the loaded PostgreSQL schema
(as the reader role) and the rows are compared the way the eval runner compares them, with
SQLite's ISO date text read as dates.

    python benchmarks/unseen/check_chinook_pg.py   # loads, checks and drops its own schema
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import sqlite3
import sys
from pathlib import Path
from typing import Any

import psycopg

from vitrina.eval.compare import compare_results
from vitrina.eval.suite import load_suite

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SQLITE = ROOT.parent / "shared" / "fixtures" / "warehouses" / "chinook" / "Chinook_Sqlite.sqlite"


def _loader():
    spec = importlib.util.spec_from_file_location("unseen_chinook_pg", HERE / "chinook_pg.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _as_date(value: Any) -> Any:
    """SQLite keeps dates as ISO text: '2024-01-01' or '2024-01-01 00:00:00' is that date."""
    if isinstance(value, str) and len(value) in (10, 19) and value[4:5] == "-":
        try:
            parsed = dt.datetime.fromisoformat(value)
        except ValueError:
            return value
        return parsed.date() if parsed.time() == dt.time(0) else parsed
    return value


def mismatches(reader_url: str, sqlite_path: Path = SQLITE) -> list[str]:
    """One line per case whose PostgreSQL reference rows differ from the SQLite ones."""
    sqlite_suite = load_suite(ROOT / "suites" / "chinook.yaml")
    pg_suite = load_suite(ROOT / "suites" / "chinook_pg.yaml")
    lite_refs = {c.id: c.reference_sql for c in sqlite_suite.cases}
    problems: list[str] = []
    if [c.id for c in sqlite_suite.cases] != [c.id for c in pg_suite.cases]:
        problems.append("the two suites do not hold the same case ids in the same order")
    lite = sqlite3.connect(f"file:{sqlite_path}?mode=ro", uri=True)
    try:
        with psycopg.connect(reader_url.replace("postgresql+psycopg://", "postgresql://")) as pg:
            for case in pg_suite.cases:
                if (case.reference_sql is None) != (lite_refs.get(case.id) is None):
                    problems.append(f"{case.id}: a reference in one suite only")
                if case.reference_sql is None or lite_refs.get(case.id) is None:
                    continue
                want = [tuple(_as_date(v) for v in r) for r in lite.execute(lite_refs[case.id])]
                got = pg.execute(case.reference_sql).fetchall()
                pg.rollback()
                outcome = compare_results(want, got, ordered=case.is_ordered)
                if not outcome.ok or not want:
                    problems.append(f"{case.id}: {outcome.diff or 'no rows'}")
    finally:
        lite.close()
    return problems


def main() -> None:
    loader = _loader()
    loaded = loader.load()
    try:
        problems = mismatches(loaded.reader_url)
    finally:
        loader.drop(loaded)
    for line in problems:
        print(line)
    print(f"{len(problems)} reference queries differ between SQLite and PostgreSQL")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
