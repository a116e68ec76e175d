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


def test_missing_file_is_a_connect_error(tmp_path: Path) -> None:
    wh = Warehouse(f"duckdb:///{tmp_path / 'none.duckdb'}")
    assert "not found" in (wh.ping() or "")


@pytest.mark.postgres
def test_postgres_is_read_only_with_a_timeout(pg_url: str) -> None:
    from vitrina.warehouse.reader_role import create_reader_role

    reader = create_reader_role(pg_url, ["public"])
    wh = Warehouse(reader.replace("postgresql://", "postgresql+psycopg://"), timeout_s=0.5)
    with pytest.raises(WarehouseError, match="read-only"):
        wh.execute("CREATE TABLE vitrina_should_not_exist (a int)")
    with pytest.raises(WarehouseError) as info:
        wh.execute("SELECT pg_catalog.pg_sleep(3)")
    assert info.value.kind == "timeout"
    assert wh.execute("SELECT 1 AS one").rows == [(1,)]
    wh.close()


def test_wrong_postgres_url_is_a_clear_error() -> None:
    wh = Warehouse("postgresql+psycopg://nobody@127.0.0.1:1/none")
    assert (wh.ping() or "").startswith("cannot connect to PostgreSQL")


def test_duckdb_threads_and_no_progress_bar(small_duckdb: Path) -> None:
    """A server process gets its share of the cores, and DuckDB never draws on the terminal."""
    wh = Warehouse(f"duckdb:///{small_duckdb}", duckdb_threads=1)
    threads, bar = wh.execute(
        "SELECT current_setting('threads'), current_setting('enable_progress_bar')"
    ).rows[0]
    assert (int(threads), bar) == (1, False)
    with pytest.raises(WarehouseError):  # and the configuration is still locked after it
        wh.execute("SET threads = 4")
    wh.close()
