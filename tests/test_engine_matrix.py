"""One answer on every engine (issue 38 item 5): the unseen suites (demo wording, TPC-H-like,
Chinook) and the rephrasing suite run on DuckDB, PostgreSQL, SQLite, ClickHouse (chDB) and
MariaDB/MySQL with the rows of the suite's home engine as the expected rows. A case that is
right on the home engine and not on another (or the reverse), or a rephrasing whose plan
gives other rows, is a bug of the compiler or the planner."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from vitrina.eval.suite import load_suite

ROOT = Path(__file__).resolve().parents[1]
ALIGNMENT_WAREHOUSE = {"demo_wording": "demo", "tpch_like": "tpch", "chinook": "chinook"}


def _engines():
    path = ROOT / "benchmarks" / "unseen" / "engines.py"
    spec = importlib.util.spec_from_file_location("unseen_engines", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("suite_name", ["demo_wording", "tpch_like", "chinook"])
def test_every_engine_gives_the_home_engines_answers(
    suite_name: str,
    chdb_installed: None,
    shared_fixtures: Path,
    pg_server_url: str,
    mysql_server_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    engines = _engines()
    monkeypatch.setattr(engines, "PG_ADMIN_URL", pg_server_url)
    monkeypatch.setattr(engines, "MYSQL_ADMIN_URL", mysql_server_url)
    source, suite_path = engines.sources(tmp_path, shared_fixtures)[suite_name]()
    chdb_folder = tmp_path / "chdb"
    with engines.loaded_everywhere(source, engines.ENGINES, tmp_path / "on", chdb_folder) as on:
        home = on[source.home]
        suite = engines.with_expected_rows(load_suite(suite_path), home)
        base = engines.outcomes(suite, home, tmp_path / "home.sqlite")
        assert "answered_wrong" not in base.values(), base
        assert sum(v == "right" for v in base.values()) >= 0.8 * len(base), base
        want = engines.alignment_rows(home, ALIGNMENT_WAREHOUSE[suite_name])
        assert want, "the rephrasing suite has plans on this warehouse"
        for engine, loaded in on.items():
            if engine == source.home:
                continue
            got = engines.outcomes(suite, loaded, tmp_path / f"{engine}.sqlite")
            differ = {k: (base[k], got.get(k)) for k in base if got.get(k) != base[k]}
            assert differ == {}, f"{suite_name} on {engine} differs from {source.home}"
            rows = engines.alignment_rows(loaded, ALIGNMENT_WAREHOUSE[suite_name])
            moved = [q for q in want if rows.get(q) != want[q]]
            assert moved == [], f"rephrasings on {engine} give other rows than {source.home}"


def test_the_engine_list_names_every_engine_run_here() -> None:
    assert _engines().ENGINES == ("duckdb", "postgres", "sqlite", "clickhouse", "mysql")


def test_the_mysql_copy_is_read_only_and_indexed_on_the_join_columns(
    shared_fixtures: Path, mysql_server_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The MariaDB copy answers through a reader that cannot write, and its join columns
    carry indexes (without them MariaDB's nested-loop joins time out on the suites)."""
    from vitrina.warehouse import Warehouse
    from vitrina.warehouse.mysql_load import admin_connection

    engines = _engines()
    monkeypatch.setattr(engines, "MYSQL_ADMIN_URL", mysql_server_url)
    source, _ = engines.sources(tmp_path, shared_fixtures)["chinook"]()
    loaded = engines.load(source, "mysql", tmp_path / "on", tmp_path / "chdb")
    try:
        database = loaded.url.rsplit("/", 1)[1]
        warehouse = Warehouse(loaded.url)
        try:
            rows = warehouse.execute("SELECT COUNT(*) FROM invoiceline").rows
            assert rows[0][0] == source.tables["InvoiceLine"].num_rows
        finally:
            warehouse.close()
        reader = admin_connection(loaded.url, database=database)
        try:
            with reader.cursor() as cur, pytest.raises(Exception, match="denied"):
                cur.execute("DELETE FROM invoiceline")
        finally:
            reader.close()
        admin = admin_connection(mysql_server_url)
        try:
            with admin.cursor() as cur:
                cur.execute(
                    "SELECT LOWER(COLUMN_NAME) FROM information_schema.STATISTICS "
                    "WHERE TABLE_SCHEMA = %s AND TABLE_NAME = 'invoiceline'",
                    (database,),
                )
                indexed = {r[0] for r in cur.fetchall()}
        finally:
            admin.close()
        assert indexed == {"invoiceid", "trackid"}
    finally:
        loaded.cleanup()
