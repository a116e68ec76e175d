"""One sqlglot tree transform per class of plausible wrong SQL (issue 36).

Each function takes a parsed reference query and what it needs of the catalog (`Ctx`) and
returns a mutant tree, or None when the class does not apply to that query (no condition
to drop, no date to move). Every mutant is a query a careless model could write: it parses,
names real tables and columns, and usually runs; whether it changes the result is decided
afterwards by running it (generate.py), never assumed here.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta

from sqlglot import exp

from vitrina.catalog import Catalog
from vitrina.catalog.model import ColumnRole


@dataclass
class Ctx:
    """What a transform may know: the catalog, the dialect, a sample value per column."""

    catalog: Catalog
    dialect: str
    sample: Callable[[str, str], str | None] = field(default=lambda _t, _c: None)


def bare(name: str) -> str:
    return name.rsplit(".", 1)[-1].lower()


def _where(tree: exp.Expr) -> exp.Where | None:
    select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    return select.args.get("where") if select else None


def _conjuncts(node: exp.Expr) -> list[exp.Expr]:
    if isinstance(node, exp.And):
        return [*_conjuncts(node.this), *_conjuncts(node.expression)]
    if isinstance(node, exp.Paren):
        return _conjuncts(node.this)
    return [node]


def _date_columns(ctx: Ctx) -> set[str]:
    names = set()
    for table in ctx.catalog.tables.values():
        names |= {c.name.lower() for c in table.columns if c.role == ColumnRole.DATE}
    for metric in ctx.catalog.metrics.values():
        if metric.date_column:
            names.add(bare(metric.date_column))
        names |= {bare(d) for d in metric.dates.values()}
    return names


def _is_date_condition(node: exp.Expr, ctx: Ctx) -> bool:
    return any(c.name.lower() in _date_columns(ctx) for c in node.find_all(exp.Column))


def _mandatory(ctx: Ctx) -> list[str]:
    return [m.filter.lower().replace(" ", "") for m in ctx.catalog.metrics.values() if m.filter]


def _is_mandatory(node: exp.Expr, ctx: Ctx) -> bool:
    copy = node.copy()
    for col in copy.find_all(exp.Column):
        col.set("table", None)
    return copy.sql(dialect=ctx.dialect).lower().replace(" ", "") in _mandatory(ctx)


def _rebuild_where(tree: exp.Expr, keep: list[exp.Expr]) -> exp.Expr:
    select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    assert select is not None
    if keep:
        select.set("where", exp.Where(this=exp.and_(*keep)))
    else:
        select.set("where", None)
    return tree


def _drop(tree: exp.Expr, ctx: Ctx, pick: Callable[[exp.Expr], bool]) -> exp.Expr | None:
    tree = tree.copy()
    where = _where(tree)
    if where is None:
        return None
    parts = _conjuncts(where.this)
    chosen = next((p for p in parts if pick(p)), None)
    if chosen is None:
        return None
    return _rebuild_where(tree, [p.copy() for p in parts if p is not chosen])


def dropped_condition(tree: exp.Expr, ctx: Ctx) -> exp.Expr | None:
    """The condition a question's words asked for ("без Москвы", "from Brazil") left out."""
    return _drop(tree, ctx, lambda p: not _is_date_condition(p, ctx) and not _is_mandatory(p, ctx))


def missing_mandatory_filter(tree: exp.Expr, ctx: Ctx) -> exp.Expr | None:
    """The metric's own filter (status = 'success') forgotten."""
    return _drop(tree, ctx, lambda p: _is_mandatory(p, ctx))


def _tables(tree: exp.Expr) -> list[exp.Table]:
    return list(tree.find_all(exp.Table))


def fan_out_join(tree: exp.Expr, ctx: Ctx) -> exp.Expr | None:
    """A table on the many side joined to the fact: each fact row counted once per match."""
    tree = tree.copy()
    select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    if select is None or not any(p.find(exp.AggFunc) for p in select.expressions):
        return None
    present = {bare(t.name): t for t in _tables(select)}
    for rel in ctx.catalog.relations:
        one, many = bare(rel.right_table), bare(rel.left_table)
        if one in present and many not in present:
            alias = present[one].alias_or_name
            source = rel.left_table.split(".", 1)[-1] if "." in rel.left_table else rel.left_table
            joined = exp.to_table(source).as_("fan")
            on = exp.column(rel.left_column, "fan").eq(exp.column(rel.right_column, alias))
            return select.join(joined, on=on)
    return None


