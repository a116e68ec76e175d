"""Where the data of a step's query end: the last date of the date column it filtered on.

A month is complete only when the data reach its last day (a warehouse loaded up to the
15th has a partial month even after the month is over). The column is read from the
step's own SQL: the column its period condition compares with a date (`col >= DATE ...`),
else the catalog's default date of the table it reads. The query runs through the guard.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import sqlglot
from sqlglot import exp

from vitrina.sql.guard import guard_with_catalog
from vitrina.trace import Trace
from vitrina.warehouse import WarehouseError


def date_column(sql: str, dialect: str, catalog: Any) -> tuple[str, str] | None:
    """(table, column) of the date the query filters its period on, or the base table's default."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.ParseError:
        return None
    tables = {
        t.alias_or_name: ".".join(p for p in (t.db, t.name) if p) for t in tree.find_all(exp.Table)
    }
    for node in tree.find_all(exp.GTE, exp.GT, exp.Between):
        column = node.this
        if (
            isinstance(column, exp.Column)
            and column.table in tables
            and node.find(exp.Cast, exp.Literal)
        ):
            return tables[column.table], column.name
    base = tree.find(exp.From)
    table = base.find(exp.Table) if base is not None else None
    if table is None:
        return None
    name = ".".join(p for p in (table.db, table.name) if p)
    known = catalog.tables.get(name) if catalog is not None else None
    return (name, known.default_date) if known is not None and known.default_date else None


def data_end(sql: str | None, ctx: Any, trace: Trace) -> date | None:
    """The last date the step's data hold, or None (unknown: then only the calendar decides)."""
    if not sql or ctx.warehouse is None:
        return None
    found = date_column(sql, ctx.warehouse.dialect, ctx.catalog)
    if found is None:
        trace.suppressed(
            "data end not read: no date column in the step's SQL; calendar months only"
        )
        return None
    table, column = found
    policy = getattr(ctx, "policy", None)
    cache_key = ("data_end", table, column, policy.dumps() if policy else None)
    cache = getattr(ctx.warehouse, "cache", None)
    if cache is not None and cache_key in cache:
        return cache[cache_key]
    checked = guard_with_catalog(
        f"SELECT MAX({column}) AS last_day FROM {table}",
        ctx.catalog,
        dialect=ctx.warehouse.dialect,
        row_cap=1,
        policy=policy,
    )
    if not checked.ok:
        trace.suppressed(
            "data end not read: the guard rejected the query", table=table, column=column
        )
        return None
    try:
        value = ctx.warehouse.execute(checked.sql).rows[0][0]
    except WarehouseError as exc:
        trace.suppressed("data end not read", table=table, error=str(exc))
        return None
    last = (
        value.date() if isinstance(value, datetime) else value if isinstance(value, date) else None
    )
    trace.measurement("data end read", table=table, column=column, last_day=str(last))
    if cache is not None:
        cache[cache_key] = last
    return last
