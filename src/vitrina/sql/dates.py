"""Time buckets and weekday tests in each engine's own date functions.

The compiler asks for "the first day of the month of this date" or "is it a weekend";
DuckDB, PostgreSQL and Trino have ``DATE_TRUNC`` and ISO weekdays, the others do not:

* SQLite: ``date()`` modifiers (``'start of month'``, ``'weekday 1'``) and ``strftime``;
* MariaDB / MySQL: ``DATE_FORMAT``, ``MAKEDATE``, ``WEEKDAY`` (Monday = 0);
* SQL Server: ``DATEFROMPARTS`` and day counts from 1900-01-01, a Monday (``DATEPART(weekday)``
  depends on the session's ``DATEFIRST``, which the guard does not let a query read).

Every bucket is a DATE (the first day of the bucket); weeks start on Monday everywhere.
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp

from vitrina.sql.clickhouse_dates import clickhouse_grain

GRAINS = ("day", "week", "month", "quarter", "year")

# {c} is the date column, already rendered in the dialect
TEMPLATES: dict[str, dict[str, str]] = {
    "sqlite": {
        "day": "DATE({c})",
        "week": "DATE({c}, '-6 days', 'weekday 1')",
        "month": "DATE({c}, 'start of month')",
        "quarter": "DATE({c}, 'start of month', '-' || ((CAST(STRFTIME('%m', {c}) AS INTEGER) - 1)"
        " % 3) || ' months')",
        "year": "DATE({c}, 'start of year')",
    },
    "mysql": {
        "day": "DATE({c})",
        "week": "DATE_SUB(DATE({c}), INTERVAL WEEKDAY({c}) DAY)",
        "month": "CAST(DATE_FORMAT({c}, '%Y-%m-01') AS DATE)",
        "quarter": "DATE_ADD(MAKEDATE(YEAR({c}), 1), INTERVAL (QUARTER({c}) - 1) * 3 MONTH)",
        "year": "MAKEDATE(YEAR({c}), 1)",
    },
    "tsql": {
        "day": "CAST({c} AS DATE)",
        "week": "DATEADD(DAY, -(DATEDIFF(DAY, DATEFROMPARTS(1900, 1, 1), {c}) % 7), "
        "CAST({c} AS DATE))",
        "month": "DATEFROMPARTS(YEAR({c}), MONTH({c}), 1)",
        "quarter": "DATEFROMPARTS(YEAR({c}), (DATEPART(QUARTER, {c}) - 1) * 3 + 1, 1)",
        "year": "DATEFROMPARTS(YEAR({c}), 1, 1)",
    },
}
# Saturday and Sunday as each engine numbers them
WEEKEND_TEMPLATES: dict[str, tuple[str, tuple[int, ...], tuple[int, ...]]] = {
    "sqlite": ("CAST(STRFTIME('%w', {c}) AS INTEGER)", (0, 6), (1, 2, 3, 4, 5)),
    "mysql": ("WEEKDAY({c})", (5, 6), (0, 1, 2, 3, 4)),
    "clickhouse": ("toDayOfWeek({c})", (6, 7), (1, 2, 3, 4, 5)),  # Monday 1 .. Sunday 7
    "tsql": ("DATEDIFF(DAY, DATEFROMPARTS(1900, 1, 1), {c}) % 7", (5, 6), (0, 1, 2, 3, 4)),
    "trino": ("DAY_OF_WEEK({c})", (6, 7), (1, 2, 3, 4, 5)),
}


def grain_expr(grain: str, column: exp.Expr, dialect: str) -> exp.Expr:
    """The first day of ``column``'s ``grain`` bucket, as a DATE, in ``dialect``."""
    if grain not in GRAINS:
        raise ValueError(f"unknown time grain {grain!r}; one of {', '.join(GRAINS)}")
    if dialect == "clickhouse":  # toStartOfMonth & co.; a day is toDate of a timestamp
        return clickhouse_grain(grain, column)
    template = TEMPLATES.get(dialect, {}).get(grain)
    if template:
        text = template.format(c=column.sql(dialect=dialect))
        return sqlglot.parse_one(text, read=dialect)
    trunc = exp.Anonymous(this="DATE_TRUNC", expressions=[exp.Literal.string(grain), column])
    return exp.Cast(this=trunc, to=exp.DataType.build("DATE"))


def day_kind_condition(kind: str, column: exp.Expr, dialect: str) -> exp.Expr:
    """Weekend (Saturday, Sunday) or weekday rows of ``column``, in ``dialect``'s words."""
    if dialect in WEEKEND_TEMPLATES:
        template, weekend, weekdays = WEEKEND_TEMPLATES[dialect]
        day = sqlglot.parse_one(template.format(c=column.sql(dialect=dialect)), read=dialect)
        if isinstance(day, exp.Binary):
            day = exp.paren(day, copy=False)
        values = weekend if kind == "weekend" else weekdays
        return exp.In(this=day, expressions=[exp.Literal.number(v) for v in values])
    day = exp.Extract(this=exp.var("ISODOW"), expression=column)
    values_iso = [6, 7] if kind == "weekend" else [1, 2, 3, 4, 5]
    return exp.In(this=day, expressions=[exp.Literal.number(v) for v in values_iso])
