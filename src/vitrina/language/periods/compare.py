"""Period comparisons: "в сравнении с прошлым годом", "к прошлому месяцу", "YoY", "QoQ".

A comparison phrase names the offset from the asked period to the period it is compared
with, not a period of its own: "выручка за III квартал 2026 в сравнении с прошлым годом"
compares with III квартал 2025 (a year back), "... к прошлому кварталу" with II квартал
2026. `find_comparison` reads the unit, `previous_period` shifts the asked dates.

Conventions (tests/data/comparisons.yaml pins them):

* The unit is the one the words name: year, quarter, month, week, day. "С предыдущим
  периодом", "period over period" name the asked period's own length ("period").
* "АППГ", "тот же период прошлого года", "same period last year" are a year back.
* Shifts keep whole months whole: a month's last day stays the last day (29.02.2024 a
  year back is 28.02.2023; 30.04 a month forward from March is 31.03 -> 30.04).
* "MoM", "WoW", "PoP", "DoD" count only written with capitals (MoM, MOM, ...): "mom",
  "wow" and "pop" are words too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal

from vitrina.language.periods.calendar import add_months, last_day, month_end

Unit = Literal["year", "quarter", "month", "week", "day", "period"]
F = re.IGNORECASE

_PREV_RU = r"(?:прошл|предыдущ|предшествующ)\w{1,3}"
_INSTR = (
    r"(?P<unit>годом|кварталом|месяцем|неделей|неделею|днём|днем|периодом)"  # "с прошлым годом"
)
_DAT = r"(?P<unit>году|кварталу|месяцу|неделе|дню|периоду)"  # "к прошлому году"
_GEN = r"(?P<unit>года|квартала|месяца|недели|дня|периода)"  # "против прошлого года"
_PREV_EN = r"(?:the\s+)?(?:last|previous|prior|preceding)"
_UNIT_EN = r"(?P<unit>years?|quarters?|months?|weeks?|days?|periods?)"

_MONTH_RU = (
    r"(?:январ|феврал|март|апрел|ма[йяюеё]|июн|июл|август|сентябр|октябр|ноябр|декабр|"
    r"(?:i{1,3}|iv|[1-4](?:-?м)?)\s+квартал|месяц|квартал)"
)
_MONTH_EN = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december|q[1-4]|month|quarter)"
)
# "с прошлого года" (genitive) is "since last year", a period: only the instrumental compares.
PATTERNS: tuple[tuple[re.Pattern[str], Unit | None], ...] = (
    # "аналогичный период прошлого года", "тот же период прошлого года", "АППГ"
    (
        re.compile(
            r"(?:(?:с|к|против|относительно)\s+)?(?:аналогичн\w*|т(?:ем|ого|от|ому|у)\s+же)\s+период\w*\s+"
            rf"{_PREV_RU}\s+года",
            F,
        ),
        "year",
    ),
    (re.compile(r"(?<!\w)(?:(?:к|с|против)\s+)?аппг(?!\w)", F), "year"),
    # "за ноябрь 2026 с ноябрём прошлого года", "к маю прошлого года", "vs November last year":
    # the same month (or quarter) a year back
    (
        re.compile(
            # "с" takes the instrumental ("с ноябрём"): "с ноября прошлого года" is "since"
            r"(?:(?:в|по)\s+сравнени[июе]\s+)?"
            rf"(?<!\w)(?:(?:с|со)\s+(?:тем\s+же\s+)?{_MONTH_RU}\w*м|(?:к|против|относительно)"
            rf"\s+(?:тому\s+же\s+|того\s+же\s+)?{_MONTH_RU}\w*)\s+{_PREV_RU}\s+года(?!\w)",
            F,
        ),
        "year",
    ),
    (
        re.compile(
            rf"(?<!\w)(?:with|to|against|vs\.?|versus)\s+(?:the\s+same\s+)?{_MONTH_EN}\s+"
            r"(?:of\s+)?(?:last|the\s+previous|the\s+prior|previous|prior)\s+year(?!\w)",
            F,
        ),
        "year",
    ),
    (
        re.compile(
            r"(?<!\w)(?:с|со|к|против|относительно)\s+прошлогодн\w*"
            r"(?:\s+(?:значени|данн|показател|уровн|период)\w*)?",
            F,
        ),
        "year",
    ),
    (
        re.compile(
            r"(?:the\s+)?same\s+period\s+(?:of\s+)?(?:last|a|the\s+previous|the\s+prior|previous|prior)\s+"
            r"year(?:\s+(?:ago|earlier|before))?",
            F,
        ),
        "year",
    ),
    # "в сравнении с прошлым годом", "по сравнению с предыдущим кварталом", "с прошлым месяцем"
    (
        re.compile(
            rf"(?:(?:в|по)\s+сравнени[июе]\s+)?(?<!\w)(?:с|со)\s+{_PREV_RU}\s+{_INSTR}(?!\w)", F
        ),
        None,
    ),
    (
        re.compile(rf"(?:(?:в|по)\s+сравнени[июе]\s+)?(?<!\w)(?:с|со)\s+{_INSTR}\s+ранее(?!\w)", F),
        None,
    ),
    # "к прошлому месяцу", "против прошлого года", "относительно предыдущей недели"
    (re.compile(rf"(?<!\w)к\s+{_PREV_RU}\s+{_DAT}(?!\w)", F), None),
    (
        re.compile(rf"(?<!\w)(?:против|относительно|vs\.?|versus)\s+{_PREV_RU}\s+{_GEN}(?!\w)", F),
        None,
    ),
    # "год к году", "квартал к кварталу", "месяц к месяцу", "неделя к неделе", "г/г", "м/м"
    (
        re.compile(
            r"(?<!\w)(?P<unit>год|квартал|месяц|недел[яюи])\s+к\s+(?:году|кварталу|месяцу|неделе)(?!\w)",
            F,
        ),
        None,
    ),
    (re.compile(r"(?<!\w)(?P<unit>г|кв|м|н)\s?/\s?(?:г|кв|м|н)(?!\w)", F), None),
    # "compared to last year", "vs the previous quarter", "against last month", "over last year"
    (
        re.compile(
            r"(?:compared\s+(?:to|with)|in\s+comparison\s+(?:to|with)|relative\s+to|against|versus|vs\.?|"
            rf"over|than|with)\s+{_PREV_EN}\s+{_UNIT_EN}(?![\w'’])",
            F,
        ),
        None,
    ),
    (
        re.compile(
            r"(?:compared\s+(?:to|with)|relative\s+to|against|versus|vs\.?|than)\s+(?:a|one)\s+"
            r"(?P<unit>year|quarter|month|week|day)\s+(?:ago|earlier|before)(?!\w)",
            F,
        ),
        None,
    ),
    (re.compile(r"(?<!\w)vs\.?\s+(?P<unit>ly|py)(?!\w)", F), "year"),
    # "year over year", "year-on-year", "month over month", "period over period"
    (
        re.compile(
            r"(?<!\w)(?P<unit>year|quarter|month|week|day|period)[\s-]+(?:over|on)[\s-]+"
            r"(?:the\s+)?(?:previous\s+)?(?:year|quarter|month|week|day|period)(?!\w)",
            F,
        ),
        None,
    ),
    (re.compile(r"(?<!\w)(?P<unit>yoy|qoq|y/y|q/q|m/m|w/w)(?!\w)", F), None),
    (re.compile(r"(?<!\w)(?P<unit>MoM|MOM|WoW|WOW|PoP|POP|DoD|DOD)(?!\w)"), None),
)

_UNIT_WORDS: tuple[tuple[str, Unit], ...] = (
    ("год", "year"),
    ("г", "year"),
    ("year", "year"),
    ("yoy", "year"),
    ("y/y", "year"),
    ("ly", "year"),
    ("py", "year"),
    ("квартал", "quarter"),
    ("кв", "quarter"),
    ("quarter", "quarter"),
    ("qoq", "quarter"),
    ("q/q", "quarter"),
    ("месяц", "month"),
    ("м", "month"),
    ("month", "month"),
    ("mom", "month"),
    ("m/m", "month"),
    ("недел", "week"),
    ("н", "week"),
    ("week", "week"),
    ("wow", "week"),
    ("w/w", "week"),
    ("дн", "day"),
    ("день", "day"),
    ("day", "day"),
    ("dod", "day"),
    ("период", "period"),
    ("period", "period"),
    ("pop", "period"),
)


@dataclass(frozen=True)
class Comparison:
    """What a question compares the asked period with: `unit` back, and where the words are."""

    unit: Unit
    span: str  # the exact substring of the question
    start: int
    end: int


def _unit_of(word: str) -> Unit:
    w = word.lower()
    exact = dict(_UNIT_WORDS)
    if w in exact:
        return exact[w]
    return next(u for prefix, u in _UNIT_WORDS if len(prefix) >= 2 and w.startswith(prefix))


def find_comparison(text: str) -> Comparison | None:
    """The comparison a question asks for, or None; the leftmost phrase wins.

    >>> find_comparison("Выручка за III квартал 2026 в сравнении с прошлым годом").unit
    'year'
    >>> find_comparison("cards issued in May 2025 vs the previous month").unit
    'month'
    >>> find_comparison("Revenue QoQ by region").span
    'QoQ'
    >>> find_comparison("выручка за май") is None
    True
    """
    best: Comparison | None = None
    for pattern, fixed in PATTERNS:
        m = pattern.search(text)
        if m is None:
            continue
        unit = fixed or _unit_of(m.group("unit"))
        found = Comparison(unit=unit, span=m.group(0), start=m.start(), end=m.end())
        if best is None or (found.start, -len(found.span)) < (best.start, -len(best.span)):
            best = found
    return best


def strip_comparison(text: str, comparison: Comparison) -> str:
    """The question without the comparison's words (the period reader sees the asked one only).

    >>> text = "Выручка за май 2025 к прошлому году"
    >>> strip_comparison(text, find_comparison(text))
    'Выручка за май 2025'
    """
    out = f"{text[: comparison.start]} {text[comparison.end :]}"
    return re.sub(r"\s{2,}", " ", out).strip(" ,;")


def _whole_months(start: date, end: date) -> bool:
    return start.day == 1 and end.day == last_day(end.year, end.month)


def _shift_months(start: date, end: date, months: int) -> tuple[date, date]:
    new_start = add_months(start, months)
    if end.day == last_day(end.year, end.month):
        shifted = add_months(end.replace(day=1), months)
        return new_start, month_end(shifted.year, shifted.month)
    return new_start, add_months(end, months)


def own_unit(start: date, end: date) -> Unit:
    """The calendar unit a period is exactly one of ("period" when it is none of them)."""
    if start == end:
        return "day"
    if _whole_months(start, end):
        months = (end.year - start.year) * 12 + end.month - start.month + 1
        if months == 12 and start.month == 1:
            return "year"
        if months == 3 and start.month % 3 == 1:
            return "quarter"
        if months == 1:
            return "month"
    if (end - start).days == 6 and start.weekday() == 0:
        return "week"
    return "period"


def previous_period(start: date, end: date, unit: Unit) -> tuple[date, date]:
    """The asked period moved back by one `unit` ("period": by its own length).

    >>> previous_period(date(2026, 7, 1), date(2026, 9, 30), "year")
    (datetime.date(2025, 7, 1), datetime.date(2025, 9, 30))
    >>> previous_period(date(2026, 7, 1), date(2026, 9, 30), "quarter")
    (datetime.date(2026, 4, 1), datetime.date(2026, 6, 30))
    >>> previous_period(date(2024, 2, 1), date(2024, 2, 29), "year")
    (datetime.date(2023, 2, 1), datetime.date(2023, 2, 28))
    >>> previous_period(date(2025, 3, 1), date(2025, 3, 10), "period")
    (datetime.date(2025, 2, 19), datetime.date(2025, 2, 28))
    """
    if unit == "period":
        if _whole_months(start, end):
            months = (end.year - start.year) * 12 + end.month - start.month + 1
            return _shift_months(start, end, -months)
        days = (end - start).days + 1
        return start - timedelta(days=days), end - timedelta(days=days)
    if unit in ("year", "quarter", "month"):
        return _shift_months(start, end, -{"year": 12, "quarter": 3, "month": 1}[unit])
    days = 7 if unit == "week" else 1
    return start - timedelta(days=days), end - timedelta(days=days)


__all__ = [
    "Comparison",
    "Unit",
    "find_comparison",
    "own_unit",
    "previous_period",
    "strip_comparison",
]
