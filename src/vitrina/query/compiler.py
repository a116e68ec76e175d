"""Compile a QueryPlan into SQL for the warehouse's dialect with sqlglot.

Metric expressions and filters in the catalog are written in plain ANSI-ish SQL over
the metric table's columns; they are parsed once, qualified with the table alias and
rendered in the target dialect, so one catalog serves DuckDB and PostgreSQL alike.
"""

from __future__ import annotations

from datetime import timedelta
from functools import lru_cache

import sqlglot
from sqlglot import exp

from vitrina.catalog import Catalog
from vitrina.catalog.aggregates import restrict
from vitrina.present.columns import ColumnMeta, ColumnRole, Grain, ValueFormat
from vitrina.query.combine import combined_metas, compile_combined
from vitrina.query.plan import Filter, QueryPlan
from vitrina.sql.dates import day_kind_condition, grain_expr

CATALOG_DIALECT = "postgres"  # the dialect catalog expressions are written in
GRAIN_LABELS = {
    "day": ("День", "Day"),
    "week": ("Неделя", "Week"),
    "month": ("Месяц", "Month"),
    "quarter": ("Квартал", "Quarter"),
    "year": ("Год", "Year"),
}
FORMATS = {
    "money": ValueFormat.MONEY,
    "count": ValueFormat.COUNT,
    "number": ValueFormat.NUMBER,
    "percent": ValueFormat.PERCENT,
}


def table_aliases(plan: QueryPlan) -> dict[str, str]:
    """Short readable aliases: fact_payment -> fp, dim_client -> dc (numbered on collision)."""
    aliases: dict[str, str] = {}
    for table in plan.tables:
        short = table.rsplit(".", 1)[-1]
        base = "".join(part[0] for part in short.split("_") if part) or "t"
        alias, n = base, 2
        while alias in aliases.values():
            alias, n = f"{base}{n}", n + 1
        aliases[table] = alias
    return aliases


@lru_cache(maxsize=2048)
def _parsed(sql_text: str) -> exp.Expression:
    """A catalog expression (a metric's SQL or filter) parsed once: they are a fixed vocabulary,
    and a copy costs a fifth of a parse. Shared: callers that change the tree copy it first."""
    return sqlglot.parse_one(sql_text, read=CATALOG_DIALECT)


def _qualify(sql_text: str, alias: str) -> exp.Expression:
    tree = _parsed(sql_text).copy()
    for column in tree.find_all(exp.Column):
        if not column.table:
            column.set("table", exp.to_identifier(alias))
    return tree


def _col(alias: str, name: str) -> exp.Column:
    return exp.column(name, table=alias)


def _grain_expr(grain: str, column: exp.Expression, dialect: str = "duckdb") -> exp.Expression:
    """The bucket's first day in the engine's own date functions (vitrina.sql.dates)."""
    return grain_expr(grain, column, dialect)


def _day_kind_condition(kind: str, column: exp.Expression, dialect: str) -> exp.Expression:
    """Weekend (Saturday, Sunday) or weekday rows of a date column, in the dialect's own words."""
    return day_kind_condition(kind, column, dialect)


# engines without the aggregate FILTER clause: a metric's own filter is a CASE there
NO_FILTER_CLAUSE = frozenset({"mysql", "tsql"})


COMPARE = {">": exp.GT, ">=": exp.GTE, "<": exp.LT, "<=": exp.LTE}


def _compare(left: exp.Expression, op: str, value: float) -> exp.Expression:
    number = int(value) if value == int(value) else value
    return COMPARE[op](this=left, expression=exp.Literal.number(number))


def _metric_expr(
    metric_sql: str, metric_filter: str | None, alias: str, shared_filter: bool, style: str
) -> exp.Expression:
    tree = _qualify(metric_sql, alias)
    if metric_filter and not shared_filter:
        cond = _qualify(metric_filter, alias)
        tree = restrict(tree, cond, style)
    return tree


def _filter_condition(flt: Filter, aliases: dict[str, str]) -> exp.Expression:
    col = _col(aliases[flt.table], flt.column)
    values = [exp.Literal.string(v) for v in flt.values]
    if len(values) == 1:
        kept: exp.Expression = exp.EQ(this=col, expression=values[0])
    else:
        kept = exp.In(this=col, expressions=values)
    if not flt.exclude:
        return kept
    # "без Москвы": the other values and the rows with none (NOT alone would drop NULLs)
    missing = exp.Is(this=col.copy(), expression=exp.Null())
    return exp.paren(exp.or_(exp.Not(this=exp.paren(kept)), missing))


def _ratio(numerator: exp.Expression, denominator: exp.Expression, scale: float) -> exp.Expression:
    """numerator * scale / NULLIF(denominator, 0): a float in every dialect, NULL for 0."""
    nullif = exp.Nullif(this=denominator, expression=exp.Literal.number(0))
    scaled = exp.Mul(this=exp.Literal.number(scale), expression=exp.paren(numerator))
    return exp.Div(this=scaled, expression=nullif)


