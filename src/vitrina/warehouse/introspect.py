"""Read a warehouse's tables, columns, keys and value statistics into typed models.

`vitrina catalog init` drafts the catalog from this, and checks compare the catalog to it.
Metadata comes from SQLAlchemy's inspector, except for DuckDB, whose catalog functions are
read directly: duckdb_engine's inspector runs PostgreSQL catalog queries that DuckDB 1.4+
cannot answer (pg_collation, regclass). Statistics are computed with one query per table.
A table that fails (permission denied, a broken view) is recorded with its error and the
run goes on.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

import sqlalchemy as sa
from pydantic import BaseModel, Field

from vitrina.warehouse.engine import dialect_of

__all__ = [
    "ColumnInfo",
    "DatabaseSchema",
    "ForeignKeyInfo",
    "TableInfo",
    "infer_foreign_keys",
    "introspect",
    "normalize_type",
]

Progress = Callable[[str, int, int], None]

SYSTEM_SCHEMAS = frozenset(
    {"information_schema", "pg_catalog", "pg_toast", "sys", "mysql", "performance_schema"}
)
INTERNAL_TABLE_PREFIX = "_vitrina"  # build markers and other bookkeeping, never analyst data
TEXT_TYPES = frozenset({"varchar", "enum", "uuid"})
NUMERIC_TYPES = frozenset(
    {"smallint", "integer", "bigint", "decimal", "double", "float", "hugeint"}
)
DATE_TYPES = frozenset({"date", "timestamp", "timestamptz"})

_TYPE_ALIASES = {
    "int": "integer", "int4": "integer", "integer": "integer", "mediumint": "integer",
    "int2": "smallint", "smallint": "smallint", "tinyint": "smallint",
    "int8": "bigint", "bigint": "bigint", "hugeint": "hugeint",
    "utinyint": "smallint", "usmallint": "integer", "uinteger": "bigint", "ubigint": "decimal",
    "numeric": "decimal", "decimal": "decimal", "number": "decimal",
    "double": "double", "double precision": "double", "float8": "double",
    "real": "float", "float4": "float", "float": "float",
    "varchar": "varchar", "character varying": "varchar", "text": "varchar", "string": "varchar",
    "char": "varchar", "character": "varchar", "bpchar": "varchar", "nvarchar": "varchar",
    "date": "date",
    "timestamp": "timestamp", "timestamp without time zone": "timestamp", "datetime": "timestamp",
    "timestamptz": "timestamptz", "timestamp with time zone": "timestamptz",
    "time": "time", "time without time zone": "time",
    "boolean": "boolean", "bool": "boolean",
    "uuid": "uuid", "json": "json", "jsonb": "json", "blob": "blob", "bytea": "blob",
    "interval": "interval", "enum": "enum",
}  # fmt: skip


class ColumnInfo(BaseModel):
    name: str
    # normalised: integer, bigint, decimal, varchar, date, timestamp, boolean, double...
    data_type: str
    raw_type: str = ""  # as the database spells it, e.g. DECIMAL(14,2)
    nullable: bool = True
    distinct_count: int | None = None
    low_cardinality_values: list[str] | None = None
    is_date: bool = False
    is_numeric: bool = False


class ForeignKeyInfo(BaseModel):
    columns: list[str]
    ref_table: str
    ref_columns: list[str]
    ref_schema: str | None = None
    inferred: bool = False


class TableInfo(BaseModel):
    schema_name: str
    name: str
    kind: Literal["table", "view"] = "table"
    row_count: int | None = None
    columns: list[ColumnInfo] = Field(default_factory=list)
    primary_key: list[str] = Field(default_factory=list)
    foreign_keys: list[ForeignKeyInfo] = Field(default_factory=list)
    error: str | None = None  # why this table could not be read; the rest of the run went on

    @property
    def qualified_name(self) -> str:
        return f"{self.schema_name}.{self.name}"

    def column(self, name: str) -> ColumnInfo:
        for col in self.columns:
            if col.name == name:
                return col
        raise KeyError(f"{self.qualified_name} has no column {name!r}")


class DatabaseSchema(BaseModel):
    dialect: str  # sqlglot dialect name: duckdb, postgres, ...
    tables: list[TableInfo] = Field(default_factory=list)

    def table(self, name: str, schema: str | None = None) -> TableInfo:
        """A table by name, or by `schema.name`."""
        if schema is None and "." in name:
            schema, name = name.split(".", 1)
        for t in self.tables:
            if t.name == name and (schema is None or t.schema_name == schema):
                return t
        raise KeyError(f"no table {name!r}" + (f" in schema {schema!r}" if schema else ""))


def normalize_type(raw: str) -> str:
    """The family name of a database type, lowercase, without size or precision.

    >>> (
    ...     normalize_type("DECIMAL(14,2)"),
    ...     normalize_type("character varying(20)"),
    ...     normalize_type("INT8"),
    ... )
    ('decimal', 'varchar', 'bigint')
    """
    base = re.sub(r"\(.*?\)", "", raw.lower()).strip()
    base = re.sub(r"\s+", " ", base)
    if base.endswith("[]"):
        return "array"
    return _TYPE_ALIASES.get(base, base.split(" ")[0] if base else "unknown")


def engine_url(url: str) -> str:
    """A SQLAlchemy URL: plain postgresql:// uses psycopg 3, the driver Vitrina ships."""
    if url.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    if url.startswith(("mysql://", "mariadb://")):  # PyMySQL, the driver of the mysql extra
        scheme, rest = url.split("://", 1)
        return f"{scheme}+pymysql://{rest}"
    return url


