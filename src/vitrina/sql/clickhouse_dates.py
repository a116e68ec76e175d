"""Time grains in ClickHouse's own functions.

ClickHouse has ``date_trunc`` but it returns a DateTime for some units and its week is
not always Monday-based across versions; ``toStartOfMonth`` and its kin return a Date (a
Date32 for a Date32 column) and ``toMonday`` is the ISO week's first day, as DuckDB's and
PostgreSQL's ``date_trunc('week', ...)`` are. sqlglot's clickhouse dialect has no typed
expression for each of these, so they are written as the functions ClickHouse documents
(the guard's rendering may print them as ``dateTrunc``: the same bucket for a Date).
"""

from __future__ import annotations

from sqlglot import exp

CLICKHOUSE_GRAIN = {
    "day": "toDate",
    "week": "toMonday",
    "month": "toStartOfMonth",
    "quarter": "toStartOfQuarter",
    "year": "toStartOfYear",
}


def clickhouse_grain(grain: str, column: exp.Expr) -> exp.Expr:
    """The first day of ``column``'s bucket, a Date (cast: the bucket of a DateTime column
    is a DateTime in ClickHouse, a date on every other engine).

    >>> clickhouse_grain("month", exp.column("d", table="p")).sql("clickhouse")
    'CAST(toStartOfMonth(p.d) AS Nullable(DATE))'
    """
    bucket = exp.Anonymous(this=CLICKHOUSE_GRAIN[grain], expressions=[column])
    return exp.Cast(this=bucket, to=exp.DataType.build("DATE"))
