"""Staleness: what an entry read when it was verified, and whether it still compiles.

An entry keeps a fingerprint of the catalog tables and columns (with their types) its SQL
read. At every use the fingerprint is compared with the loaded catalog (a renamed column,
a changed type or a dropped table: stale, never used); `vitrina verified check --db URL`
(and `vitrina catalog check --db`) also compiles each entry against the warehouse with
example values (guard and EXPLAIN, nothing runs) and marks the ones that fail stale in
their files, with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import sqlglot
from sqlglot import exp

from vitrina.query.run import RunOptions, compile_step, guard_step
from vitrina.query.verified.model import Entry, Fingerprint, ParamError
from vitrina.query.verified.params import bind, example_values
from vitrina.trace import Trace

if TYPE_CHECKING:
    from vitrina.catalog import Catalog
    from vitrina.catalog.model import Table
    from vitrina.sql.policy import RowPolicy
    from vitrina.warehouse import Warehouse


@dataclass(frozen=True)
class Guarded:
    """An entry's SQL with example values, after the guard: ok, or the reason it is not."""

    sql: str
    tables: frozenset[str]
    reason: str | None = None
    reason_ru: str | None = None


def guard_entry(
    entry: Entry, catalog: Catalog, dialect: str, row_cap: int, policy: RowPolicy | None = None
) -> Guarded:
    """The guard over the entry's SQL bound to example values (placeholders must parse)."""
    try:
        sql = bind(entry.sql, example_values(entry.params, catalog), dialect)
    except ParamError as exc:
        return Guarded(entry.sql, frozenset(), exc.message_en, exc.message_ru)
    checked = guard_step(
        sql, catalog, dialect, RunOptions(row_cap=row_cap, policy=policy), Trace("verified")
    )
    if not checked.ok:
        return Guarded(
            sql,
            frozenset(),
            "; ".join(f"{v.rule}: {v.message_en}" for v in checked.violations),
            "; ".join(f"{v.rule}: {v.message_ru}" for v in checked.violations),
        )
    return Guarded(checked.sql, frozenset(checked.tables))


def fingerprint(sql: str, tables: frozenset[str], catalog: Catalog, dialect: str) -> Fingerprint:
    """The catalog columns (name:type) of the guarded tables that the SQL names."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.ParseError:
        return Fingerprint()
    named = {c.name.lower() for c in tree.find_all(exp.Column)} if tree else set()
    out: dict[str, list[str]] = {}
    for name in sorted(tables):
        table = _table(catalog, name)
        if table is None:
            continue
        out[table.name] = sorted(
            f"{c.name.lower()}:{c.type.lower()}" for c in table.columns if c.name.lower() in named
        )
    return Fingerprint(columns=out)


def _table(catalog: Catalog, name: str) -> Table | None:
    lowered = name.lower()
    return next((t for n, t in catalog.tables.items() if n.lower() == lowered), None)


def catalog_stale(entry: Entry, catalog: Catalog) -> str | None:
    """Why the entry no longer fits the loaded catalog (a table or column gone or changed)."""
    for table_name, cols in entry.fingerprint.columns.items():
        table = _table(catalog, table_name)
        if table is None:
            return f"table {table_name} is no longer in the catalog"
        have = {f"{c.name.lower()}:{c.type.lower()}" for c in table.columns}
        gone = [c for c in cols if c not in have]
        if gone:
            return f"{table_name}: column {gone[0]} changed or was removed"
    return None


def check_entry(entry: Entry, catalog: Catalog, warehouse: Warehouse, row_cap: int) -> str | None:
    """Why the entry is stale now (catalog, guard, or the warehouse's compile check)."""
    reason = catalog_stale(entry, catalog)
    if reason:
        return reason
    guarded = guard_entry(entry, catalog, warehouse.dialect, row_cap)
    if guarded.reason:
        return f"refused by the guard: {guarded.reason}"
    failed = compile_step(guarded.sql, warehouse, Trace("verified check"))
    if failed is not None:
        return f"does not compile on the warehouse: {str(failed).splitlines()[0]}"
    return None