def _date_condition_columns(tree: exp.Expr, ctx: Ctx) -> list[exp.Column]:
    where = _where(tree)
    if where is None:
        return []
    dates = _date_columns(ctx)
    return [c for c in where.find_all(exp.Column) if c.name.lower() in dates]


def wrong_date_column(tree: exp.Expr, ctx: Ctx) -> exp.Expr | None:
    """The period applied to another date of the same table (shipped instead of ordered)."""
    tree = tree.copy()
    columns = _date_condition_columns(tree, ctx)
    if not columns:
        return None
    aliases = {t.alias_or_name.lower(): bare(t.name) for t in _tables(tree)}
    first = columns[0]
    owner = aliases.get(first.table.lower()) if first.table else None
    ordered = sorted(aliases.items(), key=lambda kv: kv[1] != owner)  # its own table first
    for alias, table_name in ordered:
        table = next((t for n, t in ctx.catalog.tables.items() if bare(n) == table_name), None)
        if table is None:
            continue
        others = [
            c.name
            for c in table.columns
            if (c.role == ColumnRole.DATE or c.type.lower() in DATE_TYPES)
            and c.name.lower() != first.name.lower()
        ]
        if others:
            for col in columns:
                if col.name.lower() == first.name.lower():
                    col.set("this", exp.to_identifier(others[0]))
                    if len(aliases) > 1:
                        col.set("table", exp.to_identifier(alias))
            return tree
    return None


DATE_TYPES = ("date", "timestamp", "datetime", "timestamptz")


AGGREGATE_SWAP: dict[type, Callable[[exp.Expr], exp.Expr]] = {
    exp.Sum: lambda a: exp.Avg(this=a.this.copy()),
    exp.Avg: lambda a: exp.Sum(this=a.this.copy()),
    exp.Max: lambda a: exp.Min(this=a.this.copy()),
    exp.Min: lambda a: exp.Max(this=a.this.copy()),
}


def _count_swap(agg: exp.Count, tree: exp.Expr) -> exp.Expr | None:
    if isinstance(agg.this, exp.Distinct):
        return exp.Count(this=agg.this.expressions[0].copy())
    column = next(iter(tree.find_all(exp.Column)), None)
    if column is None:
        return None
    return exp.Count(this=exp.Distinct(expressions=[column.copy()]))


def wrong_aggregate(tree: exp.Expr, ctx: Ctx) -> exp.Expr | None:
    """SUM for AVG, COUNT(*) for COUNT(DISTINCT ...), and the other way round."""
    tree = tree.copy()
    agg = next(iter(tree.find_all(exp.AggFunc)), None)
    if agg is None:
        return None
    if isinstance(agg, exp.Count):
        new = _count_swap(agg, tree)
    else:
        swap = AGGREGATE_SWAP.get(type(agg))
        new = swap(agg) if swap else None
    if new is None:
        return None
    agg.replace(new)
    return tree


def _date_literal(node: exp.Expr) -> exp.Literal | None:
    lit = node if isinstance(node, exp.Literal) else node.find(exp.Literal)
    if lit is None or not lit.is_string or len(lit.this) < 10:
        return None
    try:
        date.fromisoformat(lit.this[:10])
    except ValueError:
        return None
    return lit


