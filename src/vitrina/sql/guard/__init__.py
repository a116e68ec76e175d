"""The SQL guard: SQL from a generator is parsed and checked before it reaches the warehouse.

Shaped like sqlglot's optimizer: :data:`RULES` is a tuple of small named functions, run in
order; each takes the parsed expression and only the extra arguments its signature names,
and yields violations. It cannot be switched off: every query Vitrina runs goes through
:func:`guard`, and what runs is the guard's normalised ``sql``, never the input text.

It allows, not denies (issue 11): every function must be on the dialect's allow-list,
every relation must be a catalog table or a CTE of the same statement, and a text too
big or too deep for sqlglot is refused before it is parsed. It fails closed: whatever it
cannot analyse (a ``RecursionError``, a query ``qualify`` cannot resolve) is refused, and
``GuardResult.events`` says why.

>>> guard("SELECT 1; DROP TABLE t", dialect="duckdb", allowed_tables=None).violations[0].rule
'single_statement'
>>> print(guard("select amount_rub from fact_payment", dialect="postgres",
...             allowed_tables={"dwh.fact_payment"}, row_cap=100).sql)
SELECT
  amount_rub
FROM dwh.fact_payment
LIMIT 100
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

from sqlglot import exp

from vitrina.sql.guard.columns import (
    allowed_columns,
    resolve_columns,
    session_keywords,
    sourceless_columns,
)
from vitrina.sql.guard.functions import (
    allowed_functions,
    dangerous_casts,
    dangerous_functions,
    parameters,
    relations,
    table_functions,
)
from vitrina.sql.guard.limits import limits_and_tokens, recursion_violation
from vitrina.sql.guard.messages import FRAGMENT_LIMIT
from vitrina.sql.guard.models import GuardResult, GuardViolation
from vitrina.sql.guard.nodes import Nodes
from vitrina.sql.guard.parse import parse_statement
from vitrina.sql.guard.policies import (
    RowFilter,
    apply_row_filters,
    policy_invalid,
    policy_violations,
)
from vitrina.sql.guard.rewrite import apply_row_cap, qualify_allowed_tables
from vitrina.sql.guard.rows import alias_references, group_by_positions, whole_rows
from vitrina.sql.guard.stars import expand_stars, star_projections
from vitrina.sql.guard.statements import (
    nested_statement,
    query_options,
    recursive_cte,
    row_locks,
    select_into,
    select_only,
    unwrap,
)
from vitrina.sql.guard.tables import (
    TableIndex,
    allowed_tables,
    file_references,
    system_catalogs,
    table_references,
)
from vitrina.trace import Trace

__all__ = ["RULES", "GuardResult", "GuardViolation", "guard", "guard_with_catalog", "normalise_sql"]

Rule = Callable[..., Iterable[GuardViolation]]

# Shape first: when the statement is not a query, the rules after it have nothing to say.
SHAPE_RULES: tuple[Rule, ...] = (select_only,)
RULES: tuple[Rule, ...] = (
    *SHAPE_RULES,
    nested_statement,
    select_into,
    query_options,
    row_locks,
    recursive_cte,
    parameters,
    dangerous_functions,
    allowed_functions,
    dangerous_casts,
    table_functions,
    relations,
    file_references,
    system_catalogs,
    allowed_tables,
    allowed_columns,
    sourceless_columns,
    session_keywords,
    whole_rows,
    star_projections,
    alias_references,
)
_PARAMETERS = {rule: tuple(inspect.signature(rule).parameters) for rule in RULES}
# Rules that mean "could not be analysed": each writes a trace event besides the violation.
FAIL_CLOSED_RULES = frozenset({"too_complex", "qualify_failed"})

if TYPE_CHECKING:
    from vitrina.catalog import Catalog
    from vitrina.sql.policy import RowPolicy


def guard(
    sql: str,
    *,
    dialect: str,
    allowed_tables: set[str] | None,
    allowed_columns: Mapping[str, Collection[str]] | None = None,
    row_cap: int | None = None,
    row_filters: dict[str, RowFilter] | None = None,
) -> GuardResult:
    """Check one SQL text; return the verdict, the normalised SQL and the tables it reads.

    ``allowed_tables`` (lower-case, schema-qualified names) of None means "any table",
    an empty set means "none". ``allowed_columns`` maps a table to its columns; tables
    missing from it are not column-checked. ``row_cap`` adds or lowers the outer LIMIT.
    ``row_filters`` (a row policy, `vitrina.sql.policy.table_filters`) maps a table to
    the filter every read of it gets; it needs ``allowed_tables``.
    A ``*`` over a table with a column list runs as those columns (in the given order; a
    set is sorted). An unknown ``dialect`` raises ValueError (a programming error, not a
    bad query).
    """
    trace = Trace("sql_guard")
    try:
        result = _guard(sql, dialect, allowed_tables, allowed_columns, row_cap, row_filters)
    except RecursionError:  # within the limits and still too deep for sqlglot: refuse
        result = GuardResult(
            ok=False, sql=sql.strip()[:FRAGMENT_LIMIT], violations=[recursion_violation()]
        )
    for found in result.violations:
        if found.rule in FAIL_CLOSED_RULES:
            trace.rejected(
                "guard failed closed: the query could not be analysed",
                rule=found.rule,
                reason=found.message_en,
            )
    return result.model_copy(update={"events": trace.events}) if trace.events else result


def _guard(
    sql: str,
    dialect: str,
    allowed_tables: set[str] | None,
    allowed_columns: Mapping[str, Collection[str]] | None,
    row_cap: int | None,
    row_filters: dict[str, RowFilter] | None = None,
) -> GuardResult:
    too_big, tokens = limits_and_tokens(sql, dialect)
    if too_big:
        return GuardResult(ok=False, sql=sql.strip()[:FRAGMENT_LIMIT], violations=too_big)
    expression, violations = parse_statement(sql, dialect, tokens)
    if expression is None:
        return GuardResult(ok=False, sql=sql.strip(), violations=violations)
    expression = unwrap(expression)
    catalog = TableIndex(allowed_tables) if allowed_tables is not None else None
    nodes = Nodes(expression)
    tables = table_references(nodes, dialect)
    options: dict[str, Any] = {
        "expression": expression,
        "nodes": nodes,
        "dialect": dialect,
        "tables": tables,
        "catalog": catalog,
        "columns": resolve_columns(allowed_columns, catalog),
    }
    for rule in RULES:
        found = list(rule(**{name: options[name] for name in _PARAMETERS[rule]}))
        violations.extend(found)
        if found and rule in SHAPE_RULES:
            break
    ok = not violations
    policed: set[str] = set()
    if ok:
        expand_stars(nodes, tables, catalog, options["columns"], dialect)
        group_by_positions(nodes, tables, catalog, options["columns"], dialect)
        qualify_allowed_tables(tables, catalog)
        if row_filters:
            policed = {_table_name(r.parts, catalog) for r in tables} & set(row_filters)
            apply_row_filters(tables, catalog or TableIndex(row_filters), row_filters, dialect)
        if row_cap is not None:
            expression = apply_row_cap(expression, row_cap)
    final = normalise_sql(expression, dialect)
    if ok and row_filters:  # the independent check, on the text that will run
        violations = list(
            policy_violations(final, dialect, catalog or TableIndex(row_filters), row_filters)
        )
        ok = not violations
    return GuardResult(
        ok=ok,
        sql=final,
        violations=violations,
        tables={_table_name(ref.parts, catalog) for ref in tables},
        policed=policed,
    )


def normalise_sql(expression: exp.Expr, dialect: str) -> str:
    """Pretty SQL in ``dialect`` without comments; function names keep their written case.
    The generator may rewrite ``expression`` (no copy): the guard's own tree, printed last."""
    return expression.sql(
        dialect=dialect, pretty=True, comments=False, normalize_functions=False, copy=False
    )


