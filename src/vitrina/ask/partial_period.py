"""A compared period the data end inside: named in the answer and flagged, never silent.

"Выручка за 2026 год по сравнению с 2025", asked while the warehouse holds data to 30
November 2026, compares eleven months with twelve: the drop is the calendar's, not the
business's. The last date of each date column the plan (and each of its parts) is dated
by is read; a period that starts on or before it and ends after it is partial. Ask's
result checks and route's report planner use this one rule.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from vitrina.ask.messages import text
from vitrina.ask.plan import PeriodRef, QueryPlan
from vitrina.present.numbers import format_date

LastDay = Callable[[str, str], date | None]  # (table, date column) -> the last date it holds


def date_columns(plan: QueryPlan) -> list[tuple[str, str]]:
    """(table, column) of every date the plan and its parts filter their periods on."""
    dated = [(p.date_owner, p.date_column) for p in (plan.parts or [plan]) if p.date_column]
    return list(dict.fromkeys(dated))


def partial_periods(
    plan: QueryPlan, last_day: LastDay, periods: list[PeriodRef] | None = None
) -> list[tuple[PeriodRef, date]]:
    """(period, the data's last day) for each period of `periods` (default: the plan's two)
    that the data end inside."""
    ends = [d for d in (last_day(t, c) for t, c in date_columns(plan)) if d is not None]
    if not ends:
        return []
    end = min(ends)  # the part whose data stop first makes the period partial
    asked = periods if periods is not None else [p for p in (plan.period, plan.compared) if p]
    return [(p, end) for p in asked if not p.open_start and p.start <= end < p.end]


def partial_message(period: PeriodRef, end: date, lang: str) -> str:
    return text("partial_period", lang, period=period.label(lang), end=format_date(end, lang))