def _shift(lit: exp.Literal, days: int = 0, months: int = 0) -> None:
    day = date.fromisoformat(lit.this[:10])
    if months:
        month = day.month - 1 + months
        day = day.replace(year=day.year + month // 12, month=month % 12 + 1, day=1)
    day += timedelta(days=days)
    lit.set("this", day.isoformat() + lit.this[10:])


def period_off(tree: exp.Expr, ctx: Ctx) -> exp.Expr | None:
    """The upper bound one day late (an inclusive end written as exclusive), else the lower
    bound a month early."""
    tree = tree.copy()
    where = _where(tree)
    if where is None:
        return None
    for node in where.find_all(exp.Between, exp.LT, exp.LTE):
        high = node.args["high"] if isinstance(node, exp.Between) else node.expression
        lit = _date_literal(high)
        if lit is not None:
            _shift(lit, days=1)
            return tree
    for node in where.find_all(exp.GTE, exp.GT):
        lit = _date_literal(node.expression)
        if lit is not None:
            _shift(lit, months=-1)
            return tree
    return None


GRAINS = {"month": "year", "year": "month", "day": "month", "quarter": "month", "week": "month"}


def wrong_grain(tree: exp.Expr, ctx: Ctx) -> exp.Expr | None:
    """A month breakdown grouped by year (or the reverse); SQLite's 'start of month' too."""
    tree = tree.copy()
    for node in tree.find_all(exp.Literal):
        if not node.is_string:
            continue
        value = node.this.lower()
        for unit, other in GRAINS.items():
            if value in (unit, f"start of {unit}"):
                node.set("this", node.this.lower().replace(unit, other))
                return tree
        if value in ("%y-%m", "%y"):
            node.set("this", "%Y" if value == "%y-%m" else "%Y-%m")
            return tree
    for node in tree.find_all(exp.DateTrunc, exp.TimestampTrunc):
        unit = node.args.get("unit")
        name = unit.name.lower() if unit is not None else ""
        if name in GRAINS:
            node.set("unit", exp.var(GRAINS[name].upper()))
            return tree
    return None


def filter_value_spelling(tree: exp.Expr, ctx: Ctx) -> exp.Expr | None:
    """A filter value written as the question says it, not as the data holds it."""
    tree = tree.copy()
    where = _where(tree)
    if where is None:
        return None
    for node in where.find_all(exp.EQ, exp.In):
        if _is_mandatory(node, ctx):
            continue
        literals = node.expressions if isinstance(node, exp.In) else [node.expression]
        for lit in literals:
            if (
                isinstance(lit, exp.Literal)
                and lit.is_string
                and lit.this
                and not lit.this[0].isdigit()
            ):
                text = lit.this
                lit.set("this", text.lower() if text != text.lower() else text.upper())
                return tree
    return None


def _dictionary_columns(ctx: Ctx, tables: dict[str, str]) -> list[tuple[str, str, str]]:
    """(alias, column, a value) of dictionary columns of the query's tables."""
    out = []
    for alias, name in tables.items():
        for full, table in ctx.catalog.tables.items():
            if bare(full) != name:
                continue
            for col in table.columns:
                dictionary = ctx.catalog.dictionary_for(full, col.name.lower())
                if dictionary and dictionary.values:
                    out.append((alias, col.name, dictionary.values[0].value))
                elif col.role == ColumnRole.DIMENSION:
                    value = ctx.sample(full, col.name)
                    if value is not None:
                        out.append((alias, col.name, value))
    return out


def segment_leak(tree: exp.Expr, ctx: Ctx) -> exp.Expr | None:
    """A segment the question did not ask for (one country, one channel) narrows the total."""
    tree = tree.copy()
    select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    if select is None:
        return None
    tables = {t.alias_or_name: bare(t.name) for t in _tables(select)}
    filtered = {
        c.name.lower() for c in (select.args.get("where") or exp.Where()).find_all(exp.Column)
    }
    grouped = {
        c.name.lower() for c in (select.args.get("group") or exp.Group()).find_all(exp.Column)
    }
    for alias, column, value in _dictionary_columns(ctx, tables):
        if column.lower() in filtered | grouped:
            continue
        qualifier = alias if len(tables) > 1 else None
        condition = exp.column(column, qualifier).eq(exp.Literal.string(value))
        return select.where(condition)
    return None


def similar_named_table(tree: exp.Expr, ctx: Ctx) -> exp.Expr | None:
    """The table with the nearest name (invoice / invoiceline, orders / ...)."""
    tree = tree.copy()
    names = [bare(n) for n in ctx.catalog.tables]
    for table in _tables(tree):
        name = bare(table.name)
        others = [n for n in names if n != name]
        near = difflib.get_close_matches(name, others, n=1, cutoff=0.5)
        if near:
            table.set("this", exp.to_identifier(near[0]))
            return tree
    return None


def unit_slip(tree: exp.Expr, ctx: Ctx) -> exp.Expr | None:
    """The figure in thousands (or cents): the aggregate divided by 1000."""
    tree = tree.copy()
    select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    if select is None:
        return None
    for index, proj in enumerate(select.expressions):
        inner = proj.this if isinstance(proj, exp.Alias) else proj
        if inner.find(exp.AggFunc):
            slipped = exp.Div(this=exp.paren(inner.copy()), expression=exp.Literal.number(1000))
            new = exp.alias_(slipped, proj.alias) if isinstance(proj, exp.Alias) else slipped
            select.expressions[index] = new
            new.parent = select
            return tree
    return None


CLASSES: dict[str, Callable[[exp.Expr, Ctx], exp.Expr | None]] = {
    "dropped_condition": dropped_condition,
    "fan_out_join": fan_out_join,
    "missing_mandatory_filter": missing_mandatory_filter,
    "wrong_date_column": wrong_date_column,
    "wrong_aggregate": wrong_aggregate,
    "period_off": period_off,
    "wrong_grain": wrong_grain,
    "filter_value_spelling": filter_value_spelling,
    "segment_leak": segment_leak,
    "similar_named_table": similar_named_table,
    "unit_slip": unit_slip,
}


# -- harmless rewrites: a perfect model writes these; they must be accepted ------------


def with_aliases(tree: exp.Expr, ctx: Ctx) -> exp.Expr | None:
    """Every table aliased (t1, t2, ...) and every column qualified by it."""
    tree = tree.copy()
    if not isinstance(tree, exp.Select) or len(_tables(tree)) != 1 or tree.find(exp.Subquery):
        return None
    table = _tables(tree)[0]
    if table.alias:
        return None
    table.set("alias", exp.TableAlias(this=exp.to_identifier("t1")))
    named = {p.alias.lower() for p in tree.expressions if isinstance(p, exp.Alias)}
    for col in tree.find_all(exp.Column):
        if not col.table and col.name.lower() not in named:
            col.set("table", exp.to_identifier("t1"))
    return tree


def as_cte(tree: exp.Expr, ctx: Ctx) -> exp.Expr | None:
    """The whole query in a CTE, selected from."""
    if not isinstance(tree, exp.Select) or tree.args.get("with"):
        return None
    names = [p.alias_or_name for p in tree.expressions]
    if len(set(names)) != len(names) or any(not n or n == "*" for n in names):
        inner = tree.copy()
        for index, proj in enumerate(inner.expressions):
            inner.expressions[index] = exp.alias_(
                proj.this if isinstance(proj, exp.Alias) else proj, f"c{index}"
            )
        tree = inner
    return exp.select("*").from_("answer").with_("answer", as_=tree.copy())


def join_order(tree: exp.Expr, ctx: Ctx) -> exp.Expr | None:
    """Two inner-joined tables written the other way round (FROM b JOIN a)."""
    tree = tree.copy()
    if not isinstance(tree, exp.Select):
        return None
    joins = tree.args.get("joins") or []
    if len(joins) != 1 or joins[0].side or joins[0].kind not in ("", "INNER", None):
        return None
    first = tree.args["from_"].this.copy()
    second = joins[0].this.copy()
    tree.set("from_", exp.From(this=second))
    joins[0].set("this", first)
    return tree


def between_bounds(tree: exp.Expr, ctx: Ctx) -> exp.Expr | None:
    """BETWEEN a AND b as >= a AND < b + 1 day, or >= a AND < b as BETWEEN a AND b - 1."""
    if ctx.dialect == "sqlite":
        return None  # text timestamps: BETWEEN with a date as the end drops that day's times
    tree = tree.copy()
    node = next(iter(tree.find_all(exp.Between)), None)
    if node is not None and _date_literal(node.args["high"]) is not None:
        high = node.args["high"].copy()
        _shift(_date_literal(high), days=1)  # type: ignore[arg-type]
        low = node.args["low"].copy()
        column = node.this.copy()
        node.replace(exp.and_(column.copy() >= low, column < high))
        return tree
    where = _where(tree)
    if where is None:
        return None
    parts = _conjuncts(where.this)
    lows = [p for p in parts if isinstance(p, exp.GTE) and _date_literal(p.expression)]
    highs = [p for p in parts if isinstance(p, exp.LT) and _date_literal(p.expression)]
    if len(lows) != 1 or len(highs) != 1 or lows[0].this != highs[0].this:
        return None
    high = highs[0].expression.copy()
    _shift(_date_literal(high), days=-1)  # type: ignore[arg-type]
    between = exp.Between(this=lows[0].this.copy(), low=lows[0].expression.copy(), high=high)
    keep = [between if p is lows[0] else p.copy() for p in parts if p is not highs[0]]
    return _rebuild_where(tree, keep)


HARMLESS: dict[str, Callable[[exp.Expr, Ctx], exp.Expr | None]] = {
    "reference": lambda tree, _ctx: tree.copy(),
    "aliases": with_aliases,
    "cte": as_cte,
    "join_order": join_order,
    "between": between_bounds,
}
