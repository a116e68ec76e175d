"""Deterministic checks of a SELECT against the question's plan, run after the guard.

Like sqlglot's optimizer passes: `CHECKS` is a tuple of small functions, each taking the
parsed tree and only what it needs, each returning a list of problems (empty = passed).
They matter most for SQL a model wrote; rule SQL passes them by construction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

import sqlglot
from sqlglot import exp

from vitrina.catalog import Catalog


@dataclass(frozen=True)
class CheckProblem:
    check: str
    message: str


def _aliases(tree: exp.Expr) -> dict[str, str]:
    """Alias (or bare name) -> schema-qualified lower-case table name."""
    out: dict[str, str] = {}
    for table in tree.find_all(exp.Table):
        name = ".".join(p for p in (table.db, table.name) if p).lower()
        out[(table.alias_or_name or table.name).lower()] = name
        out[table.name.lower()] = name
    return out


def _column_table(col: exp.Column, aliases: dict[str, str], catalog: Catalog) -> str | None:
    if col.table:
        return aliases.get(col.table.lower())
    owners = [
        t
        for t in set(aliases.values())
        if t in catalog.tables and catalog.tables[t].column(col.name)
    ]
    return owners[0] if len(owners) == 1 else None


def check_dictionary_values(tree: exp.Expr, catalog: Catalog) -> list[CheckProblem]:
    """A filter value must be one of the column's dictionary values."""
    problems = []
    aliases = _aliases(tree)
    for node in tree.find_all(exp.EQ, exp.In):
        col = node.this if isinstance(node.this, exp.Column) else node.expression
        if not isinstance(col, exp.Column):
            continue
        literals = node.expressions if isinstance(node, exp.In) else [node.expression]
        values = [lit.this for lit in literals if isinstance(lit, exp.Literal) and lit.is_string]
        table = _column_table(col, aliases, catalog)
        dictionary = catalog.dictionary_for(table, col.name.lower()) if table else None
        if not dictionary or not values:
            continue
        allowed = {v.value for v in dictionary.values}
        for value in values:
            if value not in allowed:
                problems.append(
                    CheckProblem(
                        "dictionary_value",
                        f"value '{value}' is not in the dictionary of "
                        f"{table}.{col.name} (allowed: {', '.join(sorted(allowed))})",
                    )
                )
    return problems


def _date_literals(tree: exp.Expr) -> set[str]:
    found = set()
    for lit in tree.find_all(exp.Literal):
        if lit.is_string and len(lit.this) >= 10:
            found.add(lit.this[:10])
    return found


def check_period(
    tree: exp.Expr, period_start: date | None, period_end: date | None
) -> list[CheckProblem]:
    """A period in the question must appear in the SQL as its bounds (only the end for an open
    range, "before 2024", which has no start)."""
    if period_end is None:
        return []
    literals = _date_literals(tree)
    ends = {period_end.isoformat(), (period_end + timedelta(days=1)).isoformat()}
    start_missing = period_start is not None and period_start.isoformat() not in literals
    if start_missing or not (ends & literals):
        return [
            CheckProblem(
                "period_missing",
                f"the question asks for {period_start}..{period_end} "
                "but the SQL does not filter on these dates",
            )
        ]
    return []


def check_group_by(tree: exp.Expr) -> list[CheckProblem]:
    """An aggregate next to a plain column needs that column in GROUP BY."""
    select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    if select is None:
        return []
    has_agg = any(proj.find(exp.AggFunc) for proj in select.expressions)
    if not has_agg:
        return []
    grouped = {g.sql().lower() for g in (select.args.get("group") or exp.Group()).expressions}
    problems = []
    for index, proj in enumerate(select.expressions, start=1):
        inner = proj.this if isinstance(proj, exp.Alias) else proj
        if inner.find(exp.AggFunc) or isinstance(inner, exp.Literal | exp.Star):
            continue
        if (
            inner.sql().lower() not in grouped
            and str(index) not in grouped
            and proj.alias_or_name.lower() not in grouped
        ):
            problems.append(
                CheckProblem(
                    "aggregate_without_group_by",
                    f"'{proj.sql()}' is selected next to an aggregate but not grouped",
                )
            )
    return problems


def _grouped_expressions(select: exp.Select, group: exp.Group) -> list[str]:
    """GROUP BY items as SQL, with ordinals (GROUP BY 1) and aliases resolved to what they name."""
    by_alias = {p.alias_or_name.lower(): p for p in select.expressions}
    out = []
    for item in group.expressions:
        target = item
        if (
            isinstance(item, exp.Literal)
            and item.is_int
            and 0 < int(item.this) <= len(select.expressions)
        ):
            target = select.expressions[int(item.this) - 1]
        elif isinstance(item, exp.Column) and not item.table and item.name.lower() in by_alias:
            target = by_alias[item.name.lower()]
        out.append((target.this if isinstance(target, exp.Alias) else target).sql())
    return out


def check_grain(tree: exp.Expr, grain: str | None) -> list[CheckProblem]:
    """ "по месяцам" needs a GROUP BY on the month (date_trunc or extract). A query of
    several aggregates joined on the breakdown (one CTE each) needs it in every one."""
    if not grain:
        return []
    grouped = [s for s in tree.find_all(exp.Select) if s.args.get("group")]
    if len(grouped) > 1:
        problems = [p for s in grouped for p in _grain_of(s, grain)]
        return problems[:1]
    # the one grouped SELECT, wherever it is (a CTE selected from counts as well)
    select = (
        grouped[0] if grouped else tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    )
    return _grain_of(select, grain)


def groups_by_grain(tree: exp.Expr, grain: str) -> bool:
    """Whether some grouped SELECT of the query buckets a date by `grain` (a question's
    "which month" is carried by a month bucket, not by a year one)."""
    return any(not _grain_of(s, grain) for s in tree.find_all(exp.Select) if s.args.get("group"))


def _grain_of(select: exp.Select | None, grain: str) -> list[CheckProblem]:
    group = select.args.get("group") if select else None
    grouped = _grouped_expressions(select, group) if select and group else []
    text = " ".join(grouped).lower()
    if grain in text or (grain == "day" and "date" in text):
        return []
    if _sqlite_quarter(text) and grain == "quarter":
        return []
    # SQLite has no date_trunc: a grouped bucket expression named after the grain counts
    named = (
        {
            p.alias.lower()
            for p in select.expressions
            if isinstance(p, exp.Alias) and p.this.sql() in grouped
        }
        if select
        else set()
    )
    if grain in named:
        return []
    return [
        CheckProblem(
            "grain_missing",
            f"the question asks for a breakdown by {grain} but the SQL does not group by it",
        )
    ]


def _sqlite_quarter(text: str) -> bool:
    """SQLite has no quarter: the month number divided by 3 is its bucket (a year-month
    string next to it is a month bucket, not a quarter)."""
    month_number = "'%m'" in text and "'%y-%m'" not in text
    return month_number and re.search(r"/\s*(nullif\()?3\b", text) is not None


def run_checks(
    sql: str,
    dialect: str,
    catalog: Catalog,
    *,
    period_start: date | None = None,
    period_end: date | None = None,
    grain: str | None = None,
) -> list[CheckProblem]:
    tree = sqlglot.parse_one(sql, read=dialect)
    return [
        *check_dictionary_values(tree, catalog),
        *check_period(tree, period_start, period_end),
        *check_group_by(tree),
        *check_grain(tree, grain),
    ]
