"""Forecast horizons from the request's words, counted from the last complete month.

A forecast never covers a month that has actuals, and never starts from a month whose
data is incomplete. The series ends at the last complete month (`last_complete_month`:
over before today and covered by the data to its last day); the horizon is read from the
words and laid after it:

* "на следующий месяц", "next month": the first month after the last complete one;
* "на N месяцев", "на ближайшие N месяцев", "next N months", "N months ahead", "на квартал"
  (3), "на полгода" (6), "на год" (12): that many months after it;
* "на следующий квартал / полугодие / год", "next quarter / half / year": the first whole
  calendar quarter (half, year) after it; the months before it are forecast too (the
  bridge) but reported apart;
* "до конца года", "until the end of the year", "for the rest of the year": the months
  left in the year of the first forecast month;
* a named period ("на декабрь 2026", "for Q1 2027"): that period's months;
* nothing said: the next 3 months, and the title says so.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Literal

from pydantic import BaseModel

from vitrina.language.periods import extract_period
from vitrina.language.periods.calendar import add_months, last_day, month_end

Kind = Literal["months", "next_quarter", "next_half", "next_year", "year_end", "named"]
DEFAULT_MONTHS = 3
MAX_MONTHS = 24
F = re.IGNORECASE

FORECAST = re.compile(r"прогноз\w*|спрогнозир\w*|forecast\w*|predict\w*|projection", F)
NUMBER_WORDS = {
    "один": 1,
    "одного": 1,
    "два": 2,
    "двух": 2,
    "три": 3,
    "трёх": 3,
    "трех": 3,
    "четыре": 4,
    "четырёх": 4,
    "пять": 5,
    "пяти": 5,
    "шесть": 6,
    "шести": 6,
    "девять": 9,
    "девяти": 9,
    "двенадцать": 12,
    "двенадцати": 12,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "nine": 9,
    "twelve": 12,
}
_WORDS = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))


def _n(name: str) -> str:
    return rf"(?P<{name}>\d{{1,2}}|{_WORDS})"


RULES: tuple[tuple[re.Pattern[str], Kind, int], ...] = (
    (
        re.compile(
            r"до\s+конца\s+(?:этого\s+|текущего\s+)?года|(?:until|till|to|through)\s+(?:the\s+)?end\s+of\s+"
            r"(?:the\s+|this\s+)?year|(?:for\s+)?the\s+rest\s+of\s+the\s+year|year[- ]end",
            F,
        ),
        "year_end",
        0,
    ),
    (re.compile(r"следующ\w+\s+квартал\w*|next\s+quarter", F), "next_quarter", 3),
    (re.compile(r"следующ\w+\s+полугоди\w*|next\s+half(?:[- ]year)?", F), "next_half", 6),
    (re.compile(r"следующ\w+\s+год\w*|next\s+year", F), "next_year", 12),
    (
        re.compile(
            r"следующ\w+\s+месяц\w*|next\s+month|ближайш\w+\s+месяц(?!\w)|the\s+coming\s+month", F
        ),
        "months",
        1,
    ),
    (
        re.compile(
            rf"(?:на\s+)?(?:ближайшие\s+|следующие\s+)?{_n('a')}\s+(?:месяц\w*|мес\.?)|(?:next|coming)\s+"
            rf"{_n('b')}\s+months?|{_n('c')}\s+months?(?:\s+ahead)?",
            F,
        ),
        "months",
        -1,
    ),
    (
        re.compile(
            r"на\s+(?:один\s+|ближайший\s+)?квартал|(?:a|one)\s+quarter\s+ahead|for\s+a\s+quarter",
            F,
        ),
        "months",
        3,
    ),
    (
        re.compile(
            r"на\s+полгода|(?:half\s+a|six\s+months?)\s+(?:year\s+)?ahead|for\s+half\s+a\s+year", F
        ),
        "months",
        6,
    ),
    (
        re.compile(
            r"на\s+(?:один\s+)?год(?:\s+вперёд|\s+вперед)?(?!\w)|(?:a|one)\s+year\s+ahead|for\s+a\s+year",
            F,
        ),
        "months",
        12,
    ),
    (
        re.compile(
            r"на\s+месяц(?:\s+вперёд|\s+вперед)?(?!\w)|(?:a|one)\s+month\s+ahead|for\s+a\s+month", F
        ),
        "months",
        1,
    ),
)
WINDOW = 80  # characters after the forecast word that may hold its horizon


class Horizon(BaseModel):
    """What the forecast covers, by rule; `target` lays it after the last complete month."""

    kind: Kind = "months"
    months: int = DEFAULT_MONTHS  # for kind "months"
    start: date | None = None  # for kind "named": the period's first and last day
    end: date | None = None
    words: str = ""  # the phrase it came from ("" = the default)

    def target(self, last: date) -> tuple[date, date]:
        """The first and last month (first days) reported, after the last complete month `last`."""
        first = add_months(last.replace(day=1), 1)
        if self.kind == "months":
            return first, add_months(first, max(1, min(self.months, MAX_MONTHS)) - 1)
        if self.kind == "year_end":
            return first, date(first.year, 12, 1)
        if self.kind == "named":
            assert self.start is not None and self.end is not None
            return self.start.replace(day=1), self.end.replace(day=1)
        size = {"next_quarter": 3, "next_half": 6, "next_year": 12}[self.kind]
        start = first
        while (start.month - 1) % size:  # the first whole calendar unit starting after `last`
            start = add_months(start, 1)
        return start, add_months(start, size - 1)

    def label(self, lang: str) -> str:
        if self.words:
            return self.words
        return f"следующие {self.months} мес." if lang == "ru" else f"the next {self.months} months"


def _number(word: str) -> int:
    return int(word) if word.isdigit() else NUMBER_WORDS[word.lower()]


def read_horizon(text: str, today: date) -> Horizon:
    """The horizon the words after "прогноз" / "forecast" name; the next 3 months when none.

    >>> read_horizon("и сделай прогноз на следующий месяц", date(2026, 12, 1)).months
    1
    >>> read_horizon("forecast the next 6 months", date(2026, 12, 1)).months
    6
    >>> read_horizon("прогноз до конца года", date(2026, 12, 1)).kind
    'year_end'
    """
    found = FORECAST.search(text)
    window = text[found.end() : found.end() + WINDOW] if found else text
    best: tuple[int, Horizon] | None = None
    for pattern, kind, months in RULES:
        m = pattern.search(window)
        if m is None or (best is not None and m.start() >= best[0]):
            continue
        n = _number(next(g for g in m.groupdict().values() if g)) if months == -1 else months
        best = (m.start(), Horizon(kind=kind, months=n, words=m.group(0).strip()))
    if best is not None:
        return best[1]
    named = extract_period(window, today)
    if (
        named is not None
        and named.start.day == 1
        and named.end.day == last_day(named.end.year, named.end.month)
    ):
        return Horizon(kind="named", start=named.start, end=named.end, words=named.span.strip())
    return Horizon()


def last_complete_month(today: date, data_end: date | None) -> date:
    """The first day of the latest month that is over before today and that the data cover
    to its last day (today's month is never complete: the day is not over).

    >>> last_complete_month(date(2026, 12, 1), date(2026, 11, 30))
    datetime.date(2026, 11, 1)
    >>> last_complete_month(date(2026, 11, 30), date(2026, 11, 30))
    datetime.date(2026, 10, 1)
    >>> last_complete_month(date(2026, 12, 1), date(2026, 11, 15))
    datetime.date(2026, 10, 1)
    """
    month = add_months(today.replace(day=1), -1)
    for _ in range(120):  # a hard bound: data ten years behind the calendar
        if data_end is None or month_end(month.year, month.month) <= data_end:
            return month
        month = add_months(month, -1)
    return month


def months_between(first: date, last: date) -> list[date]:
    """Month starts from `first` to `last`, both included."""
    out, month = [], first.replace(day=1)
    while month <= last and len(out) <= 12 * 20:
        out.append(month)
        month = add_months(month, 1)
    return out
