"""Time buckets and weekday tests per engine (vitrina.sql.dates), run on the engines: SQLite
(Python's sqlite3, dates stored as Chinook stores them, 'YYYY-MM-DD HH:MM:SS' text), DuckDB,
and MariaDB when reachable; SQL Server's forms are checked by transpiling them into DuckDB,
which then runs them (no SQL Server here)."""

from __future__ import annotations

import sqlite3
from datetime import date, timedelta

import duckdb
import pytest
import sqlglot
from sqlglot import exp

from vitrina.sql.dates import GRAINS, day_kind_condition, grain_expr
from vitrina.warehouse.mysql_load import admin_connection

# month ends, a leap day, year ends, every weekday, quarter starts
DAYS = [
    date(2024, 1, 1), date(2024, 2, 29), date(2024, 3, 31), date(2024, 4, 1), date(2024, 6, 30),
    date(2024, 7, 6), date(2024, 7, 7), date(2024, 9, 30), date(2024, 12, 29), date(2024, 12, 31),
    date(2025, 1, 5), date(2023, 10, 1), date(2021, 1, 1),
] + [date(2024, 5, 6) + timedelta(days=i) for i in range(7)]  # fmt: skip


def expected_bucket(day: date, grain: str) -> date:
    if grain == "day":
        return day
    if grain == "week":
        return day - timedelta(days=day.weekday())
    if grain == "month":
        return day.replace(day=1)
    if grain == "quarter":
        return date(day.year, (day.month - 1) // 3 * 3 + 1, 1)
    return date(day.year, 1, 1)


def _as_date(value: object) -> date:
    return date.fromisoformat(str(value)[:10])


def _select(dialect: str, grain: str | None, kind: str | None) -> str:
    column = exp.column("d", table="t")
    if grain:
        expr = grain_expr(grain, column, dialect)
    else:
        expr = (
            exp.Case().when(day_kind_condition(kind or "weekend", column, dialect), "1").else_("0")
        )
    return exp.select(expr).from_(exp.to_table("t")).sql(dialect=dialect)


@pytest.mark.parametrize("grain", GRAINS)
def test_sqlite_buckets(grain: str) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (d TEXT)")
    for day in DAYS:
        conn.execute("DELETE FROM t")
        conn.execute("INSERT INTO t VALUES (?)", (f"{day.isoformat()} 13:45:00",))
        (got,) = conn.execute(_select("sqlite", grain, None)).fetchone()
        assert _as_date(got) == expected_bucket(day, grain), (day, grain, got)


@pytest.mark.parametrize("dialect", ["duckdb", "tsql"])
@pytest.mark.parametrize("grain", GRAINS)
def test_duckdb_and_transpiled_tsql_buckets(dialect: str, grain: str) -> None:
    conn = duckdb.connect()
    conn.execute("CREATE TABLE t (d TIMESTAMP)")
    for day in DAYS:
        conn.execute("DELETE FROM t")
        conn.execute("INSERT INTO t VALUES (?)", [f"{day.isoformat()} 13:45:00"])
        sql = _select(dialect, grain, None)
        if dialect != "duckdb":
            sql = sqlglot.transpile(sql, read=dialect, write="duckdb")[0]
        (got,) = conn.execute(sql).fetchone()
        assert _as_date(got) == expected_bucket(day, grain), (day, grain, sql)


@pytest.mark.parametrize("dialect", ["sqlite", "duckdb", "tsql"])
def test_weekend_and_weekday(dialect: str) -> None:
    for kind in ("weekend", "weekday"):
        sql = _select(dialect, None, kind)
        for day in DAYS:
            stamp = f"{day.isoformat()} 13:45:00"
            if dialect == "sqlite":
                conn = sqlite3.connect(":memory:")
                conn.execute("CREATE TABLE t (d TEXT)")
                conn.execute("INSERT INTO t VALUES (?)", (stamp,))
                (got,) = conn.execute(sql).fetchone()
            else:
                run = (
                    sql
                    if dialect == "duckdb"
                    else sqlglot.transpile(sql, read="tsql", write="duckdb")[0]
                )
                conn = duckdb.connect()
                conn.execute("CREATE TABLE t (d TIMESTAMP)")
                conn.execute("INSERT INTO t VALUES (?)", [stamp])
                (got,) = conn.execute(run).fetchone()
            weekend = day.weekday() >= 5
            assert int(got) == int(weekend if kind == "weekend" else not weekend), (day, kind, sql)


@pytest.mark.mysql
def test_mysql_buckets_and_weekends_on_the_server(mysql_server_url: str) -> None:
    with (
        admin_connection(mysql_server_url) as conn,
        conn.cursor() as cur,
    ):
        cur.execute("CREATE TEMPORARY TABLE t (d DATETIME)")
        for day in DAYS:
            cur.execute("DELETE FROM t")
            cur.execute("INSERT INTO t VALUES (%s)", (f"{day.isoformat()} 13:45:00",))
            for grain in GRAINS:
                cur.execute(_select("mysql", grain, None))
                got = cur.fetchone()[0]
                assert _as_date(got) == expected_bucket(day, grain), (day, grain)
            for kind in ("weekend", "weekday"):
                cur.execute(_select("mysql", None, kind))
                weekend = day.weekday() >= 5
                want = weekend if kind == "weekend" else not weekend
                assert int(cur.fetchone()[0]) == int(want), (day, kind)


def test_trino_uses_its_own_functions() -> None:
    column = exp.column("d", table="t")
    month = grain_expr("month", column, "trino").sql(dialect="trino")
    weekend = day_kind_condition("weekend", column, "trino").sql(dialect="trino")
    assert month == "CAST(DATE_TRUNC('month', t.d) AS DATE)"
    assert weekend == "DAY_OF_WEEK(t.d) IN (6, 7)"
    with pytest.raises(ValueError, match="unknown time grain"):
        grain_expr("fortnight", column, "sqlite")
