"""SQL Server and Trino, compile-tested (issue 38): no server of either runs here.

* Every plan the chinook suite's questions produce is compiled for tsql and trino (and
  mysql): the text parses in that dialect, the guard accepts it, row limits are TOP on
  SQL Server, buckets use the engine's own date functions, and, run through sqlglot into
  DuckDB over a copy of Chinook, it returns the rows the SQLite answer has.
* ``Chinook_SqlServer.sql`` (a real T-SQL script) is read by the guard's dialect: every
  batch parses, its INSERTs hold the rows the SQLite file has, and the guard refuses every
  statement of it as not a query (never as unreadable).
"""

from __future__ import annotations

import csv
import re
import sqlite3
from collections.abc import Iterator
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest
import sqlglot
import yaml
from sqlglot import exp

import vitrina.ask.nodes.generate_sql as generate_sql
from vitrina.sql.guard import guard, guard_with_catalog

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "suites" / "chinook.yaml"
DIALECTS = ("tsql", "trino", "mysql")


@pytest.fixture(scope="module")
def chinook_plans(chinook_service) -> list[tuple[str, object, list[tuple]]]:
    """(case id, plan, SQLite rows) of every chinook case the rules answered."""
    captured: list = []
    real = generate_sql.compile_plan

    def spy(plan, catalog, dialect, **kwargs):
        captured.append(plan)
        return real(plan, catalog, dialect, **kwargs)

    out = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(generate_sql, "compile_plan", spy)
        for case in yaml.safe_load(SUITE.read_text(encoding="utf-8"))["cases"]:
            turns = case.get("turns") or [case["question"]]
            thread = None
            for turn in turns:
                captured.clear()
                result = chinook_service.ask(
                    turn["q"] if isinstance(turn, dict) else turn, thread_id=thread
                )
                thread = result.thread_id
            if result.status == "answered" and captured:
                out.append((case["id"], captured[-1], result.rows))
    return out


@pytest.fixture(scope="module")
def chinook_duckdb(chinook: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    """A DuckDB copy of the Chinook SQLite file (schema ``main``, dates as TIMESTAMP)."""
    path = tmp_path_factory.mktemp("chinook") / "chinook.duckdb"
    src = sqlite3.connect(f"file:{chinook}?mode=ro", uri=True)
    conn = duckdb.connect(str(path))
    for (name,) in src.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
        cols = src.execute(f'PRAGMA table_info("{name}")').fetchall()
        types = [_duck_type(c[2]) for c in cols]
        conn.execute(
            f'CREATE TABLE "{name}" ('
            + ", ".join(f'"{c[1]}" {t}' for c, t in zip(cols, types, strict=True))
            + ")"
        )
        data = path.parent / f"{name}.csv"  # COPY: executemany is a row at a time
        with data.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            for row in src.execute(f'SELECT * FROM "{name}"'):
                writer.writerow(["\\N" if v is None else v for v in row])
        conn.execute(f"COPY \"{name}\" FROM '{data}' (HEADER false, NULLSTR '\\N')")
    src.close()
    yield conn
    conn.close()


def _duck_type(sqlite_type: str) -> str:
    upper = sqlite_type.upper()
    if "DATE" in upper:
        return "TIMESTAMP"
    if "NUMERIC" in upper or "DECIMAL" in upper:
        return "DECIMAL(10,2)"
    if "INT" in upper:
        return "INTEGER"
    return "VARCHAR"


def _cell(value: object) -> object:
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal | float):
        return round(float(value), 2)
    return value


def _norm(rows: list) -> list[tuple]:
    return sorted((tuple(_cell(v) for v in row) for row in rows or []), key=repr)


def test_enough_plans(chinook_plans: list) -> None:
    assert len(chinook_plans) >= 40


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_plan_compiles_parses_and_passes_the_guard(
    chinook_plans: list, chinook_service, dialect: str
) -> None:
    catalog = chinook_service.catalog
    for case_id, plan, _ in chinook_plans:
        sql = generate_sql.compile_plan(plan, catalog, dialect)
        tree = sqlglot.parse_one(sql, read=dialect)  # raises on a parse error
        verdict = guard_with_catalog(sql, catalog, dialect=dialect, row_cap=1000)
        assert verdict.ok, (case_id, dialect, sql, verdict.violations)
        upper = verdict.sql.upper()
        assert "FILTER(" not in upper.replace(" ", "") or dialect == "trino", (case_id, sql)
        if dialect == "tsql":
            assert " LIMIT " not in f" {upper} " and "TOP " in upper, (case_id, verdict.sql)
            assert "DATE_TRUNC" not in upper and "STRFTIME" not in upper, case_id
        if plan.grain and dialect != "trino":
            assert "DATE_TRUNC" not in upper, (case_id, dialect, sql)
        assert tree.find(exp.Select) is not None


