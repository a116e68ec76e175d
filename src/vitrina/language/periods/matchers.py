"""Matchers: small functions, each finding one kind of time phrase in a question.

Each takes ``(text, today)`` and returns a :class:`Hit` (where the phrase is and the
Period it means) or None; it is written as what it makes of one regex match, and
``@matcher(patterns)`` runs it on the leftmost match it accepts. ``extract_period`` runs
all of ``MATCHERS`` and keeps the leftmost hit, the longest at that position, the earlier
matcher on a tie: so the range "с 1 по 15 марта" beats the date "15 марта" inside it, and
in "май против прошлого года" the first-named period (May) is the one asked about.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import date, timedelta
from functools import wraps
from typing import NamedTuple

from vitrina.language.detect import is_ru
from vitrina.language.periods.calendar import (
    add_months,
    half_bounds,
    labels,
    latest_year,
    quarter_bounds,
    quarter_of,
    week_bounds,
    year_ok,
)
from vitrina.language.periods.lexicon import (
    NUMBER,
    ORDINAL,
    PREP,
    UNIT,
    UNIT_BY_WORD,
    YEAR,
    YEAR_WORD,
    number_value,
    ordinal_value,
)
from vitrina.language.periods.model import Period
from vitrina.language.periods.points import (
    DATE_FORMS,
    MONTH_FORMS,
    POINT,
    Point,
    alternation,
    end_of,
    parse_point,
    resolve_point,
    resolve_range,
    start_of,
)

F = re.IGNORECASE


class Rx:
    """A matcher pattern, compiled on first use and tried only on a text holding its hint.

    The patterns here took ~50 ms to compile at import, half of it the three ranges that
    spell the whole date grammar twice, while a question needs few of them. ``hint`` is a
    cheap regex found in every text the pattern matches (a word it cannot match without),
    so a text without it has no match and the pattern is neither compiled nor run: several
    hints must all be found. tests/test_periods.py checks every hint against the table of
    periods.yaml. Each hint is a plain alternation, linear in the text however long.
    """

    __slots__ = ("_compiled", "flags", "hints", "source")

    def __init__(self, source: str, flags: int = F, hint: str | tuple[str, ...] = ()) -> None:
        self.source, self.flags = source, flags
        self.hints = tuple(
            re.compile(h, flags) for h in ((hint,) if isinstance(hint, str) else hint)
        )
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:  # two threads may both compile it: the same pattern
            self._compiled = re.compile(self.source, self.flags)
        return self._compiled

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        if any(hint.search(text) is None for hint in self.hints):
            return iter(())
        return self.compiled.finditer(text)


def _rx(pattern: str, flags: int = F, hint: str | tuple[str, ...] = ()) -> Rx:
    """A matcher pattern anchored at a word start: every phrase begins with a word
    character, and skipping mid-word positions keeps extract_period fast."""
    return Rx(r"\b" + pattern, flags, hint)


class Hit(NamedTuple):
    """A period and the character offsets of the phrase that produced it."""

    start: int
    end: int
    period: Period


Matcher = Callable[[str, date], Hit | None]


def _hit(m: re.Match[str], start: date, end: date, notes: list[str] | None = None) -> Hit:
    label_ru, label_en = labels(start, end)
    period = Period(
        start=start,
        end=end,
        label_ru=label_ru,
        label_en=label_en,
        span=m.group(0),
        corrected="; ".join(notes) if notes else None,
    )
    return Hit(m.start(), m.end(), period)


def _first(
    patterns: tuple[Rx, ...], text: str, build: Callable[[re.Match[str]], Hit | None]
) -> Hit | None:
    """The leftmost match of any pattern that ``build`` accepts."""
    best: Hit | None = None
    for pattern in patterns:
        for m in pattern.finditer(text):
            if best is not None and m.start() >= best.start:
                break
            hit = build(m)
            if hit is not None:
                best = hit
                break
    return best


Build = Callable[[re.Match[str], date], Hit | None]


def matcher(*patterns: Rx, hint: re.Pattern[str] | None = None) -> Callable[[Build], Matcher]:
    """Make ``build(m, today)`` a Matcher: the leftmost match of ``patterns`` it accepts.

    ``hint`` is a cheap keyword check that skips the full patterns for most questions.
    """

    def wrap(build: Build) -> Matcher:
        @wraps(build)
        def match(text: str, today: date) -> Hit | None:
            if hint is not None and not hint.search(text):
                return None
            return _first(patterns, text, lambda m: build(m, today))

        return match

    return wrap


def _range_hit(m: re.Match[str], a: Point, b: Point | None, today: date) -> Hit | None:
    """The range ``a``..``b`` (``b`` None: up to today), noting each day it had to correct."""
    notes: list[str] = []
    dates = resolve_range(a, b, today, notes, is_ru(m.string))
    return _hit(m, *dates, notes) if dates else None


# --- explicit ranges ----------------------------------------------------------------

_NOW = (
    r"(?:сегодняшн\w+\s+день|сегодня|настоящ\w+\s+врем\w+|текущ\w+\s+момент\w*"
    r"|today|now|date|the\s+present|present)(?!\w)"
)
_END = rf"(?:(?P<now>{_NOW})|(?P<b>{POINT}))(?P<tail>,?\s+(?P<ty>{YEAR})(?:{YEAR_WORD})?)?"
_PERIOD_WORD = r"(?:(?:за|в)\s+период\s+|(?:for|in|during|over)\s+(?:the\s+)?period\s+)?"
_RANGES = (
    _rx(  # "с 1 по 15 марта 2025", "from March 1 to 15, 2025", "с марта по сегодня"
        rf"{_PERIOD_WORD}(?:начиная\s+)?(?:с|со|from|since|starting)\s+(?P<a>{POINT})"
        rf"\s*(?:по|до|to|till|until|through|thru|[-–—])\s*{_END}",
        F,
        hint=(r"(?:с|со|from|since|starting)\s", r"по|до|to|till|until|through|thru|[-–—]"),
    ),
    _rx(  # "между 1 и 15 марта", "between 2025-01-01 and 2025-02-10"
        rf"{_PERIOD_WORD}(?:между|between)\s+(?P<a>{POINT})\s+(?:и|and)\s+{_END}",
        F,
        hint=r"между|between",
    ),
    _rx(  # "01.03.2025–15.03.2025", "January to March 2025", "за 2023-2024 гг."
        rf"{PREP}?(?P<a>{POINT})(?:\s*(?:[-–—]|\.\.)\s*|\s+(?:to|through|thru|till|until)\s+){_END}",
        F,
        hint=r"[-–—]|\.\.|\s(?:to|through|thru|till|until)\s",
    ),
)


@matcher(*_RANGES)
def match_range(m: re.Match[str], today: date) -> Hit | None:
    """An explicit range with two ends; a year written once applies to both ends."""
    a = parse_point(m["a"])
    b = None if m["now"] else parse_point(m["b"])
    if a is None or (b is None and not m["now"]):
        return None
    if b is not None and m["ty"] and b.year is None:
        b = Point(b.day, b.month, int(m["ty"]))
    return _range_hit(m, a, b, today)


# --- "с начала года", YTD, "с марта" ---------------------------------------------------

_START_UNITS = {
    "года": "year", "year": "year", "ytd": "year",
    "полугодия": "half",
    "квартала": "quarter", "quarter": "quarter", "qtd": "quarter",
    "месяца": "month", "month": "month", "mtd": "month",
    "недели": "week", "week": "week", "wtd": "week",
}  # fmt: skip
_PREVIOUS = ("прошлого", "предыдущего", "last", "previous")  # "с начала прошлого года"
_START_OF = (
    _rx(
        r"(?:начиная\s+)?(?:с|со)\s+начала\s+(?:(?P<rel>этого|текущего|прошлого|предыдущего)\s+)?"
        r"(?P<unit>года|полугодия|квартала|месяца|недели)(?!\w)"
        rf"(?:\s*(?:по|до|[-–—])\s*(?:(?P<now>{_NOW})|(?P<b>{POINT})))?",
        F,
        hint=r"начала",
    ),
    _rx(
        r"(?:since|from)\s+the\s+(?:beginning|start)\s+of\s+(?:the\s+)?"
        r"(?:(?P<rel>this|current|last|previous)\s+)?(?P<unit>year|quarter|month|week)(?!\w)"
        rf"(?:\s+(?:to|until|till|through)\s+(?:(?P<now>{_NOW})|(?P<b>{POINT})))?",
        F,
        hint=r"beginning|start",
    ),
    _rx(
        rf"{PREP}?\b(?P<unit>ytd|qtd|mtd|wtd|(?P<word>year|quarter|month|week)[-\s]to[-\s]date)\b",
        F,
    ),
)


def _unit_start(unit: str, today: date, back: int) -> date:
    """First day of the year/half/quarter/month/week containing today, ``back`` units ago."""
    if unit == "year":
        return date(today.year - back, 1, 1)
    if unit == "week":
        return week_bounds(today)[0] - timedelta(weeks=back)
    months = {"half": 6, "quarter": 3, "month": 1}[unit]
    first = date(today.year, (today.month - 1) // months * months + 1, 1)
    return add_months(first, -months * back)


@matcher(*_START_OF)
def match_start_of(m: re.Match[str], today: date) -> Hit | None:
    """ "с начала года [по март]", "year to date", "MTD": from the start of a unit to today."""
    unit = _START_UNITS[(m.groupdict().get("word") or m["unit"]).lower()]
    back = int((m.groupdict().get("rel") or "").lower() in _PREVIOUS)
    start = _unit_start(unit, today, back)
    if not m.groupdict().get("b"):
        return _hit(m, start, today)
    b = parse_point(m["b"])
    return None if b is None else _range_hit(m, Point(start.day, start.month, start.year), b, today)


_SINCE = _rx(
    r"(?:(?:начиная\s+)?(?:с|со)|since|starting(?:\s+from)?)\s+"
    rf"(?:начала\s+|the\s+(?:beginning|start)\s+of\s+)?(?P<a>{POINT})",
    F,
    hint=r"(?:с|со|since|starting)\s",
)


# "с маем", "с октябрём", "с 2025 годом": "с" with the instrumental case means "with"
_INSTRUMENTAL = re.compile(r"[а-яё]+(?:ём|ем|ом)\b", F)


@matcher(_SINCE)
def match_since(m: re.Match[str], today: date) -> Hit | None:
    """ "с марта", "since 2024-03-01", "с 2024 года": from that point to today inclusive
    ("с маем 2025" compares with May, it is no period)."""
    if _INSTRUMENTAL.search(m["a"]):
        return None
    a = parse_point(m["a"])
    return None if a is None else _range_hit(m, a, None, today)


# --- rolling windows -----------------------------------------------------------------

_ROLLING = (
    _rx(
        rf"{PREP}?(?:the\s+)?(?P<w>последн(?:ие|ий|юю|их|яя|ее|ей|им)|last|past|previous|prior|trailing|recent)"
        rf"\s+(?:(?P<n>{NUMBER})\s+)?(?P<unit>{UNIT})",
        F,
    ),
    _rx(rf"(?:за|in|within|over)\s+(?:the\s+)?(?:(?P<n>{NUMBER})\s+)?(?P<unit>{UNIT})", F),
)
_UNIT_MONTHS = {"month": 1, "quarter": 3, "half": 6, "year": 12}
_SELF_COUNTED = ("полгода", "сутки", "суток")  # "за полгода": a window without a number
_SINGULAR = (
    "день",
    "неделя",
    "неделю",
    "месяц",
    "квартал",
    "полугодие",
    "год",
)  # only after 1, 21, 31...


def rolling_window(n: int, unit: str, today: date) -> tuple[date, date]:
    """The last ``n`` units ending today inclusive.

    "последние 30 дней" on 15 May = 16 Apr..15 May (30 days including today); months
    count back by calendar months: "последние 3 месяца" on 15 May = 16 Feb..15 May.

    >>> rolling_window(7, "day", date(2025, 5, 15))
    (datetime.date(2025, 5, 9), datetime.date(2025, 5, 15))
    """
    if unit == "day":
        return today - timedelta(days=n - 1), today
    if unit == "week":
        return today - timedelta(days=7 * n - 1), today
    return add_months(today, -n * _UNIT_MONTHS[unit]) + timedelta(days=1), today


@matcher(*_ROLLING)
def match_rolling(m: re.Match[str], today: date) -> Hit | None:
    """ "последние 30 дней", "за последнюю неделю", "last 3 months", "past week", "за полгода".

    "last week"/"last month" without a number are calendar periods (match_relative);
    "последний месяц"/"past month" are rolling windows.
    """
    word = (m.groupdict().get("w") or "").lower()
    unit_word = m["unit"].lower()
    if m["n"] is None:
        if word in ("last", "previous", "prior"):
            return None  # calendar: "last month" = the previous calendar month
        if unit_word not in _SELF_COUNTED and (not word or word.endswith(("ие", "их"))):
            return None  # "за год", "последние месяцы": no window size
    n = number_value(m["n"]) if m["n"] else 1
    if n < 1 or (unit_word in _SINGULAR and m["n"] and (n % 10 != 1 or n % 100 == 11)):
        return None  # "за 3 квартал" is the third quarter, "за 3 квартала" a window
    return _hit(m, *rolling_window(n, UNIT_BY_WORD[unit_word], today))


_MONTHS_OF_YEAR = _rx(
    rf"{PREP}?(?:the\s+)?(?P<first>первые\s+|first\s+)?(?P<n>{NUMBER})\s+(?:месяц(?:а|ев)|months?)(?!\w)"
    rf"(?:\s+(?:of\s+)?(?P<y>{YEAR})(?:{YEAR_WORD})?)?",
    F,
)
_MONTHS_HINT = re.compile(r"месяц|month", F)


@matcher(_MONTHS_OF_YEAR, hint=_MONTHS_HINT)
def match_months_of_year(m: re.Match[str], today: date) -> Hit | None:
    """ "за 9 месяцев 2024 года", "first 3 months of 2025": January to the N-th month."""
    if not (m["y"] or m["first"]):
        return None
    n = number_value(m["n"])
    year = int(m["y"]) if m["y"] else today.year
    if not (1 <= n <= 12 and year_ok(year)):
        return None
    return _hit(m, date(year, 1, 1), end_of(Point(None, n, year), [], False))


# --- calendar units relative to today ------------------------------------------------

_RELATIVE = (
    _rx(
        r"(?:(?:в|во|за|на)\s+)?(?P<rel>позапрошл\w+|прошл\w+|предыдущ\w+|текущ\w+|нынешн\w+"
        r"|эт(?:от|ом|ого|а|у|ой|им)|следующ\w+)\s+"
        r"(?P<unit>недел[яеюи]|месяц(?:а|е|ем|у)?|квартал(?:а|е|ом|у)?|полугоди(?:е|я|и|ем|ю)|год(?:а|у|ом)?)(?!\w)",
        F,
    ),
    _rx(
        rf"{PREP}?(?:the\s+)?(?P<rel>last|previous|prior|this|current|next)\s+"
        r"(?P<unit>week|month|quarter|half-year|half|year)(?!\w)",
        F,
    ),
    _rx(rf"{PREP}?(?:the\s+)?(?P<unit>week|month|quarter|year)\s+(?P<rel>before\s+last)(?!\w)", F),
)


def _relative_offset(rel: str) -> int:
    rel = rel.lower()
    if rel.startswith("позапрошл") or rel.startswith("before"):
        return -2
    if rel.startswith(("прошл", "предыдущ", "last", "previous", "prior")):
        return -1
    if rel.startswith(("следующ", "next")):
        return 1
    return 0


_UNIT_PREFIXES = {
    "недел": "week", "week": "week", "месяц": "month", "month": "month",
    "квартал": "quarter", "quarter": "quarter", "полугод": "half", "half": "half",
    "год": "year", "year": "year",
}  # fmt: skip


def _relative_unit(word: str) -> str:
    """ "неделе" -> "week", "half-year" -> "half"."""
    w = word.lower()
    return next(unit for prefix, unit in _UNIT_PREFIXES.items() if w.startswith(prefix))


def relative_period(unit: str, offset: int, today: date) -> tuple[date, date]:
    """The whole calendar unit ``offset`` units from the one containing today.

    Weeks are ISO weeks, Monday to Sunday. Current units are whole, not cut at today.

    >>> relative_period("week", -1, date(2025, 5, 15))
    (datetime.date(2025, 5, 5), datetime.date(2025, 5, 11))
    >>> relative_period("quarter", -1, date(2025, 2, 10))
    (datetime.date(2024, 10, 1), datetime.date(2024, 12, 31))
    """
    if unit == "week":
        return week_bounds(today + timedelta(weeks=offset))
    if unit == "year":
        return date(today.year + offset, 1, 1), date(today.year + offset, 12, 31)
    months = {"half": 6, "quarter": 3, "month": 1}[unit]
    first = add_months(_unit_start(unit, today, 0), offset * months)
    if unit == "quarter":
        return quarter_bounds(first.year, quarter_of(first))
    if unit == "half":
        return half_bounds(first.year, 1 if first.month <= 6 else 2)
    return first, end_of(Point(None, first.month, first.year), [], False)


@matcher(*_RELATIVE)
def match_relative(m: re.Match[str], today: date) -> Hit | None:
    """ "прошлый месяц", "в этом году", "позапрошлый квартал", "last week", "this quarter"."""
    unit, offset = _relative_unit(m["unit"]), _relative_offset(m["rel"])
    return _hit(m, *relative_period(unit, offset, today))


_DAY_WORDS = _rx(
    r"(?:(?:за|на|в)\s+)?(?:(?P<d2>позавчера|позавчерашн\w+\s+день|the\s+day\s+before\s+yesterday)"
    r"|(?P<d1>вчера|вчерашн\w+\s+день|yesterday)|(?P<d0>сегодня|сегодняшн\w+\s+день|today))(?!\w)",
    F,
)


@matcher(_DAY_WORDS)
def match_day_word(m: re.Match[str], today: date) -> Hit | None:
    """ "вчера", "сегодня", "позавчера", "yesterday", "today": one day."""
    back = 2 if m["d2"] else 1 if m["d1"] else 0
    day = today - timedelta(days=back)
    return _hit(m, day, day)


# --- named calendar units: halves, quarters, dates, months, years ---------------------

_YEAR_TAIL = rf"(?:\s+(?:of\s+)?(?:the\s+)?(?:year\s+)?(?P<y>{YEAR})(?:{YEAR_WORD})?)?"


def _part_patterns(ru: str, en: str, en_unit: str, letter: str, digits: str) -> tuple[Rx, ...]:
    """A part of a year named four ways: "2-е полугодие", "second half", "H2 2025", "2025-H2"."""
    return (
        _rx(rf"{PREP}?(?P<n>{ORDINAL})\s*(?:{ru})(?!\w){_YEAR_TAIL}", F),
        _rx(rf"{PREP}?(?:the\s+)?(?P<n>{en})\s+{en_unit}(?:\s+of)?(?!\w){_YEAR_TAIL}", F),
        _rx(rf"{PREP}?\b{letter}(?P<n>[{digits}])(?:\s*['’-]?\s*(?P<y>{YEAR}))?(?!\w)", F),
        _rx(rf"{PREP}?(?P<y>{YEAR})\s*[-–]?\s*{letter}(?P<n>[{digits}])(?!\w)", F),
    )


def _part_of_year(m: re.Match[str], today: date, parts: int) -> Hit | None:
    """The n-th half or quarter; without a year, the latest one that has started."""
    n = ordinal_value(m["n"])
    if not 1 <= n <= parts:
        return None
    year = int(m["y"]) if m["y"] else latest_year(12 // parts * (n - 1) + 1, 1, today)
    if not year_ok(year):
        return None
    return _hit(m, *(half_bounds if parts == 2 else quarter_bounds)(year, n))


_HALVES = _part_patterns(r"полугоди(?:е|я|ю|и|ем)", "first|second|1st|2nd", "half", "H", "12")
_QUARTERS = _part_patterns(
    r"квартал(?:а|е|ом|у)?|кв(?!\.?\s*м\b)\.?",
    "first|second|third|fourth|1st|2nd|3rd|4th",
    "quarter",
    "Q",
    "1-4",
)


@matcher(*_HALVES, hint=re.compile(r"полугод|half|h[12]", F))
def match_half(m: re.Match[str], today: date) -> Hit | None:
    """ "первое полугодие 2025", "во 2-м полугодии", "H1 2025", "first half of 2024"."""
    return _part_of_year(m, today, 2)


@matcher(*_QUARTERS, hint=re.compile(r"кв|quarter|q[1-4]", F))
def match_quarter(m: re.Match[str], today: date) -> Hit | None:
    """ "в 1 квартале 2025", "за I квартал", "Q1 2025", "2025-Q3", "первый квартал"."""
    return _part_of_year(m, today, 4)


_DATE = _rx(rf"{PREP}?(?P<p>{alternation(DATE_FORMS)})", F)


@matcher(_DATE)
def match_date(m: re.Match[str], today: date) -> Hit | None:
    """ "1 марта 2025", "01.03.2025", "March 1, 2025", "2025-03-01": one day."""
    point = parse_point(m["p"], DATE_FORMS)
    point = resolve_point(point, today) if point else None
    if point is None:
        return None
    notes: list[str] = []
    day = start_of(point, notes, is_ru(m.string))
    return _hit(m, day, day, notes) if day else None


_MONTH = _rx(rf"{PREP}?(?P<p>{alternation(MONTH_FORMS)})", F)
_MAY_CONTEXT = re.compile(
    r"(?:\b(?:in|for|during|since|from|to|until|till|through|between|of|and|by|before|after"
    r"|last|this|next|early|late|mid)|[-–—,(])\s*$",
    F,
)


_MAY_PRONOUN = re.compile(r"\s+(?:i|we|you|he|she|it|they)\b", F)


def _modal_may(text: str, m: re.Match[str]) -> bool:
    """Whether "may" is the verb: the month is "in May", "May 2025", "May–June", or a
    capitalised "May" not followed by a pronoun ("May revenue", but not "May I see")."""
    if m["p"].lower() != "may" or m.group(0) != m["p"]:
        return False
    after = text[m.end() :]
    if re.match(r"\s*[\d–—-]", after) or _MAY_CONTEXT.search(text[: m.start()]):
        return False
    return m["p"] != "May" or _MAY_PRONOUN.match(after) is not None


@matcher(_MONTH)
def match_month(m: re.Match[str], today: date) -> Hit | None:
    """ "в мае 2025", "за май", "мая", "May 2025", "05.2025", "2025-05": a whole month.

    Without a year, the latest such month that has started by today.
    """
    if _modal_may(m.string, m):
        return None
    point = parse_point(m["p"], MONTH_FORMS)
    point = resolve_point(point, today) if point else None
    if point is None:
        return None
    start, end = start_of(point, [], False), end_of(point, [], False)
    return _hit(m, start, end) if start and end else None


# After "в 2025"/"на 2000": not a year when a unit or a counted noun follows ("на 2000
# рублей", "в 2025 магазинах", "for 2000 USD").
_COUNTED = (
    r"(?!\s*(?:%|[$€₽]|руб|р\.|шт|тыс|млн|млрд|usd|rub|eur|k\b|m\b))"
    r"(?!\s+[а-яё]+(?:ах|ях|ами|ями|ов|ев|ей)\b)"
)
_YEARS = (
    _rx(
        r"\b(?:в|во|за|на|in|for|during|of|year)\s+(?:the\s+year\s+)?"
        rf"(?P<y>{YEAR})(?:{YEAR_WORD})?{_COUNTED}",
        F,
    ),
    _rx(rf"{PREP}?(?P<y>{YEAR}){YEAR_WORD}", F),
    Rx(rf"^\s*(?P<y>{YEAR})\s*[?.!]?\s*$", F),
)


@matcher(*_YEARS)
def match_year(m: re.Match[str], today: date) -> Hit | None:
    """ "в 2024 году", "за 2024 год", "in 2024", "2024 г.": a whole year.

    A bare four-digit number is a year only after a preposition or before "год"/"year",
    and only inside 1990..2100, so "топ 5" or "2000 клиентов" never become years.
    """
    year = int(m["y"])
    return _hit(m, date(year, 1, 1), date(year, 12, 31)) if year_ok(year) else None


_RANGE_YEAR = _rx(
    r"(?:before|after|prior\s+to|earlier\s+than|later\s+than|from|starting|until|till|through)"
    rf"\s+(?P<y>{YEAR})(?!\s*(?:[-–—]|\.\.|\d))\b",
    F,
)


@matcher(_RANGE_YEAR)
def match_range_year(m: re.Match[str], today: date) -> Hit | None:
    """ "before 2020", "from 1997 onwards": a bare year after an English range word is the
    year; the range word is read by open_ranges.widen (or left unexplained: "until 2024")."""
    year = int(m["y"])
    if not year_ok(year):
        return None
    start, end = date(year, 1, 1), date(year, 12, 31)
    ru, en = labels(start, end)
    period = Period(start=start, end=end, label_ru=ru, label_en=en, span=m["y"])
    return Hit(m.start("y"), m.end("y"), period)


# Most specific first; the order only breaks ties between hits of equal position and length.
MATCHERS: tuple[Matcher, ...] = (
    match_range,
    match_start_of,
    match_since,
    match_months_of_year,
    match_rolling,
    match_relative,
    match_day_word,
    match_half,
    match_quarter,
    match_date,
    match_month,
    match_year,
    match_range_year,
)
