"""Row policies in the query: every policed table read through its filter, or no query.

`apply_row_filters` rewrites an accepted query: each reference to a table with a filter
(``FROM dwh.dim_client AS c``) becomes a derived table with the same name and columns and
fewer rows (``FROM (SELECT * FROM dwh.dim_client AS vp0 WHERE <filter>) AS c``), wherever
it stands: CTEs, subqueries, joins, set operations. `unfiltered_tables` is the independent
check run on the final SQL text, parsed again: a policed table read anywhere but as the
only source of such a wrapper with exactly its filter is refused (`policy_unfiltered`).

>>> import sqlglot
>>> filters = {"dwh.t": sqlglot.parse_one("vp0.region = 'M'")}
>>> tree = sqlglot.parse_one("SELECT COUNT(*) FROM dwh.t JOIN dwh.u USING (a)")
>>> refs = table_references(tree, "duckdb")
>>> apply_row_filters(refs, TableIndex({"dwh.t", "dwh.u"}), filters)
>>> print(tree.sql())
SELECT COUNT(*) FROM (SELECT * FROM dwh.t AS vp0 WHERE vp0.region = 'M') AS t JOIN dwh.u USING (a)
>>> unfiltered_tables(tree.sql(dialect="duckdb"), "duckdb", TableIndex({"dwh.t", "dwh.u"}), filters)
[]
"""

from __future__ import annotations

from collections.abc import Iterator

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from vitrina.sql.guard.models import GuardViolation
from vitrina.sql.guard.tables import TableIndex, TableRef, table_references

FILTERED_ALIAS = "vp0"  # the policed table inside its wrapper (`vitrina.catalog.policy`)
# what a wrapper's SELECT may carry besides its star, its source and its filter: nothing
_WRAPPER_ARGS = {"expressions", "from_", "where"}


def _filter_of(ref: TableRef, catalog: TableIndex, filters: dict[str, exp.Expr]) -> exp.Expr | None:
    matches = catalog.resolve(ref.parts)
    return filters.get(matches[0]) if len(matches) == 1 else None


def apply_row_filters(
    tables: list[TableRef], catalog: TableIndex, filters: dict[str, exp.Expr]
) -> None:
    """Wrap every policed reference in place (the root is a query, never a bare table)."""
    for ref in tables:
        condition = _filter_of(ref, catalog, filters)
        if condition is None:
            continue
        table = ref.node
        alias = table.args.get("alias")
        pivots = table.args.get("pivots")
        inner = table.copy()
        for arg in ("alias", "pivots"):
            inner.set(arg, None)
        inner.set("alias", exp.TableAlias(this=exp.to_identifier(FILTERED_ALIAS)))
        wrapper = exp.Select(
            expressions=[exp.Star()],
            from_=exp.From(this=inner),
            where=exp.Where(this=condition.copy()),
        )
        name = alias if alias is not None else exp.TableAlias(this=table.this.copy())
        derived = exp.Subquery(this=wrapper, alias=name.copy())
        if pivots:
            derived.set("pivots", pivots)
        table.replace(derived)


def unfiltered_tables(
    sql: str, dialect: str, catalog: TableIndex, filters: dict[str, exp.Expr]
) -> list[str]:
    """Policed tables the final SQL reads without their filter (the text parsed again: the
    check does not trust the rewrite). Unparsable text counts as unfiltered."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except SqlglotError:
        return ["<unparsable>"]
    expected = {name: f.sql(dialect=dialect) for name, f in filters.items()}
    refs = table_references(tree, dialect)
    allowed: set[int] = set()  # tables inside a checked wrapper's filter: the filter itself
    wrapped: set[int] = set()
    for ref in refs:
        name = _resolved(ref, catalog)
        if name in expected and _is_wrapper(ref.node, expected[name], dialect):
            wrapped.add(id(ref.node))
            where = ref.node.parent.parent.args["where"]  # type: ignore[union-attr]
            allowed |= {id(t) for t in where.find_all(exp.Table)}
    return sorted(
        {
            name
            for ref in refs
            if (name := _resolved(ref, catalog)) in expected
            and id(ref.node) not in wrapped
            and id(ref.node) not in allowed
        }
    )


def _resolved(ref: TableRef, catalog: TableIndex) -> str:
    matches = catalog.resolve(ref.parts)
    return matches[0] if len(matches) == 1 else ref.name


def _is_wrapper(table: exp.Table, expected: str, dialect: str) -> bool:
    """``(SELECT * FROM <table> AS vp0 WHERE <its filter>) AS name``, nothing else."""
    source = table.parent
    select = source.parent if isinstance(source, exp.From) else None
    if not isinstance(select, exp.Select) or not isinstance(select.parent, exp.Subquery):
        return False
    if select.parent.this is not select:
        return False
    if any(value for key, value in select.args.items() if key not in _WRAPPER_ARGS):
        return False
    stars = select.expressions
    where = select.args.get("where")
    return (
        len(stars) == 1
        and isinstance(stars[0], exp.Star)
        and table.alias == FILTERED_ALIAS
        and isinstance(where, exp.Where)
        and where.this.sql(dialect=dialect) == expected
    )


def policy_violations(
    sql: str, dialect: str, catalog: TableIndex, filters: dict[str, exp.Expr]
) -> Iterator[GuardViolation]:
    """One violation per policed table the final SQL reads without its filter."""
    for name in unfiltered_tables(sql, dialect, catalog, filters):
        yield GuardViolation(
            rule="policy_unfiltered",
            message_en=(
                f"The row policy of this token restricts {name}, and the query reads it "
                "without the policy's filter. Read the table directly by its name (FROM, JOIN): "
                "Vitrina adds the filter itself."
            ),
            message_ru=(
                f"Политика доступа этого токена ограничивает строки {name}, а запрос читает "
                "таблицу без её фильтра. Обращайтесь к таблице по имени (FROM, JOIN): "
                "Vitrina сама добавит фильтр."
            ),
            fragment=name,
        )


def policy_invalid(reason_en: str, reason_ru: str) -> GuardViolation:
    """The token's policy no longer fits the catalog: every query is refused (fail closed)."""
    return GuardViolation(
        rule="policy_invalid",
        message_en=(
            f"The row policy of this token cannot be applied ({reason_en}); every query is "
            "refused until an administrator creates the token again with a valid policy."
        ),
        message_ru=(
            f"Политику доступа этого токена нельзя применить ({reason_ru}); все запросы "
            "отклоняются, пока администратор не создаст токен заново с верной политикой."
        ),
    )