def test_tsql_and_trino_return_the_sqlite_rows(
    chinook_plans: list, chinook_service, chinook_duckdb
) -> None:
    """The compiled text, transpiled by sqlglot into DuckDB over a copy of Chinook, returns
    what the SQLite answer returned: the date functions mean what they should."""
    catalog = chinook_service.catalog
    differ = []
    for dialect in ("tsql", "trino"):
        for case_id, plan, rows in chinook_plans:
            sql = generate_sql.compile_plan(plan, catalog, dialect)
            run = sqlglot.transpile(sql, read=dialect, write="duckdb")[0]
            got = chinook_duckdb.execute(run).fetchall()
            if _norm(got) != _norm(rows):
                differ.append((dialect, case_id, sql))
    assert not differ, differ


def _batches(text: str) -> list[str]:
    return [b.strip() for b in re.split(r"^\s*GO\s*$", text, flags=re.M | re.I) if b.strip()]


def test_the_sql_server_script_is_read_as_tsql(shared_fixtures: Path, chinook: str) -> None:
    text = (shared_fixtures / "warehouses" / "chinook" / "Chinook_SqlServer.sql").read_text(
        encoding="utf-8-sig"
    )
    batches = _batches(text)
    assert len(batches) >= 30
    inserted: dict[str, int] = {}
    created: set[str] = set()
    statements = 0
    for batch in batches:
        for tree in sqlglot.parse(batch, read="tsql"):
            if tree is None:
                continue
            statements += 1
            if isinstance(tree, exp.Create) and tree.kind == "TABLE":
                created.add(tree.this.find(exp.Table).name)
            if isinstance(tree, exp.Insert):
                table = tree.this.find(exp.Table).name
                values = tree.expression
                inserted[table] = inserted.get(table, 0) + len(values.expressions)
    src = sqlite3.connect(f"file:{chinook}?mode=ro", uri=True)
    expected = {
        name: src.execute(f'SELECT COUNT(*) FROM "{name}"').fetchone()[0]
        for (name,) in src.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    }
    src.close()
    assert created == set(expected)
    assert inserted == {name: n for name, n in expected.items() if n}


def test_the_guard_refuses_the_script_as_not_a_query(shared_fixtures: Path) -> None:
    text = (shared_fixtures / "warehouses" / "chinook" / "Chinook_SqlServer.sql").read_text(
        encoding="utf-8-sig"
    )
    rules: dict[str, int] = {}
    for batch in _batches(text):
        if batch.startswith("/*") and batch.endswith("*/"):
            continue
        result = guard(batch, dialect="tsql", allowed_tables=None)
        assert not result.ok, batch[:200]
        for violation in result.violations:
            rules[violation.rule] = rules.get(violation.rule, 0) + 1
    assert "parse_error" not in rules, rules
    assert rules.get("select_only", 0) + rules.get("single_statement", 0) >= 30, rules


@pytest.mark.parametrize(
    ("dialect", "sql", "first", "count"),
    [
        ("tsql", "SELECT TOP 500 n FROM dwh.t ORDER BY n", 1, 100),
        ("tsql", "SELECT TOP 7 n FROM dwh.t ORDER BY n", 1, 7),
        ("tsql", "SELECT n FROM dwh.t ORDER BY n OFFSET 5 ROWS FETCH NEXT 500 ROWS ONLY", 6, 100),
        ("tsql", "SELECT n FROM dwh.t ORDER BY n OFFSET 5 ROWS", 6, 100),
        ("tsql", "SELECT n FROM dwh.t ORDER BY n", 1, 100),
        ("trino", "SELECT n FROM dwh.t ORDER BY n OFFSET 5 LIMIT 500", 6, 100),
        ("trino", "SELECT n FROM dwh.t ORDER BY n FETCH FIRST 500 ROWS ONLY", 1, 100),
    ],
)
def test_row_caps_in_the_dialects_own_words(dialect: str, sql: str, first: int, count: int) -> None:
    """TOP, OFFSET ... FETCH and LIMIT are capped in the dialect's syntax; the capped text,
    run through sqlglot in DuckDB over 1..1000, returns the rows it says."""
    verdict = guard(sql, dialect=dialect, allowed_tables={"dwh.t"}, row_cap=100)
    assert verdict.ok, verdict.violations
    if dialect == "tsql":
        assert "LIMIT" not in verdict.sql.upper()
    conn = duckdb.connect()
    conn.execute("CREATE SCHEMA dwh; CREATE TABLE dwh.t AS SELECT range + 1 AS n FROM range(1000)")
    rows = conn.execute(sqlglot.transpile(verdict.sql, read=dialect, write="duckdb")[0]).fetchall()
    assert [r[0] for r in rows] == list(range(first, first + count))
