"""Statement-shape rules: one read-only query, nothing that writes, locks or creates."""

from __future__ import annotations

from collections.abc import Iterator

from sqlglot import exp

from vitrina.sql.guard.messages import sql_fragment, violation
from vitrina.sql.guard.models import GuardViolation
from vitrina.sql.guard.nodes import Nodes

# Roots the guard accepts. A bare top-level VALUES is not among them: its numbers would
# come from the generator, not from the warehouse (VALUES inside a query is fine).
QUERY_ROOTS: tuple[type[exp.Expr], ...] = (exp.Select, exp.SetOperation, exp.Subquery)

# Statement nodes that must not appear anywhere in the tree (data-modifying CTEs,
# DuckDB's FROM (DESCRIBE t), a Command that sqlglot could not parse, ...).
STATEMENT_NODES: tuple[type[exp.Expr], ...] = (
    exp.DML,  # INSERT, UPDATE, DELETE, MERGE, COPY
    exp.DDL,  # CREATE (and INSERT again)
    exp.Drop,
    exp.Alter,
    exp.TruncateTable,
    exp.Command,  # CALL, DO, EXECUTE, LOAD, VACUUM, RESET, PREPARE, ... (sqlglot's fallback)
    exp.Set,
    exp.Pragma,
    exp.Attach,
    exp.Detach,
    exp.Install,
    exp.Use,
    exp.Transaction,
    exp.Commit,
    exp.Rollback,
    exp.Grant,
    exp.Revoke,
    exp.Export,
    exp.LoadData,
    exp.Execute,
    exp.Kill,
    exp.Comment,
    exp.Cache,
    exp.Uncache,
    exp.Refresh,
    exp.Analyze,
    exp.Describe,
    exp.Summarize,
    exp.Show,
    exp.Declare,
    exp.Undrop,
)


def statement_kind(node: exp.Expr, dialect: str) -> str:
    """A short upper-case name for a statement: DROP, INSERT, CALL, CHECKPOINT..."""
    if isinstance(node, exp.Command):
        return str(node.this).upper()
    text = node.sql(dialect).strip()
    return (text.split(None, 1)[0] if text else node.key).upper()


def unwrap(expression: exp.Expr) -> exp.Expr:
    """``((SELECT 1))`` -> ``SELECT 1``: redundant parentheses around the whole query."""
    while (
        isinstance(expression, exp.Subquery)
        and isinstance(expression.this, exp.Query)
        and not any(v for k, v in expression.args.items() if k != "this")
    ):
        expression = expression.this.pop()
    return expression


def select_only(expression: exp.Expr, dialect: str) -> Iterator[GuardViolation]:
    """The statement must be a query: SELECT, WITH ... SELECT, or a set operation of them."""
    if not isinstance(expression, QUERY_ROOTS) or (
        isinstance(expression, exp.Subquery) and not isinstance(expression.this, exp.Query)
    ):
        kind = statement_kind(expression, dialect)
        yield violation("select_only", statement_kind(expression, dialect), kind=kind)


def nested_statement(nodes: Nodes, dialect: str) -> Iterator[GuardViolation]:
    """No write, DDL or utility statement may hide inside the query (``WITH d AS (DELETE ...)``)."""
    for node in nodes.find_all(*STATEMENT_NODES):
        kind = statement_kind(node, dialect)
        yield violation("nested_statement", sql_fragment(node, dialect), kind=kind)


def select_into(nodes: Nodes, dialect: str) -> Iterator[GuardViolation]:
    """``SELECT ... INTO t`` creates a table (PostgreSQL) or assigns variables."""
    for node in nodes.find_all(exp.Into):
        yield violation("select_into", sql_fragment(node, dialect))


def query_options(nodes: Nodes, dialect: str) -> Iterator[GuardViolation]:
    """ClickHouse's ``SETTINGS`` and ``FORMAT`` clauses: a query may not change its own
    limits or read-only setting, nor choose how its rows are written."""
    for node in nodes.find_all(exp.Query):
        for key in ("settings", "format"):
            if node.args.get(key):
                yield violation(
                    "query_options",
                    f"{key.upper()} " + ", ".join(sql_fragment(v, dialect) for v in node.args[key])
                    if isinstance(node.args[key], list)
                    else key.upper(),
                )


def row_locks(nodes: Nodes, dialect: str) -> Iterator[GuardViolation]:
    """``FOR UPDATE`` / ``FOR SHARE`` take locks: a reader must not block writers."""
    for node in nodes.find_all(exp.Lock):
        yield violation("row_locks", sql_fragment(node, dialect).strip())


def recursive_cte(nodes: Nodes, dialect: str) -> Iterator[GuardViolation]:
    """``WITH RECURSIVE`` can run without bound; analytical questions never need it."""
    for node in nodes.find_all(exp.With):
        if node.args.get("recursive"):
            yield violation("recursive_cte", sql_fragment(node, dialect))
