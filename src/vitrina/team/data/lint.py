"""The SQL standards lint (skill ``sql-standards``): small named rules over the parsed SELECT.

Shaped like the guard: :data:`RULES` is a tuple of functions, each taking the tree and
returning findings with the skill's code, so a builder can look each one up.

>>> [f.code for f in lint_sql("SELECT * FROM a, b", "duckdb")]
['SQL-001', 'SQL-004']
>>> lint_sql("SELECT SUM(x) AS total FROM t", "duckdb")
[]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError


@dataclass(frozen=True)
class LintFinding:
    code: str
    message: str


def no_star(tree: exp.Expression) -> list[LintFinding]:
    if any(isinstance(p, exp.Star) for s in tree.find_all(exp.Select) for p in s.expressions):
        return [LintFinding("SQL-001", "SELECT * : name the columns")]
    return []


def aliased_expressions(tree: exp.Expression) -> list[LintFinding]:
    select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    if select is None:
        return []
    return [
        LintFinding("SQL-002", f"'{p.sql()[:60]}' has no alias")
        for p in select.expressions
        if not isinstance(p, exp.Alias | exp.Column | exp.Star)
    ]


def qualified_columns(tree: exp.Expression) -> list[LintFinding]:
    select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    if (
        select is None
        or len([t for t in select.find_all(exp.Table) if t.find_ancestor(exp.Select) is select]) < 2
    ):
        return []
    aliases = {p.alias.lower() for p in select.expressions if isinstance(p, exp.Alias)}
    loose = {
        c.sql()
        for c in select.find_all(exp.Column)
        if not c.table
        and c.find_ancestor(exp.Select) is select
        and not (c.find_ancestor(exp.Order, exp.Group) and c.name.lower() in aliases)
    }
    return [
        LintFinding("SQL-003", f"column {name} is not qualified with its table's alias")
        for name in sorted(loose)
    ]


def explicit_joins(tree: exp.Expression) -> list[LintFinding]:
    findings = []
    for select in tree.find_all(exp.Select):
        from_ = select.args.get("from_") or select.args.get("from")
        if from_ is not None and len(from_.expressions) > 1:
            findings.append(LintFinding("SQL-004", "comma join: write JOIN ... ON"))
        for join in select.args.get("joins") or []:
            if not join.args.get("on") and not join.args.get("using"):
                findings.append(
                    LintFinding("SQL-004", f"join to {join.this.sql()} has no condition")
                )
    return findings


def ordered_series(tree: exp.Expression) -> list[LintFinding]:
    select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    if select is None or not select.args.get("group"):
        return []
    periods = [
        p.alias_or_name
        for p in select.expressions
        if (p.this if isinstance(p, exp.Alias) else p).find(exp.DateTrunc, exp.TimestampTrunc)
        or "date_trunc" in p.sql().lower()
        or "strftime" in p.sql().lower()
    ]
    if not periods:
        return []
    order = select.args.get("order")
    ordered = {o.this.alias_or_name for o in order.expressions} if order else set()
    return (
        []
        if set(periods) & ordered
        else [LintFinding("SQL-005", f"the series over {periods[0]} is not ordered by its period")]
    )


def half_open_dates(tree: exp.Expression) -> list[LintFinding]:
    return [
        LintFinding(
            "SQL-006",
            f"BETWEEN on dates: '{b.sql()[:60]}': use >= start AND < the day after the end",
        )
        for b in tree.find_all(exp.Between)
    ]


RULES: tuple[Callable[[exp.Expression], list[LintFinding]], ...] = (
    no_star,
    aliased_expressions,
    qualified_columns,
    explicit_joins,
    ordered_series,
    half_open_dates,
)


def lint_sql(sql: str, dialect: str) -> list[LintFinding]:
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except SqlglotError as exc:
        return [LintFinding("GUARD-001", f"the SQL does not parse: {str(exc).splitlines()[0]}")]
    return [finding for rule in RULES for finding in rule(tree)]
