"""A plain file path as --db: the file's header decides the engine; URLs pass unchanged."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import duckdb
from typer.testing import CliRunner

from vitrina.config import load_settings
from vitrina.warehouse.url import as_warehouse_url


def test_the_header_decides_not_the_suffix(tmp_path: Path) -> None:
    lite = tmp_path / "shop.data"
    sqlite3.connect(lite).execute("CREATE TABLE t (x INT)").connection.close()
    duck = tmp_path / "dwh.data"
    duckdb.connect(str(duck)).execute("CREATE TABLE t (x INT)").close()
    assert as_warehouse_url(str(lite)) == f"sqlite:///file:{lite}?mode=ro&uri=true"
    assert as_warehouse_url(str(duck)) == f"duckdb:///{duck}"
    assert as_warehouse_url("missing.sqlite").startswith("sqlite:///file:")
    assert as_warehouse_url("postgresql://r@h/db") == "postgresql://r@h/db"
    assert as_warehouse_url("no-such-thing") == "no-such-thing"  # refused later, in one line


def test_settings_take_a_plain_path(demo_db: Path) -> None:
    assert load_settings(db_url=str(demo_db)).warehouse_url == f"duckdb:///{demo_db.resolve()}"


def test_ask_with_a_plain_duckdb_path_answers(demo_db: Path) -> None:
    from vitrina.cli import app

    question = "Сколько клиентов в каждом регионе?"
    out = CliRunner().invoke(app, ["ask", "--no-llm", "--json", question, "--db", str(demo_db)])
    assert out.exit_code == 0, out.output
    assert '"status": "answered"' in out.output


def test_a_plain_sqlite_path_is_opened_read_only(tmp_path: Path) -> None:
    """Least privilege below the guard: the connection itself cannot write."""
    import pytest

    from vitrina.warehouse import Warehouse, WarehouseError

    lite = tmp_path / "shop.db"
    sqlite3.connect(lite).execute("CREATE TABLE t (x INT)").connection.close()
    warehouse = Warehouse(as_warehouse_url(str(lite)))
    try:
        assert warehouse.execute("SELECT COUNT(*) FROM t").rows[0][0] == 0
        with pytest.raises(WarehouseError, match="readonly"):
            warehouse.execute("INSERT INTO t VALUES (1)")
    finally:
        warehouse.close()
    assert sqlite3.connect(lite).execute("SELECT COUNT(*) FROM t").fetchone() == (0,)


def test_a_statement_without_rows_is_a_warehouse_error(tmp_path: Path) -> None:
    """Not an AttributeError from the error handling (ResourceClosedError has no .orig)."""
    import pytest

    from vitrina.warehouse import Warehouse, WarehouseError

    lite = tmp_path / "shop.db"
    sqlite3.connect(lite).execute("CREATE TABLE t (x INT)").connection.close()
    warehouse = Warehouse(f"sqlite:///{lite}")
    try:
        with pytest.raises(WarehouseError):
            warehouse.execute("INSERT INTO t VALUES (1)")
    finally:
        warehouse.close()
    assert sqlite3.connect(lite).execute("SELECT COUNT(*) FROM t").fetchone() == (0,)  # rolled back
