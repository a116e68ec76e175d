"""The unseen suites' warehouses on every engine: load them, and run one suite on each with
the rows its home engine gives as the expected rows.

Why: the same question must get the same answer whatever the warehouse runs on (issue 38
item 5). Each suite has a home engine where its reference SQL is written (DuckDB for the
demo and the TPC-H-like star, SQLite for Chinook); the reference rows are read there once
and every other engine must produce them. Loading is code, not a script per engine: the
tables travel as Arrow tables (from a DuckDB file or the Chinook SQLite file) into

* DuckDB: a new file;
* PostgreSQL: a schema of the run's own with a reader role whose search_path it is;
* SQLite: a new file (no schemas: a catalog's ``dwh.`` prefix is rendered away);
* ClickHouse: a database in a chDB folder (chDB holds one folder per process: every
  suite shares it);
* MariaDB/MySQL: a new database per source with a SELECT-only reader account (the one
  ``vitrina demo --load-mysql`` makes); table names in lower case, as the catalogs write
  them (MySQL's table names are case-sensitive on Linux).

    python benchmarks/unseen/engines.py [--engines duckdb,sqlite,clickhouse] [--show]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import secrets
import shutil
import sqlite3
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))  # score.py, tpch_like.py
# The engines every suite runs on, in order; the first a suite names is not its home.
ENGINES: tuple[str, ...] = ("duckdb", "postgres", "sqlite", "clickhouse", "mysql")
PG_ADMIN_URL = os.environ.get("VITRINA_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
MYSQL_ADMIN_URL = os.environ.get("VITRINA_TEST_MYSQL_URL", "mysql://root@127.0.0.1:3306/test")
DEMO_CATALOG = ROOT / "src" / "vitrina" / "demo_catalog"
CHINOOK_SQLITE_TYPES = {  # Chinook's declared SQLite types, as Arrow types
    "INTEGER": "int64",
    "NUMERIC(10,2)": "decimal",
    "DATETIME": "timestamp",
}


@dataclass(frozen=True)
class Source:
    """One suite's warehouse as tables: ``schema`` is the prefix its catalog's table names
    carry (``dwh``, ``main``), ``home`` the engine its reference SQL is written for."""

    name: str
    tables: dict[str, Any]  # name -> pyarrow Table
    schema: str
    catalog: Path
    home: str


@dataclass
class Loaded:
    """A source on one engine: the URL to ask, the catalog to ask with, and the clean-up."""

    engine: str
    url: str
    catalog: Path
    cleanup: Callable[[], None] = lambda: None


# ---------------------------------------------------------------- sources


def duckdb_source(name: str, path: Path, schema: str, catalog: Path) -> Source:
    """A DuckDB file's schema (the demo's ``dwh``, the TPC-H-like star's ``main``)."""
    from vitrina.warehouse.clickhouse_load import duckdb_tables

    return Source(name, dict(duckdb_tables(path, schema)), schema, catalog, "duckdb")


def _chinook_type(declared: str) -> Any:
    import pyarrow as pa

    kind = CHINOOK_SQLITE_TYPES.get(declared.upper(), "string")
    return {
        "int64": pa.int64(),
        "decimal": pa.decimal128(10, 2),
        "timestamp": pa.timestamp("us"),
        "string": pa.string(),
    }[kind]


def _chinook_value(value: Any, kind: Any) -> Any:
    import pyarrow as pa

    if value is None:
        return None
    if pa.types.is_decimal(kind):
        return Decimal(str(value)).quantize(Decimal("0.01"))
    if pa.types.is_timestamp(kind):
        from datetime import datetime

        return datetime.fromisoformat(str(value))
    return value


