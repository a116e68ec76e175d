"""Copy tables into ClickHouse: the demo warehouse for ``vitrina demo --load-clickhouse``,
and any Arrow tables (the unseen suites' warehouses on every engine).

The rows travel as Parquet files: DuckDB (or pyarrow) writes them, chDB reads them with its
``file()`` table function on a writable connection of its own (the reader's connections are
``readonly=1``, where ``file()`` is refused), a server receives them through
clickhouse-connect's ``insert_file``. Each table is dropped and created again, so a second
load gives the same result. chDB holds one data folder per process: the loader's connection
is closed before it returns.
"""

from __future__ import annotations

import contextlib
import re
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from vitrina.warehouse.clickhouse_backend import chdb_path, server_params

Progress = Callable[[str, int, int], None]
CHDB_SCHEMES = ("chdb",)
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def clickhouse_type(arrow_type: Any, nullable: bool) -> str:
    """The ClickHouse column type for an Arrow type; anything exotic becomes String.

    >>> import pyarrow as pa
    >>> clickhouse_type(pa.decimal128(14, 2), False), clickhouse_type(pa.date32(), True)
    ('Decimal(14, 2)', 'Nullable(Date32)')
    """
    import pyarrow as pa

    t = arrow_type
    if pa.types.is_decimal(t):
        inner = f"Decimal({t.precision}, {t.scale})"
    elif pa.types.is_boolean(t):
        inner = "Bool"
    elif pa.types.is_integer(t):
        inner = ("UInt" if pa.types.is_unsigned_integer(t) else "Int") + str(t.bit_width)
    elif pa.types.is_floating(t):
        inner = "Float64" if t.bit_width == 64 else "Float32"
    elif pa.types.is_date(t):
        inner = "Date32"
    elif pa.types.is_timestamp(t):
        inner = "DateTime64(6)"
    else:
        inner = "String"
    return f"Nullable({inner})" if nullable else inner


def _ident(name: str) -> str:
    """A quoted ClickHouse identifier; names are checked, never escaped into SQL."""
    if not _NAME.match(name):
        raise ValueError(f"table or column name {name!r} is not a plain identifier")
    return f"`{name}`"


def create_statement(database: str, table: str, schema: Any, key: list[str] | None = None) -> str:
    """CREATE TABLE for an Arrow schema: a MergeTree sorted by the primary key when the
    source declares one (``catalog init`` reads it back as the table's key), else by
    nothing. Key columns are not Nullable (ClickHouse refuses a nullable sorting key)."""
    key = key or []
    columns = ", ".join(
        f"{_ident(f.name)} {clickhouse_type(f.type, f.nullable and f.name not in key)}"
        for f in schema
    )
    order = f"({', '.join(map(_ident, key))})" if key else "tuple()"
    return (
        f"CREATE TABLE {_ident(database)}.{_ident(table)} ({columns}) "
        f"ENGINE = MergeTree ORDER BY {order}"
    )


class _Target:
    """A writable chDB folder or server connection: run a statement, insert a Parquet file."""

    def __init__(self, url: str) -> None:
        scheme = url.split(":", 1)[0].split("+", 1)[0].lower()
        self.chdb = scheme in CHDB_SCHEMES
        if self.chdb:
            import chdb

            self.conn = chdb.connect(chdb_path(url))
        else:
            import clickhouse_connect

            self.conn = clickhouse_connect.get_client(**server_params(url))

    def command(self, sql: str) -> Any:
        if self.chdb:
            return self.conn.query(sql, "CSV")
        return self.conn.command(sql)

    def insert_parquet(self, database: str, table: str, file: Path) -> None:
        if self.chdb:
            quoted = str(file).replace("\\", "\\\\").replace("'", "\\'")
            self.command(
                f"INSERT INTO {_ident(database)}.{_ident(table)} "
                f"SELECT * FROM file('{quoted}', Parquet)"
            )
        else:
            from clickhouse_connect.driver.tools import insert_file

            insert_file(self.conn, table, str(file), fmt="Parquet", database=database)

    def count(self, database: str, table: str) -> int:
        sql = f"SELECT count() FROM {_ident(database)}.{_ident(table)}"
        if self.chdb:
            return int(str(self.conn.query(sql, "CSV")).strip() or 0)
        return int(self.conn.command(sql))

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()


