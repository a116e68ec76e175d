"""Stars against the column allow-list: ``*`` and ``t.*`` become the catalog's columns.

A star over a catalog table whose columns the catalog lists would read every column of
the table, the ones the catalog leaves out too. The rule refuses a star that cannot be
expanded with certainty; the rewrite (run on an accepted query) replaces every other star
over such a table with the table's allowed columns, qualified with its alias, so the SQL
that runs names only allowed columns. A star over a CTE, a subquery or VALUES is kept:
it reads what that query selects, which the guard checks in its own scope. A star over a
table the catalog lists no columns for is kept too (every column of it is allowed).

>>> from vitrina.sql.guard import guard
>>> print(guard("SELECT * FROM dim_region r", dialect="duckdb", allowed_tables={"dwh.dim_region"},
...             allowed_columns={"dwh.dim_region": ["region_id", "region_name"]}).sql)
SELECT
  r.region_id,
  r.region_name
FROM dwh.dim_region AS r
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from sqlglot import exp

from vitrina.sql.guard.columns import ColumnList
from vitrina.sql.guard.messages import sql_fragment, violation
from vitrina.sql.guard.models import GuardViolation
from vitrina.sql.guard.nodes import Nodes
from vitrina.sql.guard.sources import Relations, Source
from vitrina.sql.guard.tables import TableIndex, TableRef, normalise

# Why a star was not expanded: (English, Russian).
REASONS: dict[str, tuple[str, str]] = {
    "using": (
        "a JOIN ... USING or NATURAL JOIN merges columns",
        "JOIN ... USING или NATURAL JOIN объединяет столбцы",
    ),
    "modifiers": (
        "REPLACE or RENAME changes what it reads",
        "REPLACE или RENAME меняют то, что он читает",
    ),
    "exclude": (
        "EXCLUDE over a source that is not a catalog table",
        "EXCLUDE над источником, который не является таблицей каталога",
    ),
    "reshaped": (
        "the table is pivoted or joined inside parentheses",
        "таблица развёрнута (PIVOT/UNPIVOT) или соединена внутри скобок",
    ),
    "unknown": (
        "no table of that name in the FROM of this SELECT",
        "в FROM этого SELECT нет таблицы с таким именем",
    ),
    "unnamed": (
        "a subquery without an alias cannot be qualified",
        "подзапрос без псевдонима нельзя указать перед столбцом",
    ),
    "empty": (
        "the catalog allows none of its columns",
        "каталог не разрешает ни одного её столбца",
    ),
}


@dataclass
class StarPlan:
    """What one star projection becomes: its replacement, or why it cannot be expanded."""

    star: exp.Expr
    columns: list[exp.Expr] = field(default_factory=list)
    refused: GuardViolation | None = None


def star_projections(
    nodes: Nodes,
    tables: list[TableRef],
    catalog: TableIndex | None,
    columns: dict[str, ColumnList],
    dialect: str,
) -> Iterator[GuardViolation]:
    """A ``*`` or ``t.*`` over a table with a column list must expand with certainty."""
    for plan in _plans(nodes, tables, catalog, columns, dialect):
        if plan.refused is not None:
            yield plan.refused


def expand_stars(
    nodes: Nodes,
    tables: list[TableRef],
    catalog: TableIndex | None,
    columns: dict[str, ColumnList],
    dialect: str,
) -> None:
    """Replace each star over a listed table with its allowed columns (an accepted query only)."""
    for plan in _plans(nodes, tables, catalog, columns, dialect):
        if plan.refused is None and plan.columns:
            select = plan.star.parent
            assert isinstance(select, exp.Select)
            projections: list[exp.Expr] = []
            for projection in select.expressions:
                projections.extend(plan.columns if projection is plan.star else [projection])
            select.set("expressions", projections)


def _plans(
    nodes: Nodes,
    tables: list[TableRef],
    catalog: TableIndex | None,
    columns: dict[str, ColumnList],
    dialect: str,
) -> Iterator[StarPlan]:
    """A plan for every star projection that covers a listed table (none without column lists)."""
    if not columns:
        return
    relations = Relations(tables, catalog, columns, dialect)
    for select in nodes.find_all(exp.Select):
        stars = [p for p in select.expressions if _is_star(p)]
        if not stars:
            continue
        sources = relations.sources(select)
        for star in stars:
            plan = _plan(star, sources, relations, dialect)
            if plan is not None:
                yield plan


def _is_star(node: exp.Expr) -> bool:
    return isinstance(node, exp.Star) or (
        isinstance(node, exp.Column) and isinstance(node.this, exp.Star)
    )


def _plan(
    star: exp.Expr, sources: list[Source], relations: Relations, dialect: str
) -> StarPlan | None:
    """The plan for one star; None when it covers no listed table (it stays as written)."""
    modifiers = star.this if isinstance(star, exp.Column) else star
    if isinstance(star, exp.Column):
        qualifier = star.args.get("table")
        name = normalise(qualifier, dialect) if isinstance(qualifier, exp.Identifier) else ""
        covered = [s for s in sources if s.name == name]
        if len(covered) != 1:
            return _refuse(star, name or "?", "unknown", dialect)
    else:
        covered = [s for s in sources if not _semi_or_anti(s)]
        if not covered:
            return None
    # a listed table, or a pivot / parenthesised join over one; a CTE or subquery over a
    # listed table is not involved: its own stars are planned in its own scope
    involved = [
        s for s in covered if s.listed or (s.kind == "other" and relations.has_listed(s.node))
    ]
    if not involved:
        return None
    table = involved[0].table or involved[0].name
    for source in involved:
        if source.kind == "other":
            return _refuse(star, source.table or source.name, "reshaped", dialect)
    if isinstance(star, exp.Star) and any(
        s.join is not None and (s.join.args.get("using") or s.join.method == "NATURAL")
        for s in sources
    ):
        return _refuse(star, table, "using", dialect)
    if modifiers.args.get("replace") or modifiers.args.get("rename"):
        return _refuse(star, table, "modifiers", dialect)
    excluded = {
        normalise(c.this, dialect).lower()
        for c in modifiers.args.get("except_") or []
        if isinstance(c, exp.Column) and isinstance(c.this, exp.Identifier)
    }
    if excluded and any(not s.listed for s in covered):
        return _refuse(star, table, "exclude", dialect)
    expanded: list[exp.Expr] = []
    for source in covered:
        if source.alias is None:
            return _refuse(star, source.table or "(subquery)", "unnamed", dialect)
        if not source.listed:
            expanded.append(exp.Column(this=exp.Star(), table=source.alias.copy()))
            continue
        assert source.columns is not None
        names = [n for n in source.columns.ordered if n.lower() not in excluded]
        if not names:
            return _refuse(star, source.table or source.name, "empty", dialect)
        expanded.extend(
            exp.Column(this=_identifier(name), table=source.alias.copy()) for name in names
        )
    return StarPlan(star, expanded)


def _semi_or_anti(source: Source) -> bool:
    """DuckDB's SEMI and ANTI joins add no columns to ``*``."""
    return source.join is not None and source.join.kind in ("SEMI", "ANTI")


def _identifier(name: str) -> exp.Identifier:
    """A column name as written in the catalog: quoted unless it is a plain lower-case word."""
    plain = name == name.lower() and name.replace("_", "a").isalnum() and not name[0].isdigit()
    return exp.to_identifier(name, quoted=not plain or not name.isascii())


def _refuse(star: exp.Expr, table: str, reason: str, dialect: str) -> StarPlan:
    en, ru = REASONS[reason]
    return StarPlan(
        star,
        refused=violation(
            "star_projections", sql_fragment(star, dialect), table=table, reason_en=en, reason_ru=ru
        ),
    )
