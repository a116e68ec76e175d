"""A compared period the data end inside: named in the answer and flagged, never silent.

"Выручка за 2026 год по сравнению с 2025", asked while the warehouse holds data to 30
November 2026, compares eleven months with twelve: the drop is the calendar's, not the
business's. The last date of each date column the plan (and each of its parts) is dated
by is read through the guard (with the asker's row policy); a period that starts on or
before it and ends after it is partial. Ask's result checks and route's report planner
use this one rule and this one message (`partial_checks`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from vitrina.catalog import Catalog
from vitrina.present.numbers import as_date, format_date
from vitrina.query.messages import text
from vitrina.query.plan import PeriodRef, QueryPlan
from vitrina.sql.guard import guard_with_catalog
from vitrina.trace import Trace
from vitrina.warehouse import Warehouse, WarehouseError

LastDay = Callable[[str, str], date | None]  # (table, date column) -> the last date it holds
CHECK = "partial_period"


def last_day_reader(
    warehouse: Warehouse, catalog: Catalog, trace: Trace, policy: Any = None
) -> LastDay:
    """MAX(column) of a table through the guard, cached on the warehouse per policy."""

    def read(table: str, column: str) -> date | None:
        key = ("last_day", table, column, policy.dumps() if policy else None)
        if key in warehouse.cache:
            cached: date | None = warehouse.cache[key]
            return cached
        checked = guard_with_catalog(
            f"SELECT MAX({column}) AS last_day FROM {table}",
            catalog,
            dialect=warehouse.dialect,
            row_cap=1,
            policy=policy,
        )
        if not checked.ok:
            trace.suppressed("data end not read: the guard refused it", table=table)
            return None
        try:
            value = as_date(warehouse.execute(checked.sql).rows[0][0])
        except WarehouseError as exc:
            trace.suppressed("data end not read", table=table, error=str(exc))
            return None
        warehouse.cache[key] = value
        return value

    return read


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


def partial_checks(
    plan: QueryPlan, last_day: LastDay, lang: str, periods: list[PeriodRef] | None = None
) -> list[dict[str, str]]:
    """One `partial_period` check per partial period, its message in `lang`."""
    return [
        {
            "check": CHECK,
            "message": text(
                "partial_period", lang, period=p.label(lang), end=format_date(end, lang)
            ),
        }
        for p, end in partial_periods(plan, last_day, periods)
    ]
