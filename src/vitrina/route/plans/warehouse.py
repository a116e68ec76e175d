"""Candidate report plans for a warehouse target: several complete QueryPlans from one request.

The base plan comes from the ask job's planner (`build_plan`); the others change one
decision each: no breakdown (a plain aggregate), a month series under the breakdown
(detailed), the compared period alongside (comparison: one plan of two periods, the
second the one the comparison words name, "к прошлому году" a year back), the top N only.
"""

from __future__ import annotations

from dataclasses import dataclass

from vitrina.catalog import Catalog
from vitrina.language.periods.calendar import labels
from vitrina.language.periods.compare import Unit, own_unit, previous_period
from vitrina.query import PeriodRef, QueryPlan, build_plan
from vitrina.query.reshape import prune_joins
from vitrina.route.plans.request import ReportRequest
from vitrina.trace import Trace

TOP_N = 10


@dataclass
class Candidate:
    id: str
    label_ru: str
    label_en: str
    plan: QueryPlan
    previous: PeriodRef | None = None  # comparison: the same plan runs for this period too

    def label(self, lang: str) -> str:
        return self.label_ru if lang == "ru" else self.label_en


def compared_period(period: PeriodRef, unit: Unit) -> PeriodRef:
    """The period a comparison looks back to: one `unit` before the asked one."""
    start, end = previous_period(period.start, period.end, unit)
    label_ru, label_en = labels(start, end)
    return PeriodRef(start=start, end=end, label_ru=label_ru, label_en=label_en)


def _months(period: PeriodRef | None) -> int:
    if period is None:
        return 48
    return (period.end.year - period.start.year) * 12 + period.end.month - period.start.month + 1


def warehouse_candidates(
    req: ReportRequest, catalog: Catalog, trace: Trace
) -> tuple[list[Candidate], str | None]:
    """(candidates, refusal): the base plan first, then its variants."""
    if req.topic is None:
        return [], "no_metric"
    outcome = build_plan(
        req.reading,
        catalog,
        topic=req.topic,
        lang=req.lang,
        period=req.period,
        segment=None,
        trace=trace,
    )
    if outcome.plan is None:
        return [], outcome.refusal or "no_metric"
    base = outcome.plan
    if base.parts:  # metrics of several fact tables: their own joins per part, no variants
        return [
            Candidate(
                "breakdown" if base.breakdown else "aggregate",
                "Как в запросе",
                "As requested",
                base,
            )
        ], None
    out = [
        Candidate(
            "breakdown" if base.breakdown else "aggregate",
            "Разбивка, как в запросе" if base.breakdown else "Итог, как в запросе",
            "Breakdown as requested" if base.breakdown else "Total as requested",
            base,
        )
    ]
    if base.breakdown:
        flat = prune_joins(
            base.model_copy(update={"dimensions": [], "grain": None, "order": None, "limit": None}),
            catalog,
        )
        out.append(
            Candidate("aggregate", "Один итог без разбивки", "One total, no breakdown", flat)
        )
    if base.dimensions and not base.grain and base.date_column and _months(base.period) >= 2:
        out.append(
            Candidate(
                "detailed",
                "Подробно: разбивка по месяцам",
                "Detailed: breakdown by month",
                base.model_copy(update={"grain": "month", "order": None}),
            )
        )
    unit = req.compare_unit or (
        own_unit(base.period.start, base.period.end) if base.period else None
    )
    if (
        base.period
        and base.date_column
        and (req.compare or unit in ("year", "quarter", "month", "week"))
    ):
        previous = req.compared or compared_period(base.period, unit)
        out.append(
            Candidate(
                "comparison",
                f"Сравнение с периодом {previous.label_ru}",
                f"Comparison with {previous.label_en}",
                # one plan of two periods: both values, the change and the change in percent
                base.model_copy(update={"limit": None, "order": None, "compared": previous}),
                previous,
            )
        )
    if base.dimensions and not base.limit:
        out.append(
            Candidate(
                "top_n",
                f"Топ-{TOP_N}",
                f"Top {TOP_N}",
                base.model_copy(update={"order": "desc", "limit": TOP_N, "grain": None}),
            )
        )
    return out, None