def default_schemas(url: str, schemas: list[str] | None) -> list[str] | None:
    """MySQL's schemas are its databases: a URL naming one reads that one, not the server."""
    if schemas is None and dialect_of(url) == "mysql":
        database = sa.make_url(engine_url(url)).database
        return [database] if database else None
    return schemas


def _make_engine(url: str) -> sa.Engine:
    url = engine_url(url)
    if url.startswith("duckdb:"):
        database = sa.make_url(url).database
        if database and database != ":memory:":
            # read-only: introspection must never create a file or take the write lock
            return sa.create_engine(url, connect_args={"read_only": True}, poolclass=sa.NullPool)
    return sa.create_engine(url, poolclass=sa.NullPool)


class _RawTable(BaseModel):
    schema_name: str
    name: str
    kind: Literal["table", "view"]
    columns: list[tuple[str, str, bool]]  # name, raw type, nullable
    primary_key: list[str] = Field(default_factory=list)
    foreign_keys: list[ForeignKeyInfo] = Field(default_factory=list)
    error: str | None = None


def _wanted(schema: str, schemas: list[str] | None) -> bool:
    if schemas is not None:
        return schema in schemas
    return schema.lower() not in SYSTEM_SCHEMAS and not schema.lower().startswith(
        ("pg_temp", "pg_toast")
    )


def _duckdb_metadata(conn: sa.Connection, schemas: list[str] | None) -> list[_RawTable]:
    """Tables, views, columns and keys from DuckDB's own catalog functions."""
    db = "database_name = current_database() AND NOT internal AND NOT temporary"
    objects = conn.execute(
        sa.text(
            f"SELECT schema_name, table_name, 'table' FROM duckdb_tables() WHERE {db} "
            f"UNION ALL SELECT schema_name, view_name, 'view' FROM duckdb_views() WHERE {db} "
            "ORDER BY 1, 2"
        )
    ).all()
    columns: dict[tuple[str, str], list[tuple[str, str, bool]]] = {}
    for s, t, c, typ, nullable in conn.execute(
        sa.text(
            "SELECT schema_name, table_name, column_name, data_type, is_nullable FROM "
            "duckdb_columns() WHERE database_name = current_database() AND NOT internal ORDER BY "
            "schema_name, table_name, column_index"
        )
    ):
        columns.setdefault((s, t), []).append((c, typ, bool(nullable)))
    pks: dict[tuple[str, str], list[str]] = {}
    fks: dict[tuple[str, str], list[ForeignKeyInfo]] = {}
    for s, t, kind, cols, ref_table, ref_cols in conn.execute(
        sa.text(
            "SELECT schema_name, table_name, constraint_type, constraint_column_names, "
            "referenced_table, "
            "referenced_column_names FROM duckdb_constraints() WHERE database_name = "
            "current_database() AND constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY')"
        )
    ):
        if kind == "PRIMARY KEY":
            pks[(s, t)] = list(cols)
        elif ref_table:
            fks.setdefault((s, t), []).append(
                ForeignKeyInfo(
                    columns=list(cols),
                    ref_table=ref_table,
                    ref_columns=list(ref_cols),
                    ref_schema=s,
                )
            )
    return [
        _RawTable(
            schema_name=s,
            name=t,
            kind=kind,
            columns=columns.get((s, t), []),
            primary_key=pks.get((s, t), []),
            foreign_keys=fks.get((s, t), []),
        )
        for s, t, kind in objects
        if _wanted(s, schemas)
    ]


