"""The data steward's independent query: a KPI's value written from the metric's definition.

Not through the planner: the metric's expression, its filter and its date column go
straight into one SELECT over the metric's table, and a filter or a date on another table
becomes a semi-join (``key IN (SELECT ...)``) along the catalog's relations instead of a
join. A
join that multiplies rows, a lost filter or a wrong period in the planned view shows up
as a different number.
"""

from __future__ import annotations

from datetime import date, timedelta

import sqlglot
from sqlglot import exp

from vitrina.catalog import Catalog
from vitrina.catalog.model import Metric

CATALOG_DIALECT = "postgres"  # the dialect catalog expressions are written in (docs/catalog.md)


def _columns_of(sql: str) -> set[str]:
    return {
        c.name.lower() for c in sqlglot.parse_one(sql, read=CATALOG_DIALECT).find_all(exp.Column)
    }


def _semi_join(catalog: Catalog, base: str, column: str, values: list[str]) -> exp.Expression:
    """``column IN values`` when on ``base``, else nested ``key IN (SELECT key FROM next ...)``."""
    table, name = column.rsplit(".", 1)
    literals = [exp.Literal.string(v) for v in values]
    return _reach(catalog, base, table, exp.In(this=exp.column(name), expressions=literals))


def _reach(catalog: Catalog, base: str, table: str, condition: exp.Expression) -> exp.Expression:
    """``condition`` on ``table``'s rows as a condition on ``base``'s rows: itself when the
    tables are one, else ``fk IN (SELECT pk FROM next WHERE ...)`` along the relations."""
    if table == base:
        return condition
    path = catalog.join_path(base, table)
    if path is None:
        raise ValueError(f"{table} is not reachable from {base}")
    hops: list[
        tuple[str, str, str]
    ] = []  # (near column, far table, far column), from the base outwards
    current = base
    for relation in path:
        near, far = (
            (relation.left, relation.right)
            if relation.left_table == current
            else (relation.right, relation.left)
        )
        far_table, far_column = far.rsplit(".", 1)
        hops.append((near.rsplit(".", 1)[1], far_table, far_column))
        current = far_table
    for near_column, far_table, far_column in reversed(
        hops
    ):  # WHERE fk IN (SELECT pk FROM dim WHERE ...)
        sub = exp.select(exp.column(far_column)).from_(exp.to_table(far_table)).where(condition)
        condition = exp.column(near_column).isin(query=sub)
    return condition


def _period(column: str, start: date, end: date) -> exp.Expression:
    """``start <= column < end + 1 day`` (a timestamp's last day counted whole)."""
    after_end = (end + timedelta(days=1)).isoformat()
    return exp.and_(
        exp.GTE(
            this=exp.column(column),
            expression=exp.cast(exp.Literal.string(start.isoformat()), "DATE"),
        ),
        exp.LT(this=exp.column(column), expression=exp.cast(exp.Literal.string(after_end), "DATE")),
    )


def independent_sql(
    metric: Metric,
    catalog: Catalog,
    *,
    start: date,
    end: date,
    filters: list[tuple[str, list[str]]],
    dialect: str,
) -> str:
    """One SELECT of the metric's value for the period, with ``filters`` as (table.column,
    values)."""
    value = sqlglot.parse_one(metric.expression, read=CATALOG_DIALECT)
    conditions: list[exp.Expression] = []
    filtered = {c.rsplit(".", 1)[1] for c, _ in filters if c.rsplit(".", 1)[0] == metric.table}
    if metric.filter and not (
        _columns_of(metric.filter) & filtered
    ):  # the user's filter replaces the metric's
        conditions.append(sqlglot.parse_one(metric.filter, read=CATALOG_DIALECT))
    dated = catalog.metric_date(metric)  # the date ask uses, on the metric's table or joined
    if dated:
        conditions.append(
            _reach(catalog, metric.table, dated.table, _period(dated.column, start, end))
        )
    for column, values in filters:
        conditions.append(_semi_join(catalog, metric.table, column, values))
    query = exp.select(exp.alias_(value, "value")).from_(exp.to_table(metric.table))
    if conditions:
        query = query.where(exp.and_(*conditions))
    return query.sql(dialect=dialect, pretty=True)
