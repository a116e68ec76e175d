"""Candidate report plans for a warehouse target: several complete QueryPlans from one request.

The base plan comes from the ask job's planner (`build_plan`); the others change one
decision each: no breakdown (a plain aggregate), a month series under the breakdown
(detailed), the previous equal period alongside (comparison), the top N only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from vitrina.ask import PeriodRef, QueryPlan, build_plan
from vitrina.catalog import Catalog
from vitrina.route.plans.request import ReportRequest
from vitrina.trace import Trace

TOP_N = 10


@dataclass
class Candidate:
    id: str
    label_ru: str
    label_en: str
    plan: QueryPlan

    def label(self, lang: str) -> str:
        return self.label_ru if lang == "ru" else self.label_en


def prune_joins(plan: QueryPlan, catalog: Catalog) -> QueryPlan:
    """Drop joins no remaining dimension, filter or mandatory relation needs."""
    needed = {d.table for d in plan.dimensions} | {f.table for f in plan.filters}
    needed |= {r.needs for r in catalog.requires if r.when == "always" and r.table == plan.base_table}
    kept = []
    for join in reversed(plan.joins):
        if join.right_table in needed:
            kept.append(join)
            needed.add(join.left_table)
    return plan.model_copy(update={"joins": list(reversed(kept))})


def _previous(period: PeriodRef) -> tuple[PeriodRef, str] | None:
    """The period extended back by one equal calendar unit, with the grain that splits it."""
    s, e = period.start, period.end
    if (s.month, s.day, e.month, e.day) == (1, 1, 12, 31) and s.year == e.year:
        start, grain = date(s.year - 1, 1, 1), "year"
    elif s.day == 1 and (e + timedelta(days=1)).day == 1 and s.month % 3 == 1 and (e.month - s.month) == 2:
        start, grain = (date(s.year - 1, 10, 1) if s.month == 1 else date(s.year, s.month - 3, 1)), "quarter"
    elif s.day == 1 and (e + timedelta(days=1)).day == 1 and s.month == e.month and s.year == e.year:
        start, grain = (date(s.year - 1, 12, 1) if s.month == 1 else date(s.year, s.month - 1, 1)), "month"
    else:
        return None
    label_ru = f"{start:%d.%m.%Y}–{e:%d.%m.%Y}"
    return PeriodRef(start=start, end=e, label_ru=label_ru, label_en=f"{start:%Y-%m-%d} to {e:%Y-%m-%d}",
                     span=period.span), grain


def _months(period: PeriodRef | None) -> int:
    if period is None:
        return 48
    return (period.end.year - period.start.year) * 12 + period.end.month - period.start.month + 1


def warehouse_candidates(req: ReportRequest, catalog: Catalog, trace: Trace) -> tuple[list[Candidate], str | None]:
    """(candidates, refusal): the base plan first, then its variants."""
    if req.topic is None:
        return [], "no_metric"
    outcome = build_plan(req.reading, catalog, topic=req.topic, lang=req.lang, period=req.period, segment=None,
                         trace=trace)
    if outcome.plan is None:
        return [], outcome.refusal or "no_metric"
    base = outcome.plan
    out = [Candidate("breakdown" if base.breakdown else "aggregate",
                     "Разбивка, как в запросе" if base.breakdown else "Итог, как в запросе",
                     "Breakdown as requested" if base.breakdown else "Total as requested", base)]
    if base.breakdown:
        flat = prune_joins(base.model_copy(update={"dimensions": [], "grain": None, "order": None, "limit": None}),
                           catalog)
        out.append(Candidate("aggregate", "Один итог без разбивки", "One total, no breakdown", flat))
    if base.dimensions and not base.grain and base.date_column and _months(base.period) >= 2:
        out.append(Candidate("detailed", "Подробно: разбивка по месяцам", "Detailed: breakdown by month",
                             base.model_copy(update={"grain": "month", "order": None})))
    previous = _previous(base.period) if base.period and base.date_column else None
    if previous is not None:
        period, grain = previous
        out.append(Candidate("comparison", "Сравнение с прошлым периодом", "Comparison with the previous period",
                             base.model_copy(update={"period": period, "grain": grain, "order": None, "limit": None})))
    if base.dimensions and not base.limit:
        out.append(Candidate("top_n", f"Топ-{TOP_N}", f"Top {TOP_N}",
                             base.model_copy(update={"order": "desc", "limit": TOP_N, "grain": None})))
    return out, None
