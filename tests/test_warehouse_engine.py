"""Read-only execution on real engines: the connection refuses writes, caps rows, times out."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from vitrina.warehouse import Warehouse, WarehouseError, dialect_of


@pytest.fixture
def small_duckdb(tmp_path: Path) -> Path:
    path = tmp_path / "w.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE SCHEMA s; CREATE TABLE s.t AS SELECT range AS id FROM range(50)")
    con.close()
    return path


def test_dialects() -> None:
    assert dialect_of("duckdb:///x.duckdb") == "duckdb"
    assert dialect_of("postgresql+psycopg://u@h/db") == "postgres"


def test_duckdb_is_read_only(small_duckdb: Path) -> None:
    wh = Warehouse(f"duckdb:///{small_duckdb}")
    with pytest.raises(WarehouseError, match="read-only"):
        wh.execute("CREATE TABLE s.x (a INT)")
    assert wh.execute("SELECT count(*) FROM s.t").rows == [(50,)]


def test_row_cap_truncates_and_says_so(small_duckdb: Path) -> None:
    result = Warehouse(f"duckdb:///{small_duckdb}", row_cap=10).execute(
        "SELECT id FROM s.t ORDER BY id"
    )
    assert result.row_count == 10 and result.truncated


def test_timeout_stops_a_long_query(small_duckdb: Path) -> None:
    wh = Warehouse(f"duckdb:///{small_duckdb}", timeout_s=0.3)
    with pytest.raises(WarehouseError) as info:
        wh.execute("SELECT count(*) FROM range(100000000000) a")
    assert info.value.kind == "timeout"


def test_explain_reports_compile_errors(small_duckdb: Path) -> None:
    wh = Warehouse(f"duckdb:///{small_duckdb}")
    with pytest.raises(WarehouseError) as info:
        wh.explain("SELECT missing_column FROM s.t")
    assert info.value.kind == "compile" and "missing_column" in str(info.value)
    wh.explain("SELECT id FROM s.t")  # a valid query plans without error


COMPILE_CASES = [
    "SELECT nope FROM s.t",
    "SELECT id + 'abc' FROM s.t",  # types resolved when it runs: both pass
    "SELECT id FROM s.t a JOIN s.t b ON a.id = b.id",  # ambiguous
    "SELECT no_such_function(id) FROM s.t",
    "SELECT id, SUM(id) FROM s.t",  # not grouped
    "SELECT SUM(id) OVER (PARTITION BY nope) FROM s.t",
    "SELECT id FROM s.t GROUP BY 1 HAVING SUM(id) > 'x'",
    "SELECT id FROM s.t UNION SELECT 1, 2",
    "WITH x AS (SELECT id FROM s.t) SELECT missing FROM x",
    "SELECT * FROM s.no_table",
    "WITH x AS (SELECT id FROM s.t) SELECT SUM(id) FROM x",
    "SELECT CAST('x' AS DATE)",
]


def _explained(path: Path, sql: str) -> str | None:
    try:
        duckdb.connect(str(path), read_only=True).execute("EXPLAIN " + sql)
    except duckdb.Error as exc:
        return str(exc).splitlines()[0]
    return None


@pytest.mark.parametrize("sql", COMPILE_CASES)
def test_compile_check_fails_as_explain_does(small_duckdb: Path, sql: str) -> None:
    """DuckDB's compile check is DESCRIBE (it skips the optimizer): it fails when EXPLAIN
    fails, with the same message, and passes when EXPLAIN passes."""
    wh = Warehouse(f"duckdb:///{small_duckdb}")
    try:
        wh.explain(sql)
        got = None
    except WarehouseError as exc:
        assert exc.kind == "compile"
        got = str(exc)
    assert got == _explained(small_duckdb, sql)


def test_most_compile_cases_fail(small_duckdb: Path) -> None:
    """The comparison above is between errors, not between two passes."""
    assert sum(_explained(small_duckdb, q) is not None for q in COMPILE_CASES) >= 8