def _inspector_metadata(engine: sa.Engine, schemas: list[str] | None) -> list[_RawTable]:
    """Tables, views, columns and keys through SQLAlchemy's inspector (PostgreSQL and others)."""
    insp = sa.inspect(engine)
    out: list[_RawTable] = []
    for schema in insp.get_schema_names():
        if not _wanted(schema, schemas):
            continue
        names = [(t, "table") for t in insp.get_table_names(schema=schema)]
        names += [(v, "view") for v in insp.get_view_names(schema=schema)]
        for name, kind in sorted(names):
            try:
                cols = [
                    (
                        c["name"],
                        str(c["type"].compile(dialect=engine.dialect)),
                        bool(c.get("nullable", True)),
                    )
                    for c in insp.get_columns(name, schema=schema)
                ]
                pk = insp.get_pk_constraint(name, schema=schema).get("constrained_columns") or []
                fks = [
                    ForeignKeyInfo(
                        columns=fk["constrained_columns"],
                        ref_table=fk["referred_table"],
                        ref_columns=fk["referred_columns"],
                        ref_schema=fk.get("referred_schema") or schema,
                    )
                    for fk in (
                        insp.get_foreign_keys(name, schema=schema) if kind == "table" else []
                    )
                ]
                out.append(
                    _RawTable(
                        schema_name=schema,
                        name=name,
                        kind=kind,
                        columns=cols,
                        primary_key=pk,
                        foreign_keys=fks,
                    )
                )
            except Exception as exc:  # one unreadable table must not stop the run
                out.append(
                    _RawTable(
                        schema_name=schema, name=name, kind=kind, columns=[], error=_first_line(exc)
                    )
                )
    return out


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip()
    return (
        f"{type(getattr(exc, 'orig', None) or exc).__name__}: "
        f"{text.splitlines()[0] if text else ''}"
    )


def _table_stats(conn: sa.Connection, raw: _RawTable, sample_values: int) -> TableInfo:
    """Row count, distinct counts and the values of low-cardinality text columns."""
    q = conn.dialect.identifier_preparer.quote
    source = f"{q(raw.schema_name)}.{q(raw.name)}"
    aggregates = ["count(*)"] + [f"count(DISTINCT {q(c)})" for c, _, _ in raw.columns]
    counts = conn.execute(sa.text(f"SELECT {', '.join(aggregates)} FROM {source}")).one()
    columns = []
    for (name, raw_type, nullable), distinct in zip(raw.columns, counts[1:], strict=True):
        data_type = normalize_type(raw_type)
        values = None
        if data_type in TEXT_TYPES and distinct <= sample_values:
            rows = conn.execute(
                sa.text(f"SELECT DISTINCT {q(name)} FROM {source} WHERE {q(name)} IS NOT NULL")
            )
            # sorted here, not in SQL: collations differ between engines
            values = sorted(str(r[0]) for r in rows)
        columns.append(
            ColumnInfo(
                name=name,
                data_type=data_type,
                raw_type=raw_type,
                nullable=nullable,
                distinct_count=int(distinct),
                low_cardinality_values=values,
                is_date=data_type in DATE_TYPES,
                is_numeric=data_type in NUMERIC_TYPES,
            )
        )
    return TableInfo(
        schema_name=raw.schema_name,
        name=raw.name,
        kind=raw.kind,
        row_count=int(counts[0]),
        columns=columns,
        primary_key=raw.primary_key,
        foreign_keys=raw.foreign_keys,
    )


def infer_foreign_keys(tables: list[TableInfo]) -> None:
    """Add name-based foreign keys: a column `x_id` that is the one-column primary key of
    exactly one other table (same schema preferred) references it; marked inferred=True."""
    owners: dict[str, list[TableInfo]] = {}
    for t in tables:
        if len(t.primary_key) == 1 and t.kind == "table":
            owners.setdefault(t.primary_key[0], []).append(t)
    for t in tables:
        covered = {c for fk in t.foreign_keys for c in fk.columns}
        for col in t.columns:
            if not col.name.endswith("_id") or col.name in covered:
                continue
            candidates = [o for o in owners.get(col.name, []) if o is not t]
            same_schema = [o for o in candidates if o.schema_name == t.schema_name]
            chosen = same_schema if same_schema else candidates
            if len(chosen) == 1:
                ref = chosen[0]
                t.foreign_keys.append(
                    ForeignKeyInfo(
                        columns=[col.name],
                        ref_table=ref.name,
                        ref_columns=[col.name],
                        ref_schema=ref.schema_name,
                        inferred=True,
                    )
                )


