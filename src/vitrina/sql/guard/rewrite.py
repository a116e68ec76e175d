"""Rewrites applied to an accepted query: pin allowed tables to their schema, cap rows."""

from __future__ import annotations

from sqlglot import exp

from vitrina.sql.guard.tables import TableIndex, TableRef

CAPPED_ALIAS = "capped"


def qualify_allowed_tables(tables: list[TableRef], catalog: TableIndex | None) -> None:
    """``fact_payment`` -> ``dwh.fact_payment``: the search path then cannot pick another table.

    A bare table name is still valid as a column qualifier after this in DuckDB and
    PostgreSQL, so the rest of the query is left as written.
    """
    if catalog is None:
        return
    for ref in tables:
        matches = catalog.resolve(ref.parts)
        if len(matches) != 1:
            continue
        full = matches[0].split(".")
        if len(full) <= len(ref.parts):
            continue
        qualifiers = full[:-1]
        ref.node.set("db", exp.to_identifier(qualifiers[-1]))
        if len(qualifiers) == 2:
            ref.node.set("catalog", exp.to_identifier(qualifiers[0]))


def apply_row_cap(expression: exp.Expr, row_cap: int) -> exp.Expr:
    """Make the outer query return at most ``row_cap`` rows; inner LIMITs are not touched.

    A smaller integer LIMIT stays; a larger one, LIMIT ALL or LIMIT NULL becomes the cap;
    a LIMIT we cannot compare (an expression, a parameter, PERCENT, WITH TIES) keeps its
    meaning and the whole query is wrapped: ``SELECT * FROM (...) AS capped LIMIT n``.

    >>> import sqlglot
    >>> apply_row_cap(sqlglot.parse_one("SELECT a FROM t LIMIT 5000"), 1000).sql()
    'SELECT a FROM t LIMIT 1000'
    """
    cap = exp.Literal.number(row_cap)
    limit = expression.args.get("limit")
    if limit is None:
        expression.set("limit", exp.Limit(expression=cap))
        return expression
    options = limit.args.get("limit_options")
    special = options is not None and (options.args.get("percent") or options.args.get("with_ties"))
    key = "count" if isinstance(limit, exp.Fetch) else "expression"
    count = limit.args.get(key)
    if not special:
        if count is None and isinstance(limit, exp.Fetch):
            return expression  # FETCH FIRST ROW ONLY: one row
        if isinstance(count, exp.Null) or (
            isinstance(count, exp.Var) and count.name.upper() == "ALL"
        ):
            limit.set(key, cap)
            return expression
        if isinstance(count, exp.Literal) and count.is_int:
            if int(count.name) > row_cap:
                limit.set(key, cap)
            return expression
    if not isinstance(expression, exp.Query):  # only a query carries a LIMIT to keep
        raise TypeError(f"a row cap applies to a query, not to {type(expression).__name__}")
    return exp.select("*").from_(expression.subquery(CAPPED_ALIAS)).limit(row_cap)