def load_arrow_tables(
    url: str,
    database: str,
    tables: dict[str, Any],
    *,
    keys: dict[str, list[str]] | None = None,
    progress: Progress | None = None,
) -> dict[str, int]:
    """Replace ``database``'s tables of the same names with ``tables`` (name -> pyarrow
    Table; ``keys``: name -> primary key columns); rows per table as ClickHouse counts them."""
    import pyarrow.parquet as pq

    target = _Target(url)
    counts: dict[str, int] = {}
    try:
        target.command(f"CREATE DATABASE IF NOT EXISTS {_ident(database)}")
        with tempfile.TemporaryDirectory(prefix="vitrina-chload-") as tmp:
            for done, (name, table) in enumerate(tables.items()):
                if progress:
                    progress(f"copy {name}", done, len(tables))
                file = Path(tmp) / f"{name}.parquet"
                pq.write_table(table, file)
                target.command(f"DROP TABLE IF EXISTS {_ident(database)}.{_ident(name)}")
                key = (keys or {}).get(name)
                target.command(create_statement(database, name, table.schema, key))
                target.insert_parquet(database, name, file)
                counts[name] = target.count(database, name)
    finally:
        target.close()
    if progress:
        progress("done", len(tables), len(tables))
    return counts


def duckdb_tables(path: Path, schema: str) -> Iterator[tuple[str, Any]]:
    """(name, pyarrow Table) for each table of ``schema`` in a DuckDB file, read through a
    private in-memory database that attaches the file read-only."""
    import duckdb

    con = duckdb.connect(":memory:")
    try:
        quoted = str(path).replace("'", "''")
        con.execute(f"ATTACH '{quoted}' AS src (READ_ONLY)")
        names = [
            r[0]
            for r in con.execute(
                "SELECT table_name FROM duckdb_tables() WHERE database_name = 'src' "
                "AND schema_name = ? AND NOT temporary ORDER BY table_oid",
                [schema],
            ).fetchall()
        ]
        for name in names:
            yield name, con.sql(f'SELECT * FROM src."{schema}"."{name}"').to_arrow_table()
    finally:
        con.close()


def load_demo_into_clickhouse(
    duckdb_path: Path, url: str, *, database: str = "dwh", progress: Progress | None = None
) -> dict[str, int]:
    """The demo warehouse's tables (schema ``dwh`` of its DuckDB file) into ClickHouse."""
    duckdb_path = Path(duckdb_path)
    if not duckdb_path.is_file():
        raise FileNotFoundError(f"demo warehouse not found: {duckdb_path}")
    tables = dict(duckdb_tables(duckdb_path, "dwh"))
    keys = duckdb_primary_keys(duckdb_path, "dwh")
    return load_arrow_tables(url, database, tables, keys=keys, progress=progress)


def duckdb_primary_keys(path: Path, schema: str) -> dict[str, list[str]]:
    """table -> its declared primary key columns, for the tables of ``schema`` that have one."""
    import duckdb

    con = duckdb.connect(":memory:")
    try:
        quoted = str(path).replace("'", "''")
        con.execute(f"ATTACH '{quoted}' AS src (READ_ONLY)")
        rows = con.execute(
            "SELECT table_name, constraint_column_names FROM duckdb_constraints() WHERE "
            "database_name = 'src' AND schema_name = ? AND constraint_type = 'PRIMARY KEY'",
            [schema],
        ).fetchall()
    finally:
        con.close()
    return {name: list(columns) for name, columns in rows}
