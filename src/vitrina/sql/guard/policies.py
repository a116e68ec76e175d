"""Row policies in the query: every policed table read through its filter, or no query.

`apply_row_filters` rewrites an accepted query: each reference to a table with a filter
(``FROM dwh.dim_client AS c``) becomes a derived table with the same name and the catalog's
columns, and fewer rows (``FROM (SELECT vp0.a, ... FROM dwh.dim_client AS vp0 WHERE
<filter>) AS c``), wherever it stands: CTEs, subqueries, joins, set operations. A reference
already read through such a wrapper is left as it is, so guarding guarded SQL again changes
nothing. `unfiltered_tables` is the independent check run on the final SQL text, parsed
again: a policed table read anywhere but as the only source of a wrapper with exactly its
filter is refused (`policy_unfiltered`).

>>> import sqlglot
>>> filters = {"dwh.t": RowFilter(sqlglot.parse_one("vp0.region = 'M'"), ("a", "region"))}
>>> tree = sqlglot.parse_one("SELECT COUNT(*) FROM dwh.t JOIN dwh.u USING (a)")
>>> index = TableIndex({"dwh.t", "dwh.u"})
>>> apply_row_filters(table_references(tree, "duckdb"), index, filters, "duckdb")
>>> print(tree.sql())  # doctest: +NORMALIZE_WHITESPACE
SELECT COUNT(*) FROM (SELECT vp0.a, vp0.region FROM dwh.t AS vp0 WHERE vp0.region = 'M') AS t
JOIN dwh.u USING (a)
>>> unfiltered_tables(tree.sql(dialect="duckdb"), "duckdb", index, filters)
[]
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from vitrina.sql.guard.models import GuardViolation
from vitrina.sql.guard.tables import TableIndex, TableRef, table_references

FILTERED_ALIAS = "vp0"  # the policed table inside its wrapper (`vitrina.sql.policy`)
# what a wrapper's SELECT may carry besides its columns, its source and its filter: nothing
_WRAPPER_ARGS = {"expressions", "from_", "where"}
# what the filtered table itself may carry: its name, its alias, ONLY and a sample
_TABLE_ARGS = {"this", "db", "catalog", "alias", "only", "sample"}


@dataclass(frozen=True)
class RowFilter:
    """What every read of one table gets: ``condition`` over the alias ``vp0``, and the
    ``columns`` the derived table exposes (the catalog's, in its order; empty: ``*``)."""

    condition: exp.Expr
    columns: tuple[str, ...] = ()


def _resolved(ref: TableRef, catalog: TableIndex) -> str:
    matches = catalog.resolve(ref.parts)
    return matches[0] if len(matches) == 1 else ref.name


def apply_row_filters(
    tables: list[TableRef], catalog: TableIndex, filters: dict[str, RowFilter], dialect: str
) -> None:
    """Wrap, in place, every policed reference not already read through its filter."""
    done = _already_filtered(tables, catalog, filters, dialect)
    for ref in tables:
        found = filters.get(_resolved(ref, catalog))
        if found is None or id(ref.node) in done:
            continue
        table = ref.node
        alias = table.args.get("alias")
        pivots = table.args.get("pivots")
        inner = table.copy()
        for arg in ("alias", "pivots"):
            inner.set(arg, None)
        inner.set("alias", exp.TableAlias(this=exp.to_identifier(FILTERED_ALIAS)))
        positional = isinstance(alias, exp.TableAlias) and bool(alias.args.get("columns"))
        columns: list[exp.Expr] = (
            [exp.column(name, FILTERED_ALIAS) for name in found.columns]
            if found.columns and not positional  # `AS x(a, b)` names the table's own order
            else [exp.Star()]
        )
        wrapper = exp.Select(
            expressions=columns,
            from_=exp.From(this=inner),
            where=exp.Where(this=found.condition.copy()),
        )
        name = alias if alias is not None else exp.TableAlias(this=table.this.copy())
        derived = exp.Subquery(this=wrapper, alias=name.copy())
        if pivots:
            derived.set("pivots", pivots)
        table.replace(derived)


def _already_filtered(
    refs: list[TableRef], catalog: TableIndex, filters: dict[str, RowFilter], dialect: str
) -> set[int]:
    """Ids of the references read through a wrapper with their exact filter, and of those
    inside such a filter (the filter's own semi-joins)."""
    expected = {name: f.condition.sql(dialect=dialect) for name, f in filters.items()}
    found: set[int] = set()
    for ref in refs:
        name = _resolved(ref, catalog)
        if name in expected and _is_wrapper(ref.node, expected[name], dialect):
            found.add(id(ref.node))
            where = ref.node.parent.parent.args["where"]  # type: ignore[union-attr]
            found |= {id(t) for t in where.find_all(exp.Table)}
    return found


def unfiltered_tables(
    sql: str, dialect: str, catalog: TableIndex, filters: dict[str, RowFilter]
) -> list[str]:
    """Policed tables the final SQL reads without their filter (the text parsed again: the
    check does not trust the rewrite). Unparsable text counts as unfiltered."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except SqlglotError:
        return ["<unparsable>"]
    refs = table_references(tree, dialect)
    done = _already_filtered(refs, catalog, filters, dialect)
    return sorted(
        {
            name
            for ref in refs
            if (name := _resolved(ref, catalog)) in filters and id(ref.node) not in done
        }
    )


def _is_wrapper(table: exp.Table, expected: str, dialect: str) -> bool:
    """``(SELECT <*, or columns of vp0> FROM <table> AS vp0 WHERE <its filter>) AS name``."""
    source = table.parent
    select = source.parent if isinstance(source, exp.From) else None
    if not isinstance(select, exp.Select) or not isinstance(select.parent, exp.Subquery):
        return False
    if select.parent.this is not select or table.alias != FILTERED_ALIAS:
        return False
    alias = table.args.get("alias")
    if alias is None or alias.args.get("columns"):
        return False  # `AS vp0(x, y)` renames the table's columns: the filter would test others
    if any(value for key, value in table.args.items() if key not in _TABLE_ARGS):
        return False
    if any(value for key, value in select.args.items() if key not in _WRAPPER_ARGS):
        return False
    projection = select.expressions
    plain = all(
        isinstance(p, exp.Column)
        and isinstance(p.this, exp.Identifier)
        and p.table in ("", FILTERED_ALIAS)
        and not p.args.get("db")
        for p in projection
    )
    star = len(projection) == 1 and isinstance(projection[0], exp.Star)
    where = select.args.get("where")
    return (
        bool(projection)
        and (star or plain)
        and isinstance(where, exp.Where)
        and where.this.sql(dialect=dialect) == expected
    )


def policy_violations(
    sql: str, dialect: str, catalog: TableIndex, filters: dict[str, RowFilter]
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