def sqlite_source(name: str, path: Path, catalog: Path) -> Source:
    """Every table of a SQLite file (Chinook), typed by its declared column types."""
    import pyarrow as pa

    uri = f"file:{path}?mode=ro"
    tables: dict[str, Any] = {}
    with contextlib.closing(sqlite3.connect(uri, uri=True)) as con:
        names = [
            r[0]
            for r in con.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE "
                "'sqlite_%' ORDER BY name"
            )
        ]
        for table in names:
            info = con.execute(f'PRAGMA table_info("{table}")').fetchall()
            fields = [pa.field(c[1], _chinook_type(c[2]), nullable=not c[3]) for c in info]
            rows = con.execute(f'SELECT * FROM "{table}"').fetchall()
            columns = [
                [_chinook_value(row[i], f.type) for row in rows] for i, f in enumerate(fields)
            ]
            tables[table] = pa.table(
                [pa.array(col, type=f.type) for col, f in zip(columns, fields, strict=True)],
                schema=pa.schema(fields),
            )
    return Source(name, tables, "main", catalog, "sqlite")


# ---------------------------------------------------------------- catalogs


def render_catalog(source: Source, out: Path, new: str) -> Path:
    """The source's catalog, its table prefix ``schema.`` renamed to ``new.``."""
    if new == source.schema:
        return source.catalog
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    qualified = re.compile(rf"\b{source.schema}\.(?=[A-Za-z_]+\b)")
    for path in sorted(source.catalog.rglob("*.yaml")):  # the demo's tables/ folder too
        target = out / path.relative_to(source.catalog)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(qualified.sub(f"{new}.", path.read_text(encoding="utf-8")), "utf-8")
    return out


# ---------------------------------------------------------------- loaders


def load_duckdb(source: Source, folder: Path) -> Loaded:
    import duckdb

    path = folder / f"{source.name}.duckdb"
    path.unlink(missing_ok=True)
    con = duckdb.connect(str(path))
    try:
        con.execute(f'CREATE SCHEMA IF NOT EXISTS "{source.schema}"')
        prefix = f'"{source.schema}".'
        for name, table in source.tables.items():
            con.register("_src", table)
            con.execute(f'CREATE TABLE {prefix}"{name}" AS SELECT * FROM _src')
            con.unregister("_src")
    finally:
        con.close()
    return Loaded("duckdb", f"duckdb:///{path}", source.catalog)


_SQLITE_TYPES = (
    ("is_integer", "INTEGER"),
    ("is_boolean", "INTEGER"),
    ("is_floating", "REAL"),
    ("is_decimal", "NUMERIC"),
    ("is_date", "DATE"),
    ("is_timestamp", "DATETIME"),
)


def _sqlite_type(kind: Any) -> str:
    import pyarrow as pa

    return next((t for test, t in _SQLITE_TYPES if getattr(pa.types, test)(kind)), "TEXT")


def _sqlite_cell(value: Any) -> Any:
    """Values as SQLite keeps them: decimals as REAL (as Chinook's own file has them), dates
    and timestamps as ISO text."""
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, date):  # a datetime too: 'YYYY-MM-DD HH:MM:SS'
        return value.isoformat(sep=" ") if hasattr(value, "hour") else value.isoformat()
    return value


def load_sqlite(source: Source, folder: Path) -> Loaded:
    path = folder / f"{source.name}.sqlite"
    path.unlink(missing_ok=True)
    with contextlib.closing(sqlite3.connect(path)) as con:
        for name, table in source.tables.items():
            cols = ", ".join(f'"{f.name}" {_sqlite_type(f.type)}' for f in table.schema)
            con.execute(f'CREATE TABLE "{name}" ({cols})')
            marks = ", ".join("?" * len(table.schema))
            for batch in table.to_batches(max_chunksize=50_000):
                rows = zip(*(c.to_pylist() for c in batch.columns), strict=True)
                con.executemany(
                    f'INSERT INTO "{name}" VALUES ({marks})',
                    (tuple(_sqlite_cell(v) for v in row) for row in rows),
                )
        con.commit()
    # no schemas in SQLite: its one database is ``main``
    catalog = render_catalog(source, folder / f"{source.name}_sqlite", "main")
    return Loaded("sqlite", f"sqlite:///file:{path}?mode=ro&uri=true", catalog)