def _table_name(parts: tuple[str, ...], catalog: TableIndex | None) -> str:
    matches = catalog.resolve(parts) if catalog is not None else []
    return matches[0] if len(matches) == 1 else ".".join(parts).lower()


def guard_with_catalog(
    sql: str,
    catalog: Catalog,
    *,
    dialect: str,
    row_cap: int | None,
    policy: RowPolicy | None = None,
) -> GuardResult:
    """The guard as every job runs it: only the catalog's tables and columns, with the row cap,
    and the caller's row policy (`vitrina.sql.policy`) when it has one."""
    filters = None
    if policy:
        try:
            filters = policy.filters(catalog)
        except ValueError as exc:  # vitrina.sql.policy.PolicyError: fail closed
            return GuardResult(
                ok=False,
                sql=sql.strip()[:FRAGMENT_LIMIT],
                violations=[
                    policy_invalid(
                        getattr(exc, "message_en", str(exc)), getattr(exc, "message_ru", str(exc))
                    )
                ],
            )
    return guard(
        sql,
        dialect=dialect,
        allowed_tables=set(catalog.tables),
        allowed_columns=_ordered_columns(catalog),
        row_cap=row_cap,
        row_filters=filters,
    )


def _ordered_columns(catalog: Catalog) -> dict[str, list[str]]:
    """The catalog's columns per table in its own order (a ``*`` expands in that order)."""
    if "guard_columns" not in catalog.cache:
        catalog.cache["guard_columns"] = {
            name: [column.name for column in table.columns]
            for name, table in catalog.tables.items()
        }
    return cast(dict[str, list[str]], catalog.cache["guard_columns"])
