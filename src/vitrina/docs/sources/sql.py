"""Tables read by a partition's SQL query (T-SQL), parsed with sqlglot."""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from vitrina.docs.sources.types import SourceRef
from vitrina.trace import Trace


def object_name(table: exp.Table, default_schema: str = "dbo") -> str:
    """`[dbo].[FactSale]` -> `dbo.factsale` (database part dropped: one warehouse per model)."""
    schema = table.db or default_schema
    return f"{schema}.{table.name}".lower()


def sql_source(
    sql: str, *, trace: Trace | None = None, server: str | None = None, database: str | None = None
) -> SourceRef:
    """Parse one SELECT; name its tables and, for simple selects, map output columns."""
    try:
        tree = sqlglot.parse_one(sql, read="tsql")
    except SqlglotError as exc:
        if trace is not None:
            trace.suppressed(
                "partition SQL did not parse; tables found by a token scan", error=str(exc)[:200]
            )
        return SourceRef(
            kind="query",
            objects=_scan_names(sql),
            sql=sql,
            server=server,
            database=database,
            warnings=[
                f"partition query did not parse ({str(exc).splitlines()[0][:120]}); "
                "tables found by a token scan"
            ],
        )
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    objects: list[str] = []
    for table in tree.find_all(exp.Table):
        if not table.name or table.name.lower() in ctes:
            continue
        name = object_name(table)
        if name not in objects:
            objects.append(name)
    columns: dict[str, str] = {}
    select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    if select is not None and len(objects) == 1:
        for proj in select.expressions:
            if isinstance(proj, exp.Star) or (
                isinstance(proj, exp.Column) and isinstance(proj.this, exp.Star)
            ):
                continue
            inner = proj.this if isinstance(proj, exp.Alias) else proj
            if isinstance(inner, exp.Column):
                columns[proj.alias_or_name.lower()] = inner.name.lower()
    return SourceRef(
        kind="query", objects=objects, sql=sql, server=server, database=database, columns=columns
    )


def _scan_names(sql: str) -> list[str]:
    """Last resort: names after FROM / JOIN."""
    import re

    names: list[str] = []
    pattern = r"\b(?:FROM|JOIN)\s+((?:\[[^\]]+\]|\w+)(?:\s*\.\s*(?:\[[^\]]+\]|\w+))*)"
    for m in re.finditer(pattern, sql, re.IGNORECASE):
        parts = [p.strip().strip("[]") for p in m.group(1).split(".")]
        name = ".".join(parts[-2:]) if len(parts) > 1 else f"dbo.{parts[0]}"
        if name.lower() not in names:
            names.append(name.lower())
    return names
