"""Several aggregates in one answer, joined on the breakdown: never fact by fact.

Metrics on different fact tables ("revenue and number of orders") and two periods ("2025
vs 2024") are each aggregated on their own, with their own joins, filters and date, as
the plain compiler writes them (one CTE each). The CTEs are then joined on the breakdown
keys: the union of the keys every part has, each part left-joined to it null-safely (a
full outer join that every dialect can write). Without a breakdown the one-row parts are
crossed. Joining the fact tables first would repeat one fact's rows for each row of the
other (the fan trap) and multiply its sums.

Two periods give, per metric, NAME (the later period), NAME_prev, NAME_change and
NAME_change_pct, the columns `vitrina.present.comparison` names and labels.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlglot
from sqlglot import exp

from vitrina.catalog import Catalog
from vitrina.present.columns import ColumnMeta, ColumnRole
from vitrina.present.comparison import CHANGE, PCT, PREV, Labels, comparison_metas
from vitrina.query.plan import QueryPlan

Compile = Callable[..., str]
KEYS = "k"


def part_plans(plan: QueryPlan) -> list[tuple[QueryPlan, str]]:
    """(a one-query plan, the suffix of its metric columns) for every aggregate combined."""
    clean = {"order": None, "limit": None, "compared": None, "parts": []}
    parts = plan.parts or [plan]
    base = [p.model_copy(update=clean) for p in parts]
    out = [(p, "") for p in base]
    if plan.compared is not None:
        moved = {"period": plan.compared, "shift_months": compared_shift(plan)}
        out += [(p.model_copy(update=moved), PREV) for p in base]
    return out


def compared_shift(plan: QueryPlan) -> int:
    """Months from the compared period to the asked one, when a time grain must pair their
    buckets (month by month, quarter by quarter, year over year); 0 otherwise. Periods that
    do not both start on a month's first day have no bucket-to-bucket pairing: 0.

    >>> from datetime import date
    >>> from vitrina.query.plan import PeriodRef
    >>> p = lambda a, b: PeriodRef(start=a, end=b, label_ru="", label_en="")
    >>> plan = QueryPlan(topic="t", base_table="b", metrics=["m"], grain="month",
    ...     date_column="d", period=p(date(2026, 1, 1), date(2026, 5, 31)),
    ...     compared=p(date(2025, 1, 1), date(2025, 5, 31)))
    >>> compared_shift(plan)
    12
    """
    if not plan.grain or plan.period is None or plan.compared is None:
        return 0
    now, then = plan.period.start, plan.compared.start
    if now.day != 1 or then.day != 1:
        return 0
    return (now.year - then.year) * 12 + now.month - then.month


def key_columns(plan: QueryPlan) -> list[str]:
    """The breakdown's output columns: the time bucket, each dimension and its key."""
    keys = [plan.grain] if plan.grain and plan.date_column else []
    for dim in plan.dimensions:
        keys.append(dim.alias)
        if dim.key_column:
            keys.append(dim.key_column)
    return keys


def _metric_columns(plan: QueryPlan, part_names: list[str]) -> list[exp.Expression]:
    """The metric columns of the outer query: each metric from the part that computed it,
    then, for two periods, the change and the change in percent."""
    owner: dict[tuple[str, str], str] = {}
    for name, (part, suffix) in zip(part_names, part_plans(plan), strict=True):
        for metric in part.metrics:
            owner.setdefault((metric, suffix), name)
    out: list[exp.Expression] = []
    for metric in plan.metrics:
        cur = exp.column(metric, table=owner[(metric, "")])
        out.append(exp.alias_(cur, metric))
        if plan.compared is None:
            continue
        prev = exp.column(metric, table=owner[(metric, PREV)])
        out.append(exp.alias_(prev.copy(), metric + PREV))
        change = exp.Sub(this=cur.copy(), expression=prev.copy())
        out.append(exp.alias_(change, metric + CHANGE))
        scaled = exp.Mul(this=exp.Literal.number(100.0), expression=exp.paren(change.copy()))
        base = exp.Nullif(this=exp.Abs(this=prev.copy()), expression=exp.Literal.number(0))
        out.append(exp.alias_(exp.Div(this=scaled, expression=base), metric + PCT))
    return out


def _keys_union(keys: list[str], names: list[str]) -> exp.Expression:
    selects = [exp.select(*[exp.column(k) for k in keys]).from_(name) for name in names]
    union: exp.Expression = selects[0]
    for select in selects[1:]:
        union = exp.union(union, select, distinct=True)
    return union


def _order(plan: QueryPlan, query: exp.Select) -> exp.Select:
    if plan.order and plan.dimensions:
        lead = exp.column(plan.metrics[0])
        query = query.order_by(exp.Ordered(this=lead, desc=plan.order == "desc", nulls_first=False))
    elif plan.grain:
        query = query.order_by(exp.column(plan.grain))
    return query.limit(plan.limit) if plan.limit else query


def compile_combined(
    plan: QueryPlan, catalog: Catalog, dialect: str, compile_one: Compile, filter_style: str
) -> str:
    """One statement: a CTE per part, joined on the breakdown keys (or crossed without)."""
    parts = part_plans(plan)
    names = [f"p{i}" for i in range(len(parts))]
    keys = key_columns(plan)
    # aliased: a bare ORDER BY key is ambiguous on SQLite between the key table and the parts
    columns: list[exp.Expr] = [exp.alias_(exp.column(k, table=KEYS), k) for k in keys]
    query = exp.select(*columns, *_metric_columns(plan, names))
    if keys:
        query = query.from_(KEYS)
        for name in names:
            on = exp.and_(
                *[
                    exp.NullSafeEQ(
                        this=exp.column(k, table=KEYS), expression=exp.column(k, table=name)
                    )
                    for k in keys
                ]
            )
            query = query.join(name, on=on, join_type="left")
    else:
        query = query.from_(names[0])
        for name in names[1:]:
            query = query.join(name, join_type="cross")
    for name, (part, _suffix) in zip(names, parts, strict=True):
        sql = compile_one(part, catalog, dialect, filter_style=filter_style)
        query = query.with_(name, as_=sqlglot.parse_one(sql, read=dialect))
    if keys:
        query = query.with_(KEYS, as_=_keys_union(keys, names))
    return _order(plan, query).sql(dialect=dialect, pretty=True)


def combined_metas(plan: QueryPlan, metas: list[ColumnMeta]) -> list[ColumnMeta]:
    """The columns of a combined plan: as one plan's, plus the comparison's for two periods."""
    if plan.compared is None or plan.period is None:
        return metas
    keys = [m for m in metas if m.role is not ColumnRole.METRIC]
    metrics = [m for m in metas if m.role is ColumnRole.METRIC]
    labels = Labels(
        plan.period.label_ru, plan.period.label_en, plan.compared.label_ru, plan.compared.label_en
    )
    return comparison_metas(keys, metrics, labels)
