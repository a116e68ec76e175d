"""`vitrina catalog init` on ClickHouse: tables and columns from ``system.tables`` and
``system.columns``, read through the same read-only connection every query uses.

SQLAlchemy's inspector has no ClickHouse dialect here, so the metadata comes from the
system tables (``readonly=1`` reads them). ClickHouse declares no foreign keys and its
sorting key is not a primary key in the relational sense: the one-column primary key of a
table is kept as its key, and relations are inferred by name as for any engine without
declared keys (:func:`vitrina.warehouse.introspect.infer_foreign_keys`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from vitrina.warehouse.engine import Warehouse
from vitrina.warehouse.introspect import (
    DATE_TYPES,
    INTERNAL_TABLE_PREFIX,
    NUMERIC_TYPES,
    TEXT_TYPES,
    ColumnInfo,
    DatabaseSchema,
    TableInfo,
    infer_foreign_keys,
    infer_prefixed_keys,
)

Progress = Callable[[str, int, int], None]
SYSTEM_DATABASES = frozenset({"system", "information_schema", "INFORMATION_SCHEMA"})
_FAMILIES = (  # ClickHouse type (after Nullable/LowCardinality) -> Vitrina's family
    (r"U?Int(8|16)", "smallint"),
    (r"U?Int32", "integer"),
    (r"U?Int(64|128|256)", "bigint"),
    (r"Decimal.*", "decimal"),
    (r"Float(32|64)", "double"),
    (r"Bool", "boolean"),
    (r"Date(32)?", "date"),
    (r"DateTime.*", "timestamp"),
    (r"(Fixed)?String.*|Enum.*", "varchar"),
    (r"UUID", "uuid"),
)


def clickhouse_family(raw: str) -> str:
    """The type family of a ClickHouse column type.

    >>> clickhouse_family("Nullable(Decimal(14, 2))"), clickhouse_family("LowCardinality(String)")
    ('decimal', 'varchar')
    >>> clickhouse_family("DateTime64(6)"), clickhouse_family("Array(Int32)")
    ('timestamp', 'array(int32)')
    """
    inner = raw
    for wrapper in ("Nullable(", "LowCardinality("):
        while inner.startswith(wrapper):
            inner = inner[len(wrapper) : -1]
    for pattern, family in _FAMILIES:
        if re.fullmatch(pattern, inner):
            return family
    return inner.lower()


def _quote(name: str) -> str:
    return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"


def _literal(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _tables(wh: Warehouse, schemas: list[str] | None) -> list[tuple[str, str, str, str]]:
    """(database, table, engine, primary key expression) of the user tables and views."""
    where = (
        f"database IN ({', '.join(map(_literal, schemas))})"
        if schemas
        else f"database NOT IN ({', '.join(map(_literal, sorted(SYSTEM_DATABASES)))})"
    )
    sql = (
        "SELECT database, name, engine, primary_key FROM system.tables WHERE "
        f"{where} AND NOT is_temporary ORDER BY database, name"
    )
    return [tuple(r) for r in wh.execute(sql, row_cap=100_000).rows]


def _columns(wh: Warehouse, database: str, table: str) -> list[tuple[str, str]]:
    sql = (
        "SELECT name, type FROM system.columns WHERE database = "
        f"{_literal(database)} AND table = {_literal(table)} ORDER BY position"
    )
    return [(r[0], r[1]) for r in wh.execute(sql, row_cap=100_000).rows]


def _table_info(wh: Warehouse, row: tuple[str, str, str, str], sample_values: int) -> TableInfo:
    database, name, engine, key = row
    kind = "view" if engine.endswith("View") else "table"
    raw = _columns(wh, database, name)
    source = f"{_quote(database)}.{_quote(name)}"
    aggregates = ["count()"] + [f"uniqExact({_quote(c)})" for c, _ in raw]
    counts = wh.execute(f"SELECT {', '.join(aggregates)} FROM {source}").rows[0]
    columns = []
    for (column, raw_type), distinct in zip(raw, counts[1:], strict=True):
        family = clickhouse_family(raw_type)
        values = None
        if family in TEXT_TYPES and distinct <= sample_values:
            rows = wh.execute(
                f"SELECT DISTINCT {_quote(column)} FROM {source} WHERE {_quote(column)} IS NOT NULL"
            ).rows
            values = sorted(str(r[0]) for r in rows)
        columns.append(
            ColumnInfo(
                name=column,
                data_type=family,
                raw_type=raw_type,
                nullable=raw_type.startswith("Nullable("),
                distinct_count=int(distinct),
                low_cardinality_values=values,
                is_date=family in DATE_TYPES,
                is_numeric=family in NUMERIC_TYPES,
            )
        )
    # system.tables writes a key as "(client_id)" or "client_id": column names, or
    # expressions (toDate(ts)) that are no key of ours
    bare = key.strip().removeprefix("(").removesuffix(")")
    keys = [k.strip().strip("`") for k in bare.split(",") if k.strip()]
    return TableInfo(
        schema_name=database,
        name=name,
        kind=kind,
        row_count=int(counts[0]),
        columns=columns,
        primary_key=keys if len(keys) == 1 and keys[0] in {c.name for c in columns} else [],
    )


def introspect_clickhouse(
    url: str,
    *,
    schemas: list[str] | None = None,
    sample_values: int = 30,
    progress: Progress | None = None,
    include_internal: bool = False,
) -> DatabaseSchema:
    """Describe every user table and view of a chDB folder or ClickHouse server."""
    wh = Warehouse(url, timeout_s=120)
    try:
        rows = [
            r
            for r in _tables(wh, schemas)
            if include_internal or not r[1].startswith(INTERNAL_TABLE_PREFIX)
        ]
        tables = []
        for done, row in enumerate(rows):
            if progress:
                progress(f"{row[0]}.{row[1]}", done, len(rows))
            try:
                tables.append(_table_info(wh, row, sample_values))
            except Exception as exc:  # recorded on the table, the run goes on
                tables.append(
                    TableInfo(schema_name=row[0], name=row[1], error=str(exc).splitlines()[0])
                )
    finally:
        wh.close()
    infer_foreign_keys(tables)
    infer_prefixed_keys(tables)
    return DatabaseSchema(dialect="clickhouse", tables=tables)