def load_clickhouse(source: Source, folder: Path, chdb_folder: Path) -> Loaded:
    from vitrina.warehouse.clickhouse_load import load_arrow_tables

    url = f"chdb:///{chdb_folder}"
    # one chDB folder holds every suite: a database each (``main`` would mix TPC-H's
    # customer with Chinook's); names as the catalog writes them (ClickHouse is case-sensitive)
    database = source.schema if source.schema != "main" else source.name
    tables = {name.lower(): table for name, table in source.tables.items()}
    load_arrow_tables(url, database, tables)
    return Loaded("clickhouse", url, render_catalog(source, folder / "catalog", database))


def load_postgres(source: Source, folder: Path, admin_url: str = PG_ADMIN_URL) -> Loaded:
    """The tables in a new schema, a reader role whose search_path it is (unqualified names
    resolve there; PostgreSQL folds unquoted names to lower case, so the tables are created
    unquoted and Chinook's PascalCase names find them)."""
    import psycopg
    from chinook_pg import create_reader_role
    from psycopg import sql

    from vitrina.warehouse.pg_load import pg_conninfo, pg_type
    from vitrina.warehouse.reader_role import reader_url

    admin_url = pg_conninfo(admin_url)
    schema = f"eng_{source.name}_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    role, password = f"{schema}_reader", secrets.token_urlsafe(18)
    with psycopg.connect(admin_url) as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
        for name, table in source.tables.items():
            cols = sql.SQL(", ").join(
                sql.SQL(f"{f.name} {pg_type(_duckdb_type(f.type))}") for f in table.schema
            )
            ident = sql.SQL(f"{schema}.{name}")
            conn.execute(sql.SQL("CREATE TABLE {} ({})").format(ident, cols))
            with conn.cursor().copy(sql.SQL("COPY {} FROM STDIN").format(ident)) as copy:
                for batch in table.to_batches(max_chunksize=50_000):
                    for row in zip(*(c.to_pylist() for c in batch.columns), strict=True):
                        copy.write_row(row)
        create_reader_role(conn, schema, role, password)
    catalog = render_catalog(source, folder / f"{source.name}_pg", schema)

    def cleanup() -> None:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
            conn.execute(sql.SQL("DROP OWNED BY {}").format(sql.Identifier(role)))
            conn.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(role)))

    return Loaded("postgres", reader_url(admin_url, role, password), catalog, cleanup)


def join_columns(catalog: Path) -> dict[str, set[str]]:
    """table -> the columns the catalog's relations join on (a warehouse's keys: the
    MariaDB copy indexes them as a DBA would)."""
    from vitrina.catalog import load_catalog

    out: dict[str, set[str]] = {}
    for relation in load_catalog(catalog).relations:
        for side in (relation.left, relation.right):
            table, column = side.split(".")[-2:]
            out.setdefault(table, set()).add(column)
    return out


def load_mysql(source: Source, folder: Path, admin_url: str | None = None) -> Loaded:
    """The tables in a new database with a SELECT-only reader account (its own URL)."""
    from vitrina.warehouse.mysql_grants import mysql_reader_name
    from vitrina.warehouse.mysql_load import (
        admin_connection,
        ensure_mysql_reader,
        ident,
        load_arrow_tables,
    )

    admin_url = admin_url or MYSQL_ADMIN_URL
    database = f"eng_{source.name}_{uuid.uuid4().hex[:8]}"
    tables = {name.lower(): table for name, table in source.tables.items()}
    load_arrow_tables(admin_url, database, tables, indexes=join_columns(source.catalog))
    reader = ensure_mysql_reader(admin_url, database)
    if reader.problems:
        raise RuntimeError(f"the MySQL reader can do more than read: {reader.problems}")
    catalog = render_catalog(source, folder / f"{source.name}_mysql", database)

    def cleanup() -> None:
        conn = admin_connection(admin_url)
        try:
            with conn.cursor() as cur:
                cur.execute(f"DROP DATABASE IF EXISTS {ident(database)}")
                cur.execute(f"DROP USER IF EXISTS '{mysql_reader_name(database)}'@'%'")
        finally:
            conn.close()

    return Loaded("mysql", reader.url, catalog, cleanup)


