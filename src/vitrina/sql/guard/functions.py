"""Function rules: a deny-list anywhere in the tree, an allow-list in FROM position."""

from __future__ import annotations

from collections.abc import Iterator

from sqlglot import exp

from vitrina.sql.guard.dialects import TABLE_FUNCTIONS, deny_list
from vitrina.sql.guard.messages import sql_fragment, violation
from vitrina.sql.guard.models import GuardViolation
from vitrina.sql.guard.tables import function_name, is_system_function


def dangerous_functions(expression: exp.Expr, dialect: str) -> Iterator[GuardViolation]:
    """No file/network readers, sleeps, shells, lock or setting functions, wherever they hide.

    Names are compared case-insensitively and without their schema, so ``PG_SLEEP(1)``,
    ``"pg_sleep"(1)`` and ``pg_catalog.pg_sleep(1)`` are all caught.
    """
    denied = deny_list(dialect)
    for func in expression.find_all(exp.Func):
        name = function_name(func)
        if denied.denies(name):
            yield violation("dangerous_functions", sql_fragment(func, dialect), name=name)


def table_functions(expression: exp.Expr, dialect: str) -> Iterator[GuardViolation]:
    """A function in FROM must be a known row generator (generate_series, unnest, ...).

    Anything else could read outside the allowed tables (DuckDB's ``query('...')``, a
    foreign scanner, a user function), so the FROM position uses an allow-list.
    """
    denied = deny_list(dialect)
    for table in expression.find_all(exp.Table):
        func = table.this
        if not isinstance(func, exp.Func):
            continue
        name = function_name(func)
        if name in TABLE_FUNCTIONS or denied.denies(name) or is_system_function(name):
            continue  # allowed, or reported by dangerous_functions / system_catalogs
        yield violation("table_functions", sql_fragment(func, dialect), name=name)
