"""Restrict the aggregates of an expression to the rows matching a condition.

Used by the ask compiler (a metric's own filter when metrics differ, the part of a share) and
by the catalog (a ratio metric of two metrics with their own filters); it lives in the
catalog because the ask job sits above it (and sql imports the catalog).
"""

from __future__ import annotations

from sqlglot import exp


def restrict_one(node: exp.Expression, cond: exp.Expression, style: str) -> exp.Expression:
    """Restrict one aggregate to rows matching `cond`: FILTER (WHERE ...) or CASE WHEN inside."""
    if not isinstance(node, exp.AggFunc):
        return node
    if style == "filter":
        return exp.Filter(this=node, expression=exp.Where(this=cond.copy()))
    arg = node.this
    if isinstance(arg, exp.Star):
        node.set("this", exp.Case(ifs=[exp.If(this=cond.copy(), true=exp.Literal.number(1))]))
    elif isinstance(arg, exp.Distinct):
        arg.set(
            "expressions",
            [exp.Case(ifs=[exp.If(this=cond.copy(), true=e)]) for e in arg.expressions],
        )
    elif arg is not None:
        node.set("this", exp.Case(ifs=[exp.If(this=cond.copy(), true=arg.copy())]))
    return node


def restrict(tree: exp.Expression, cond: exp.Expression, style: str = "filter") -> exp.Expression:
    """Every aggregate of `tree` restricted to rows matching `cond`.

    >>> import sqlglot
    >>> restrict(sqlglot.parse_one("SUM(x)"), sqlglot.parse_one("y = 1"), "case").sql()
    'SUM(CASE WHEN y = 1 THEN x END)'
    """
    return tree.copy().transform(lambda node: restrict_one(node, cond, style))
