"""`catalog check --db`: compile the catalog against the real database, without running it.

A catalog can be consistent with itself and still name a column the warehouse lacks (a
typo in a table file, a column renamed upstream). Each table's columns, each metric (its
expression and filter over its table), each relation (the join) and each dictionary column
is rendered in the warehouse's dialect and compiled by the engine (EXPLAIN; DuckDB:
DESCRIBE): an error here is a question refused at ask time, found before anyone asks it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import sqlglot
from sqlglot import exp

from vitrina.catalog.catalog import Catalog

if TYPE_CHECKING:
    from vitrina.warehouse.engine import Warehouse

CATALOG_DIALECT = "postgres"  # the dialect catalog expressions are written in


@dataclass(frozen=True)
class DbProblem:
    where: str  # "metrics revenue", "relations a.x -> b.y", "tables dwh.fact"
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


def _table(name: str, alias: str) -> exp.Expression:
    return exp.to_table(name).as_(alias)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def metric_query(catalog: Catalog, metric_id: str) -> exp.Expression:
    """SELECT <expression> FROM <table> [WHERE <filter>]: the metric alone on its own table."""
    metric = catalog.metrics[metric_id]
    select = sqlglot.parse_one(metric.expression, read=CATALOG_DIALECT)
    query = exp.select(select).from_(_table(metric.table, "t"))
    if metric.filter:
        query = query.where(sqlglot.parse_one(metric.filter, read=CATALOG_DIALECT))
    return query


def _queries(catalog: Catalog) -> list[tuple[str, exp.Expression]]:
    out: list[tuple[str, exp.Expression]] = []
    for table in catalog.tables.values():
        columns = [exp.column(c.name, table="t") for c in table.columns]
        out.append((f"tables {table.name}", exp.select(*columns).from_(_table(table.name, "t"))))
    for metric_id in catalog.metrics:
        out.append((f"metrics {metric_id}", metric_query(catalog, metric_id)))
    for rel in catalog.relations:
        on = exp.EQ(
            this=exp.column(rel.left_column, table="l"),
            expression=exp.column(rel.right_column, table="r"),
        )
        query = (
            exp.select(exp.Literal.number(1))
            .from_(_table(rel.left_table, "l"))
            .join(_table(rel.right_table, "r"), on=on)
        )
        out.append((f"relations {rel.left} -> {rel.right}", query))
    for dic in catalog.dictionaries.values():
        query = exp.select(exp.column(dic.column_name, table="t")).from_(_table(dic.table, "t"))
        out.append((f"dictionaries {dic.column}", query))
    return out


def check_against_database(catalog: Catalog, warehouse: Warehouse) -> list[DbProblem]:
    """Every catalog item the database cannot plan, with the engine's first line of error.

    EXPLAIN runs through the warehouse's read-only connection; a connection failure is
    raised, not reported per item.
    """
    from vitrina.warehouse.engine import WarehouseError

    problems: list[DbProblem] = []
    for where, query in _queries(catalog):
        try:
            sql = query.sql(dialect=warehouse.dialect)
        except sqlglot.errors.SqlglotError as exc:
            problems.append(DbProblem(where, f"cannot be written in {warehouse.dialect}: {exc}"))
            continue
        try:
            warehouse.explain(sql)
        except WarehouseError as exc:
            if exc.kind in ("connect", "privileged"):
                raise
            problems.append(DbProblem(where, f"the database rejects it: {_first_line(exc)}"))
    return problems
