"""Partial periods at the ends of a series: named and left out of the step's table.

"За последние 24 месяца" on 1 December starts on 2 December two years back and ends today:
its first month lacks a day and its last holds one day. A month (quarter, year, week) of a
series counts only when the asked period covers it whole, it is over before today, and the
data reach its last day; the others are listed in the step's report and dropped, so a
growth or forecast step never reads a false fall at an end of the series.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from vitrina.language.periods.calendar import add_months, month_end
from vitrina.present.numbers import format_period

GRAINS = {"day": 0, "week": 0, "month": 1, "quarter": 3, "year": 12}


def bucket_end(start: date, grain: str) -> date:
    if grain == "day":
        return start
    if grain == "week":
        return start + timedelta(days=6)
    last = add_months(start, GRAINS[grain] - 1)
    return month_end(last.year, last.month)


def partial_buckets(
    columns: list[str], rows: list[Any], start: date, end: date, last_day: date | None, today: date
) -> tuple[int, str, list[date]] | None:
    """(the period column's index, its grain, the partial buckets) of a series, or None."""
    index = next((i for i, c in enumerate(columns) if c in GRAINS), None)
    if index is None:
        return None
    grain = columns[index]
    partial = []
    for value in sorted({r[index] for r in rows if isinstance(r[index], date)}):
        stop = bucket_end(value, grain)
        if (
            value < start
            or stop > end
            or stop >= today
            or (last_day is not None and stop > last_day)
        ):
            partial.append(value)
    return (index, grain, partial) if partial else None


def labels(values: list[date], grain: str, lang: str) -> str:
    return ", ".join(format_period(v, grain, lang) for v in values)