def _duckdb_type(kind: Any) -> str:
    """The DuckDB type name of an Arrow type, for pg_load.pg_type."""
    import pyarrow as pa

    if pa.types.is_decimal(kind):
        return f"DECIMAL({kind.precision},{kind.scale})"
    for test, name in (
        ("is_boolean", "BOOLEAN"),
        ("is_int32", "INTEGER"),
        ("is_int64", "BIGINT"),
        ("is_int16", "SMALLINT"),
        ("is_floating", "DOUBLE"),
        ("is_date", "DATE"),
        ("is_timestamp", "TIMESTAMP"),
    ):
        if getattr(pa.types, test)(kind):
            return name
    return "VARCHAR"


def load(source: Source, engine: str, folder: Path, chdb_folder: Path) -> Loaded:
    """``source`` on ``engine`` (its home engine too: a copy, so every run is alike)."""
    folder.mkdir(parents=True, exist_ok=True)
    if engine == "duckdb":
        return load_duckdb(source, folder)
    if engine == "sqlite":
        return load_sqlite(source, folder)
    if engine == "clickhouse":
        return load_clickhouse(source, folder, chdb_folder)
    if engine == "postgres":
        return load_postgres(source, folder)
    if engine == "mysql":
        return load_mysql(source, folder)
    raise ValueError(f"no loader for engine {engine!r}; engines: {', '.join(ENGINES)}")


# ---------------------------------------------------------------- running


def with_expected_rows(suite: Any, home: Loaded) -> Any:
    """The suite with every reference SQL replaced by the rows it gives on the home engine
    (read once there: every engine is held to the same rows)."""
    from vitrina.warehouse import Warehouse

    warehouse = Warehouse(home.url, row_cap=10_000_000)
    try:
        cases = []
        for case in suite.cases:
            if case.reference_sql is None:
                cases.append(case)
                continue
            rows = [list(r) for r in warehouse.execute(case.reference_sql).rows]
            cases.append(case.model_copy(update={"reference_sql": None, "reference_rows": rows}))
    finally:
        warehouse.close()
    return suite.model_copy(update={"cases": cases})


def outcomes(
    suite: Any, loaded: Loaded, store_path: Path, reasons: dict[str, str] | None = None
) -> dict[str, str]:
    """case id -> bucket (right, answered_wrong, refused, clarified) of one run; ``reasons``
    gets each case's reason (what went wrong) when given."""
    from score import bucket  # type: ignore[import-not-found]  # this folder's scorer

    from vitrina.catalog import load_catalog
    from vitrina.eval.runner import run_suite
    from vitrina.eval.store import EvalStore

    run = run_suite(
        suite,
        store=EvalStore(store_path),
        db_url=loaded.url,
        catalog=load_catalog(loaded.catalog),
    )
    if reasons is not None:
        reasons.update({c.case_id: f"{c.status}: {c.reason or c.answer or ''}" for c in run.cases})
    return {c.case_id: bucket(c.expect, c.status, c.final) for c in run.cases}


@contextlib.contextmanager
def loaded_everywhere(
    source: Source, engines: tuple[str, ...], folder: Path, chdb_folder: Path
) -> Iterator[dict[str, Loaded]]:
    """``source`` on each engine; every copy dropped afterwards."""
    done: dict[str, Loaded] = {}
    try:
        for engine in engines:
            done[engine] = load(source, engine, folder / engine, chdb_folder)
        yield done
    finally:
        for item in done.values():
            with contextlib.suppress(Exception):
                item.cleanup()


