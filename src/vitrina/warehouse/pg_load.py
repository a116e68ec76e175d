"""Copy the demo warehouse from its DuckDB file into PostgreSQL.

DuckDB's postgres_scanner extension cannot be installed offline, so the copy goes through
CSV: DuckDB writes each table to a temp file (parallel, fast), psycopg streams the file
into `COPY ... FROM STDIN` in 1 MiB chunks. Everything happens in one transaction under an
advisory lock, so a concurrent reader sees the old tables or the new ones, never half, and
two loads into the same schema wait for each other instead of failing.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable
from pathlib import Path

import duckdb
import psycopg
from psycopg import sql

SOURCE_SCHEMA = "dwh"
CHUNK_BYTES = 1 << 20

Progress = Callable[[str, int, int], None]

_SIMPLE_TYPES = {
    "BOOLEAN": "boolean",
    "TINYINT": "smallint",
    "SMALLINT": "smallint",
    "INTEGER": "integer",
    "BIGINT": "bigint",
    "UTINYINT": "smallint",
    "USMALLINT": "integer",
    "UINTEGER": "bigint",
    "UBIGINT": "numeric(20,0)",
    "HUGEINT": "numeric(38,0)",
    "FLOAT": "real",
    "DOUBLE": "double precision",
    "DATE": "date",
    "TIME": "time",
    "TIMESTAMP": "timestamp",
    "TIMESTAMP WITH TIME ZONE": "timestamptz",
    "INTERVAL": "interval",
    "UUID": "uuid",
    "VARCHAR": "varchar",
    "JSON": "jsonb",
}


def pg_type(duckdb_type: str) -> str:
    """The PostgreSQL type for a DuckDB column type; anything exotic becomes text.

    >>> pg_type("DECIMAL(14,2)"), pg_type("BIGINT"), pg_type("STRUCT(a INTEGER)")
    ('numeric(14,2)', 'bigint', 'text')
    """
    upper = duckdb_type.upper().strip()
    if m := re.fullmatch(r"DECIMAL\((\d+),\s*(\d+)\)", upper):
        return f"numeric({m[1]},{m[2]})"
    return _SIMPLE_TYPES.get(upper, "text")


def pg_conninfo(url: str) -> str:
    """A libpq URL from a SQLAlchemy-style one (postgresql+psycopg:// -> postgresql://)."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme.split("+", 1)[0] not in ("postgresql", "postgres"):
        raise ValueError(f"not a PostgreSQL URL: {url!r}")
    return f"postgresql://{rest}"


def _open_source(path: Path) -> duckdb.DuckDBPyConnection:
    """The demo file attached read-only to a private in-memory database.

    The export writes CSV files, which the hardened reader forbids, and DuckDB refuses a
    second `connect` to a file another connection in the process opened with other
    settings; an ATTACH from a fresh in-memory database is neither.
    """
    con = duckdb.connect(":memory:")
    quoted = str(path).replace("'", "''")
    con.execute(f"ATTACH '{quoted}' AS src (READ_ONLY)")
    con.execute("USE src")
    return con


def _source_tables(
    con: duckdb.DuckDBPyConnection,
) -> list[tuple[str, list[tuple[str, str, bool]], list[str]]]:
    """(table, [(column, DuckDB type, nullable)], primary key) for each table of dwh."""
    names = [
        r[0]
        for r in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE schema_name = ? AND NOT temporary "
            "ORDER BY table_oid",
            [SOURCE_SCHEMA],
        ).fetchall()
    ]
    out = []
    for name in names:
        cols = con.execute(
            "SELECT column_name, data_type, is_nullable FROM duckdb_columns() "
            "WHERE schema_name = ? AND table_name = ? ORDER BY column_index",
            [SOURCE_SCHEMA, name],
        ).fetchall()
        pk = con.execute(
            "SELECT constraint_column_names FROM duckdb_constraints() "
            "WHERE schema_name = ? AND table_name = ? AND constraint_type = 'PRIMARY KEY'",
            [SOURCE_SCHEMA, name],
        ).fetchone()
        out.append((name, [(c, t, bool(n)) for c, t, n in cols], list(pk[0]) if pk else []))
    return out


def load_demo_into_postgres(
    duckdb_path: Path,
    pg_url: str,
    *,
    schema: str = "dwh",
    progress: Progress | None = None,
) -> dict[str, int]:
    """Replace the tables of `schema` in PostgreSQL with those of the demo file; rows per table.

    Only the tables being loaded are dropped (CASCADE, so views on them go too); other
    objects in the schema stay. Running it twice gives the same result.
    """
    duckdb_path = Path(duckdb_path)
    if not duckdb_path.is_file():
        raise FileNotFoundError(f"demo warehouse not found: {duckdb_path}")
    with tempfile.TemporaryDirectory(prefix="vitrina-pgload-") as tmp:
        with _open_source(duckdb_path) as src:
            tables = _source_tables(src)
            total = len(tables) * 2
            for done, (name, _, _) in enumerate(tables):
                if progress:
                    progress(f"export {name}", done, total)
                target = Path(tmp) / f"{name}.csv"
                src.execute(
                    f"COPY (SELECT * FROM {SOURCE_SCHEMA}.\"{name}\") TO '{target}' "
                    "(FORMAT csv, HEADER false, NULLSTR '\\N')"
                )
        counts: dict[str, int] = {}
        with psycopg.connect(pg_conninfo(pg_url)) as pg, pg.transaction():
            pg.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                [f"vitrina.demo_load.{schema}"],
            )
            pg.execute("SET LOCAL maintenance_work_mem = '256MB'")
            pg.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
            for done, (name, columns, pk) in enumerate(tables, start=len(tables)):
                if progress:
                    progress(f"copy {name}", done, total)
                ident = sql.Identifier(schema, name)
                pg.execute(sql.SQL("DROP TABLE IF EXISTS {} CASCADE").format(ident))
                coldefs = sql.SQL(", ").join(
                    sql.SQL("{} {}{}").format(
                        sql.Identifier(c),
                        sql.SQL(pg_type(t)),
                        sql.SQL("" if nullable else " NOT NULL"),
                    )
                    for c, t, nullable in columns
                )
                pg.execute(sql.SQL("CREATE TABLE {} ({})").format(ident, coldefs))
                copy_sql = sql.SQL("COPY {} FROM STDIN (FORMAT csv, NULL '\\N')").format(ident)
                with (
                    pg.cursor() as cur,
                    cur.copy(copy_sql) as copy,
                    open(Path(tmp) / f"{name}.csv", "rb") as f,
                ):
                    while chunk := f.read(CHUNK_BYTES):
                        copy.write(chunk)
                if pk:  # after the data: one index build beats row-by-row maintenance
                    pg.execute(
                        sql.SQL("ALTER TABLE {} ADD PRIMARY KEY ({})").format(
                            ident, sql.SQL(", ").join(map(sql.Identifier, pk))
                        )
                    )
                pg.execute(sql.SQL("ANALYZE {}").format(ident))
                row = pg.execute(sql.SQL("SELECT count(*) FROM {}").format(ident)).fetchone()
                counts[name] = int(row[0]) if row else 0
    if progress:
        progress("done", total, total)
    return counts