def _derived(
    plan: QueryPlan, expr: exp.Expression, aliases: dict[str, str], style: str
) -> exp.Expression:
    """The lead metric as a share of the total (percent points) or per unit.

    A share of a part ("на Москву") is the metric restricted to the part over the metric; a
    share by groups is each group's value over the sum of all groups (a window over the
    grouped rows, computed before any LIMIT). Per unit divides by the distinct units counted
    (or by the rows, per row of the base table).
    """
    if plan.derived == "share":
        if plan.share_filters:
            part = exp.and_(*[_filter_condition(f, aliases) for f in plan.share_filters])
            return _ratio(restrict(expr, part, style), expr.copy(), 100.0)
        total = exp.Window(this=exp.Sum(this=expr.copy()), over="OVER")
        return _ratio(expr, total, 100.0)
    if plan.per_column and plan.per_table:
        key = _col(aliases[plan.per_table], plan.per_column)
        count: exp.Expression = exp.Count(this=exp.Distinct(expressions=[key]))
    else:
        count = exp.Count(this=exp.Star())
    return _ratio(expr, count, 1.0)


def effective_filter(metric_filter: str | None, plan: QueryPlan) -> str | None:
    """A metric's own filter, unless the question filters or breaks down by the same column
    ("отклонённые платежи", "по статусам"): then the user's choice replaces it."""
    if not metric_filter:
        return None
    columns = {c.name.lower() for c in _parsed(metric_filter).find_all(exp.Column)}
    asked = {f.column for f in [*plan.filters, *plan.share_filters] if f.table == plan.base_table}
    asked |= {d.column for d in plan.dimensions if d.table == plan.base_table}
    return None if columns & asked else metric_filter


def compile_plan(
    plan: QueryPlan, catalog: Catalog, dialect: str, *, filter_style: str = "filter"
) -> str:
    """The SQL text for a plan, pretty-printed in `dialect`.

    `filter_style` says how a metric's own filter is written when metrics differ:
    "filter" (FILTER (WHERE ...), DuckDB and PostgreSQL) or "case" (portable CASE WHEN).
    A combined plan (metrics of other fact tables, two periods) is one query per part,
    joined on the breakdown (`vitrina.query.combine`).
    """
    if dialect in NO_FILTER_CLAUSE:
        filter_style = "case"
    if plan.combined:
        return compile_combined(plan, catalog, dialect, _compile_one, filter_style)
    return _compile_one(plan, catalog, dialect, filter_style=filter_style)


def _compile_one(
    plan: QueryPlan, catalog: Catalog, dialect: str, *, filter_style: str = "filter"
) -> str:
    """One aggregate query: the plan's tables joined many-to-one, grouped by its breakdown."""
    aliases = table_aliases(plan)
    base = aliases[plan.base_table]
    metrics = [catalog.metrics[m] for m in plan.metrics]
    own = {m.id: effective_filter(m.filter, plan) for m in metrics}
    shared_filter = len(set(own.values())) == 1
    select: list[exp.Expression] = []
    group: list[exp.Expression] = []
    date_alias = aliases.get(plan.date_owner, base)
    if plan.grain and plan.date_column:
        dated: exp.Expression = _col(date_alias, plan.date_column)
        if plan.shift_months:  # a compared period's dates, bucketed where the asked one's are
            dated = exp.DateAdd(
                this=dated, expression=exp.Literal.number(plan.shift_months), unit=exp.var("MONTH")
            )
        expr = _grain_expr(plan.grain, dated, dialect)
        select.append(exp.alias_(expr, plan.grain, copy=False))
        group.append(expr.copy())
    for dim in plan.dimensions:
        expr = _col(aliases[dim.table], dim.select_column)
        select.append(exp.alias_(expr, dim.alias, copy=False))
        group.append(expr.copy())
        if dim.key_column:
            key = _col(aliases[dim.table], dim.key_column)
            select.append(exp.alias_(key, dim.key_column, copy=False))
            group.append(key.copy())
    for metric in metrics:
        expr = _metric_expr(metric.expression, own[metric.id], base, shared_filter, filter_style)
        if plan.derived and metric.id == plan.metrics[0]:
            expr = _derived(plan, expr, aliases, filter_style)
        select.append(exp.alias_(expr, metric.id, copy=False))

    # every node below is new and used once, so the builders need not copy: with copy=True
    # each call deep-copied the whole query built so far (~40% of compiling a plan)
    table = exp.to_table(plan.base_table).as_(base, copy=False)
    query = exp.select(*select, copy=False).from_(table, copy=False)
    for join in plan.joins:
        on = exp.EQ(
            this=_col(aliases[join.left_table], join.left_column),
            expression=_col(aliases[join.right_table], join.right_column),
        )
        right = exp.to_table(join.right_table).as_(aliases[join.right_table], copy=False)
        query = query.join(right, on=on, copy=False)
    conditions: list[exp.Expression] = []
    if shared_filter and own[metrics[0].id]:
        conditions.append(_qualify(own[metrics[0].id], base))
    if plan.day_kind and plan.date_column:
        conditions.append(
            _day_kind_condition(plan.day_kind, _col(date_alias, plan.date_column), dialect)
        )
    if plan.period and plan.date_column:
        col = _col(date_alias, plan.date_column)
        start = exp.cast(exp.Literal.string(plan.period.start.isoformat()), "DATE")
        stop = exp.cast(
            exp.Literal.string((plan.period.end + timedelta(days=1)).isoformat()), "DATE"
        )
        if not plan.period.open_start:
            conditions.append(exp.GTE(this=col.copy(), expression=start))
        conditions.append(exp.LT(this=col.copy(), expression=stop))
    for flt in plan.filters:
        conditions.append(_filter_condition(flt, aliases))
    having: list[exp.Expression] = []
    for comp in plan.comparisons:
        if comp.kind == "column" and comp.table and comp.column:
            conditions.append(_compare(_col(aliases[comp.table], comp.column), comp.op, comp.value))
        elif comp.kind == "metric" and comp.metric:
            metric = catalog.metrics[comp.metric]
            expr = _metric_expr(
                metric.expression, own.get(metric.id), base, shared_filter, filter_style
            )
            having.append(_compare(expr, comp.op, comp.value))
    if conditions:
        query = query.where(exp.and_(*conditions, copy=False), copy=False)
    if group:
        query = query.group_by(*group, copy=False)
    if having:
        query = query.having(exp.and_(*having, copy=False), copy=False)
    if plan.order and plan.dimensions:
        query = query.order_by(
            exp.Ordered(this=exp.column(plan.metrics[0]), desc=plan.order == "desc"), copy=False
        )
    elif plan.grain:
        query = query.order_by(exp.column(plan.grain), copy=False)
    if plan.limit:
        query = query.limit(plan.limit, copy=False)
    _catalog_spelling(query, aliases, catalog)
    return query.sql(dialect=dialect, pretty=True)