def sources(folder: Path, shared: Path) -> dict[str, Callable[[], tuple[Source, Path]]]:
    """The suites and how to make their warehouses (lazily: each is built when run)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import tpch_like  # type: ignore[import-not-found]

    from vitrina.warehouse.demo import build_demo_warehouse

    def demo() -> tuple[Source, Path]:
        path = folder / "demo.duckdb"
        if not path.exists():
            build_demo_warehouse(path, scale=0.1)
        return duckdb_source(
            "demo", path, "dwh", DEMO_CATALOG
        ), ROOT / "suites" / "demo_wording.yaml"

    def tpch() -> tuple[Source, Path]:
        path = tpch_like.generate(folder / "tpch_like.duckdb", orders=3000, seed=7)
        return duckdb_source("tpch", path, "main", ROOT / "suites" / "tpch_like"), (
            ROOT / "suites" / "tpch_like.yaml"
        )

    def chinook() -> tuple[Source, Path]:
        path = shared / "warehouses" / "chinook" / "Chinook_Sqlite.sqlite"
        return sqlite_source("chinook", path, ROOT / "suites" / "chinook"), (
            ROOT / "suites" / "chinook.yaml"
        )

    return {"demo_wording": demo, "tpch_like": tpch, "chinook": chinook}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--suites", default="demo_wording,tpch_like,chinook")
    parser.add_argument("--show", action="store_true", help="why the first differences differ")
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "fixtures")
    args = parser.parse_args()
    from vitrina.eval.suite import load_suite

    engines = tuple(args.engines.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        makers = sources(folder, args.shared)
        for name in args.suites.split(","):
            source, suite_path = makers[name]()
            with loaded_everywhere(source, engines, folder / name, folder / "chdb") as on:
                home = on.get(source.home) or load(
                    source, source.home, folder / "home", folder / "chdb"
                )
                suite = with_expected_rows(load_suite(suite_path), home)
                base = outcomes(suite, home, folder / f"{name}-home.sqlite")
                for engine, loaded in on.items():
                    why: dict[str, str] = {}
                    got = outcomes(suite, loaded, folder / f"{name}-{engine}.sqlite", why)
                    differ = sorted(k for k in base if got.get(k) != base[k])
                    right = sum(v == "right" for v in got.values())
                    print(
                        f"{name} on {engine}: right={right} of {len(got)}; differ from "
                        f"{source.home}: {[(k, base[k], got.get(k)) for k in differ]}"
                    )
                    for k in differ[: 3 if args.show else 0]:
                        print(f"    {k}: {why.get(k, '')[:400]}")


if __name__ == "__main__":
    main()


# ---------------------------------------------------------------- the rephrasing suite


def alignment_rows(loaded: Loaded, warehouse_name: str) -> dict[str, list[Any]]:
    """question -> the normalised rows its rules plan gives on one engine, for every case of
    tests/data/ask_alignment.yaml over ``warehouse_name`` that gets a plan."""
    import yaml

    from vitrina.ask.nodes.select_tables import rules_verdict
    from vitrina.catalog import load_catalog
    from vitrina.eval.compare import normalize_rows
    from vitrina.query import compile_plan
    from vitrina.warehouse import Warehouse

    data = yaml.safe_load((ROOT / "tests" / "data" / "ask_alignment.yaml").read_text("utf-8"))
    today = data["warehouses"][warehouse_name]["today"]
    catalog = load_catalog(loaded.catalog)
    warehouse = Warehouse(loaded.url)
    out: dict[str, list[Any]] = {}
    try:
        for name, question, _expect, *_reference in data["cases"]:
            plan = (
                rules_verdict(question, catalog, today)["plan"] if name == warehouse_name else None
            )
            if plan is None:
                continue
            sql = compile_plan(plan, catalog, warehouse.dialect)
            out[question] = sorted(normalize_rows(warehouse.execute(sql).rows), key=repr)
    finally:
        warehouse.close()
    return out
