"""Date points: the ends of a range ("1 марта 2025", "March", "2025-03-01", "15", "2024").

A point may lack parts: "с 1 по 15 марта" has a bare day first, "с января по март 2025"
a month without a year. ``resolve_range`` lends the missing parts from the other end and
from ``today``, so the range matchers stay a few lines each.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date

from vitrina.language.periods.calendar import latest_year, make_date, month_end, year_ok
from vitrina.language.periods.lexicon import (
    MONTH,
    MONTH_AFTER_DAY,
    MONTH_EN,
    YEAR,
    YEAR_WORD,
    month_number,
)

F = re.IGNORECASE

_DAY = r"(?<![\d.,])(?P<d>[0-3]?\d)(?:st|nd|rd|th|-?(?:го|е|ое))?(?!\w)"

# Most specific first; the range patterns try them in this order and never backtrack
# into a shorter form (an atomic group), so "2025-01-15" is never "2025-01" + "15".
FORMS: dict[str, str] = {
    "iso_date": r"(?<!\d)(?<!\d[.-])(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})(?!\d)",
    "dmy": r"(?<!\d)(?<!\d\.)(?P<d>\d{1,2})\.(?P<m>\d{1,2})\.(?P<y>\d{4})(?!\d)",
    "day_month": (
        rf"{_DAY}\s+(?:of\s+)?(?P<mon>{MONTH_AFTER_DAY})"
        rf"(?:,?\s+(?P<y>{YEAR})(?:{YEAR_WORD})?)?"
    ),
    "month_day": rf"(?P<mon>{MONTH_EN})\s+{_DAY}(?:,?\s+(?P<y>{YEAR}))?",
    "iso_month": r"(?<!\d)(?<!\d[.-])(?P<y>\d{4})-(?P<m>\d{1,2})(?!\d)(?!-\d)",
    "month_year_numeric": r"(?<!\d)(?<!\d\.)(?P<m>\d{1,2})\.(?P<y>\d{4})(?!\d)(?!\.\d)",
    "month": rf"(?P<mon>{MONTH})(?:,?\s+(?:of\s+)?(?P<y>{YEAR})(?:{YEAR_WORD})?)?",
    "year": rf"(?P<y>{YEAR})(?:{YEAR_WORD})?",
    "day": _DAY,
}
DATE_FORMS = ("iso_date", "dmy", "day_month", "month_day")
MONTH_FORMS = ("iso_month", "month_year_numeric", "month")
_COMPILED = {name: re.compile(pattern, F) for name, pattern in FORMS.items()}


def alternation(names: tuple[str, ...] = tuple(FORMS)) -> str:
    """An atomic group of the named forms without their group names, for embedding."""
    bodies = (re.sub(r"\(\?P<\w+>", "(?:", FORMS[name]) for name in names)
    return "(?>" + "|".join(bodies) + ")"


POINT = alternation()


@dataclass(frozen=True)
class Point:
    """Parts of a date as written; None where the text did not say."""

    day: int | None = None
    month: int | None = None
    year: int | None = None


def parse_point(text: str, names: tuple[str, ...] = tuple(FORMS)) -> Point | None:
    """Read one point, or None when a number is out of range (month 13, year 3000).

    >>> parse_point("15 марта 2025 года")
    Point(day=15, month=3, year=2025)
    >>> parse_point("Sept.")
    Point(day=None, month=9, year=None)
    """
    for name in names:
        m = _COMPILED[name].fullmatch(text.strip())
        if m is None:
            continue
        g = m.groupdict()
        day = int(g["d"]) if g.get("d") else None
        month = month_number(g["mon"]) if g.get("mon") else int(g["m"]) if g.get("m") else None
        year = int(g["y"]) if g.get("y") else None
        if (day is not None and not 1 <= day <= 31) or (month is not None and not 1 <= month <= 12):
            return None
        if year is not None and not year_ok(year):
            return None
        return Point(day, month, year)
    return None


def start_of(point: Point, notes: list[str], ru: bool) -> date | None:
    """First day a (complete) point covers: a day, the 1st of a month, 1 January."""
    assert point.year is not None
    return make_date(point.year, point.month or 1, point.day or 1, notes, ru)


def end_of(point: Point, notes: list[str], ru: bool) -> date | None:
    """Last day a (complete) point covers: a day, the month's last day, 31 December."""
    assert point.year is not None
    if point.month is None:
        return date(point.year, 12, 31)
    if point.day is None:
        return month_end(point.year, point.month)
    return make_date(point.year, point.month, point.day, notes, ru)


def resolve_point(point: Point, today: date) -> Point | None:
    """Give a lone point its year: the latest one whose start is not after today."""
    if point.month is None and point.year is None:
        return None  # a bare day ("15") is not a period on its own
    if point.year is None:
        assert point.month is not None
        return replace(point, year=latest_year(point.month, point.day or 1, today))
    return point


def resolve_range(
    a: Point, b: Point | None, today: date, notes: list[str], ru: bool
) -> tuple[date, date] | None:
    """Dates for "a .. b" (b None means "till today"), filling what each end lacks.

    A bare day borrows the other end's month ("с 1 по 15 марта"); a missing year
    is borrowed from the other end, moving one year back or forward when the months
    wrap ("с ноября по февраль 2025" starts in November 2024); with no year at all
    the start is the latest one not after today. An end before its start is swapped,
    with a note in ``notes``, rather than silently fixed or dropped.
    """
    if b is None:
        start_point = resolve_point(a, today)
        if start_point is None:
            return None
        start = start_of(start_point, notes, ru)
        return (start, today) if start is not None and start <= today else None
    if a.month is None and a.day is not None:
        a = replace(a, month=b.month)
    if b.month is None and b.day is not None:
        b = replace(b, month=a.month)
    if (a.day is not None and a.month is None) or (b.day is not None and b.month is None):
        return None
    wraps = a.month is not None and b.month is not None and a.month > b.month
    if a.year is None and b.year is None:
        if a.month is None:
            return None
        a = replace(a, year=latest_year(a.month, a.day or 1, today))
    if a.year is None:
        assert b.year is not None
        a = replace(a, year=b.year - 1 if wraps else b.year)
    if b.year is None:
        assert a.year is not None
        b = replace(b, year=a.year + 1 if wraps else a.year)
    start, end = start_of(a, notes, ru), end_of(b, notes, ru)
    if start is None or end is None:
        return None
    if end < start:
        notes.append(
            "конец периода раньше начала, концы переставлены"
            if ru
            else "the end was before the start, the ends were swapped"
        )
        start, end = start_of(b, [], ru), end_of(a, [], ru)
        if start is None or end is None:
            return None
    return start, end
