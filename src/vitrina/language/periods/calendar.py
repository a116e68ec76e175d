"""Calendar arithmetic and labels for periods: pure functions of dates, no parsing.

Labels are derived from the dates, never from the words the user typed, so
"с января по март 2025", "Q1 2025" and "первый квартал" all read "I квартал 2025".
"""

from __future__ import annotations

import calendar as _cal
from datetime import date, timedelta

from vitrina.language.periods.lexicon import MONTH_NAME_EN, MONTH_NAME_RU

MIN_YEAR, MAX_YEAR = 1990, 2100
ROMAN = {1: "I", 2: "II", 3: "III", 4: "IV"}


def year_ok(year: int) -> bool:
    """A four-digit number is a year only inside 1990..2100 (so "топ 2000" is not)."""
    return MIN_YEAR <= year <= MAX_YEAR


def last_day(year: int, month: int) -> int:
    """Days in a month, leap years included.

    >>> last_day(2024, 2), last_day(2025, 2), last_day(2100, 2)
    (29, 28, 28)
    """
    return _cal.monthrange(year, month)[1]


def month_end(year: int, month: int) -> date:
    return date(year, month, last_day(year, month))


def add_months(day: date, months: int) -> date:
    """Shift by whole months, clamping the day: 31 Mar - 1 month = 28/29 Feb."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    return date(year, month + 1, min(day.day, last_day(year, month + 1)))


def quarter_of(day: date) -> int:
    return (day.month - 1) // 3 + 1


def quarter_bounds(year: int, quarter: int) -> tuple[date, date]:
    first = 3 * quarter - 2
    return date(year, first, 1), month_end(year, first + 2)


def half_bounds(year: int, half: int) -> tuple[date, date]:
    first = 6 * half - 5
    return date(year, first, 1), month_end(year, first + 5)


def week_bounds(day: date) -> tuple[date, date]:
    """The ISO week (Monday..Sunday) that contains ``day``."""
    monday = day - timedelta(days=day.weekday())
    return monday, monday + timedelta(days=6)


def latest_year(month: int, day: int, today: date) -> int:
    """The year of the latest (month, day) that has started by ``today``.

    A month or a date named without a year means the most recent one that is not in
    the future: in May 2025 "июнь" is June 2024, "май" is May 2025.

    >>> latest_year(6, 1, date(2025, 5, 15)), latest_year(5, 1, date(2025, 5, 15))
    (2024, 2025)
    """
    return today.year if (month, day) <= (today.month, today.day) else today.year - 1


def make_date(year: int, month: int, day: int, notes: list[str], ru: bool) -> date | None:
    """A real date, or the last day of the month with a note when the day overflows.

    "30 февраля 2025" becomes 28.02.2025 and says so; a day above 31 or a month above
    12 is not a date at all (None), so "45.13.2025" is never read as a period.
    """
    if not (1 <= month <= 12 and 1 <= day <= 31 and year_ok(year)):
        return None
    last = last_day(year, month)
    if day <= last:
        return date(year, month, day)
    fixed = date(year, month, last)
    if ru:
        notes.append(f"{day:02d}.{month:02d}.{year} не существует, взято {fixed:%d.%m.%Y}")
    else:
        notes.append(f"{year}-{month:02d}-{day:02d} does not exist, used {fixed:%Y-%m-%d}")
    return fixed


def _ru_date(day: date) -> str:
    return f"{day:%d.%m.%Y}"


def _en_date(day: date) -> str:
    return day.isoformat()


def labels(start: date, end: date) -> tuple[str, str]:
    """Human labels (ru, en) for a date range, the most compact that is exact.

    >>> labels(date(2025, 5, 1), date(2025, 5, 31))
    ('май 2025', 'May 2025')
    >>> labels(date(2025, 1, 1), date(2025, 3, 31))
    ('I квартал 2025', 'Q1 2025')
    >>> labels(date(2025, 3, 1), date(2025, 3, 15))
    ('01.03.2025–15.03.2025', '2025-03-01 – 2025-03-15')
    """
    if start == end:
        return _ru_date(start), _en_date(start)
    whole_months = start.day == 1 and end == month_end(end.year, end.month)
    if whole_months:
        y0, m0, y1, m1 = start.year, start.month, end.year, end.month
        if m0 == 1 and m1 == 12:
            if y0 == y1:
                return f"{y0} год", f"{y0}"
            return f"{y0}–{y1} гг.", f"{y0}–{y1}"
        if y0 == y1 and m1 - m0 == 5 and m0 in (1, 7):
            half = 1 if m0 == 1 else 2
            return f"{ROMAN[half]} полугодие {y0}", f"H{half} {y0}"
        if y0 == y1 and m1 - m0 == 2 and m0 % 3 == 1:
            q = quarter_of(start)
            return f"{ROMAN[q]} квартал {y0}", f"Q{q} {y0}"
        if (y0, m0) == (y1, m1):
            return f"{MONTH_NAME_RU[m0]} {y0}", f"{MONTH_NAME_EN[m0]} {y0}"
        if y0 == y1:
            return (
                f"{MONTH_NAME_RU[m0]}–{MONTH_NAME_RU[m1]} {y0}",
                f"{MONTH_NAME_EN[m0]}–{MONTH_NAME_EN[m1]} {y0}",
            )
        return (
            f"{MONTH_NAME_RU[m0]} {y0} – {MONTH_NAME_RU[m1]} {y1}",
            f"{MONTH_NAME_EN[m0]} {y0} – {MONTH_NAME_EN[m1]} {y1}",
        )
    return f"{_ru_date(start)}–{_ru_date(end)}", f"{_en_date(start)} – {_en_date(end)}"