def column_prefix(table: TableInfo) -> str:
    """The prefix every column of a table shares ("c_" in c_custkey, c_name), or ""."""
    names = [c.name.lower() for c in table.columns]
    head = names[0].split("_", 1)[0] + "_" if names and "_" in names[0] else ""
    return head if head and len(names) > 1 and all(n.startswith(head) for n in names) else ""


def _key_root(name: str) -> str | None:
    """ "custkey" -> "cust", "nation_id" -> "nation": the entity a key column names."""
    for suffix in ("_key", "key", "_id", "id"):
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return None


def infer_prefixed_keys(tables: list[TableInfo]) -> None:
    """TPC-H-style names: c_nationkey references the table whose own key is n_nationkey,
    found as the table whose name starts with the key's root ("nation", "cust" ->
    customer). Marked inferred=True; one owner only, else nothing is guessed."""
    owners: dict[str, list[tuple[TableInfo, str]]] = {}
    for t in tables:
        prefix = column_prefix(t)
        if not prefix:
            continue
        for col in t.columns:
            stripped = col.name.lower()[len(prefix) :]
            root = _key_root(stripped)
            if root and t.name.lower().startswith(root):
                owners.setdefault(stripped, []).append((t, col.name))
    for t in tables:
        prefix = column_prefix(t)
        covered = {c for fk in t.foreign_keys for c in fk.columns}
        for col in t.columns:
            stripped = col.name.lower()[len(prefix) :]
            found = [(o, name) for o, name in owners.get(stripped, []) if o is not t]
            if not prefix or col.name in covered or len(found) != 1:
                continue
            ref, ref_column = found[0]
            t.foreign_keys.append(
                ForeignKeyInfo(
                    columns=[col.name],
                    ref_table=ref.name,
                    ref_columns=[ref_column],
                    ref_schema=ref.schema_name,
                    inferred=True,
                )
            )


def introspect(
    url: str,
    *,
    schemas: list[str] | None = None,
    sample_values: int = 30,
    progress: Progress | None = None,
    infer_fks: bool | None = None,
    include_internal: bool = False,
) -> DatabaseSchema:
    """Describe every user table and view reachable at `url` (SQLAlchemy URL).

    `schemas` limits the schemas read (default: all but system schemas). Foreign keys are
    inferred by name when `infer_fks` is True, or when None (default) and the database
    declares none. Tables named `_vitrina*` are bookkeeping and skipped unless asked for.
    """
    if url.split(":", 1)[0].split("+", 1)[0].lower() in ("chdb", "clickhouse", "clickhouses"):
        from vitrina.warehouse.clickhouse_introspect import introspect_clickhouse

        return introspect_clickhouse(
            url,
            schemas=schemas,
            sample_values=sample_values,
            progress=progress,
            include_internal=include_internal,
        )
    schemas = default_schemas(url, schemas)
    engine = _make_engine(url)
    try:
        if engine.dialect.name == "duckdb":
            with engine.connect() as conn:
                raws = _duckdb_metadata(conn, schemas)
        else:
            raws = _inspector_metadata(engine, schemas)
        if not include_internal:
            raws = [r for r in raws if not r.name.startswith(INTERNAL_TABLE_PREFIX)]
        tables: list[TableInfo] = []
        for done, raw in enumerate(raws):
            if progress:
                progress(f"{raw.schema_name}.{raw.name}", done, len(raws))
            tables.append(_read_table(engine, raw, sample_values))
        if progress:
            progress("done", len(raws), len(raws))
    finally:
        engine.dispose()
    if infer_fks or (infer_fks is None and not any(t.foreign_keys for t in tables)):
        infer_foreign_keys(tables)
        infer_prefixed_keys(tables)
    return DatabaseSchema(dialect=dialect_of(str(engine.url)), tables=tables)


def _read_table(engine: sa.Engine, raw: _RawTable, sample_values: int) -> TableInfo:
    failed = TableInfo(
        schema_name=raw.schema_name,
        name=raw.name,
        kind=raw.kind,
        columns=[
            ColumnInfo(name=c, data_type=normalize_type(t), raw_type=t, nullable=n)
            for c, t, n in raw.columns
        ],
        primary_key=raw.primary_key,
        foreign_keys=raw.foreign_keys,
        error=raw.error,
    )
    if raw.error:
        return failed
    try:
        # a connection per table: a failed one cannot poison the next
        with engine.connect() as conn:
            return _table_stats(conn, raw, sample_values)
    except Exception as exc:  # recorded on the table, the run goes on
        failed.error = _first_line(exc)
        return failed