def _catalog_spelling(query: exp.Expression, aliases: dict[str, str], catalog: Catalog) -> None:
    """Every column as the catalog spells it: the planner's reading may lower-case a name
    (a relation's ends, a filter's column), which only a case-sensitive engine (ClickHouse)
    tells apart, as an unknown identifier."""
    tables = {alias: table for table, alias in aliases.items()}
    for column in query.find_all(exp.Column):
        table = tables.get(column.table)
        known = catalog.column(f"{table}.{column.name}") if table else None
        if known is not None and known.name != column.name:
            column.set("this", exp.to_identifier(known.name))


def column_metas(plan: QueryPlan, catalog: Catalog) -> list[ColumnMeta]:
    """The meaning of every column the compiled SQL returns, in order."""
    metas: list[ColumnMeta] = []
    if plan.grain and plan.date_column:
        ru, en = GRAIN_LABELS[plan.grain]
        metas.append(
            ColumnMeta(
                name=plan.grain,
                role=ColumnRole.PERIOD,
                label_ru=ru,
                label_en=en,
                fmt=ValueFormat.DATE,
                grain=Grain(plan.grain),
            )
        )
    for dim in plan.dimensions:
        words = catalog.dictionary_for(dim.table, dim.select_column)
        metas.append(
            ColumnMeta(
                name=dim.alias,
                role=ColumnRole.DIMENSION,
                label_ru=dim.label_ru,
                label_en=dim.label_en,
                fmt=ValueFormat.TEXT,
                value_labels_ru=words.labels("ru") if words else {},
                value_labels_en=words.labels("en") if words else {},
            )
        )
        if dim.key_column:
            key = catalog.tables[dim.table].column(dim.key_column)
            metas.append(
                ColumnMeta(
                    name=dim.key_column,
                    role=ColumnRole.ID,
                    fmt=ValueFormat.TEXT,
                    label_ru=key.label("ru") if key else dim.key_column,
                    label_en=key.label("en") if key else dim.key_column,
                )
            )
    for metric_id in plan.metrics:
        metric = catalog.metrics[metric_id]
        derived = plan.derived if metric_id == plan.metrics[0] else None
        share = derived == "share"
        metas.append(
            ColumnMeta(
                name=metric.id,
                role=ColumnRole.METRIC,
                label_ru=plan.derived_label_ru if derived else metric.name_ru,
                label_en=plan.derived_label_en if derived else metric.name_en,
                fmt=ValueFormat.PERCENT
                if share
                else ValueFormat.NUMBER
                if derived == "per" and metric.format == "count"
                else FORMATS[metric.format],
                unit=None if share else metric.unit,
                non_negative=metric.non_negative,
                additive=metric.additive and not derived,
            )
        )
    if plan.compared is not None:
        return combined_metas(plan, metas)
    return metas
