"""The time grain a question asks for ("по месяцам", "weekly"), apart from its period.

"Выручка за 2024 год по месяцам" has the period 2024 and the grain month; the two are
independent, so they are found by separate functions.
"""

from __future__ import annotations

import re
from enum import StrEnum


class Grain(StrEnum):
    """A time bucket of a period column or of a question's breakdown."""

    DAY = "day"
    WEEK = "week"
    MONTH = "month"
    QUARTER = "quarter"
    YEAR = "year"


# a grain said as a breakdown (RU, EN): a breakdown's label, a brief's question, a redo's words
BREAKDOWN_WORDS: dict[str, tuple[str, str]] = {
    Grain.DAY: ("по дням", "by day"),
    Grain.WEEK: ("по неделям", "by week"),
    Grain.MONTH: ("по месяцам", "by month"),
    Grain.QUARTER: ("по кварталам", "by quarter"),
    Grain.YEAR: ("по годам", "by year"),
}

_F = re.IGNORECASE

# (grain, pattern); the earliest match in the text wins.
_GRAINS: tuple[tuple[Grain, str], ...] = (
    (
        Grain.DAY,
        r"по\s+дням(?!\s+недели)|подневн\w*|ежедневно|в\s+разрезе\s+дней|по\s+суткам"
        r"|\bdaily\b(?!\s+active)|\b(?:by|per|each|every)\s+day\b(?!\s+of\s+(?:the\s+)?week)|day[-\s]by[-\s]day",
    ),
    (
        Grain.WEEK,
        r"по\s+неделям|понедельно|понедельн(?:ая|ой|ую|ые|ых|ым)\b|еженедельно|в\s+разрезе\s+недель"
        r"|\bweekly\b(?!\s+active)|\b(?:by|per|each|every)\s+week\b|week[-\s](?:by|over)[-\s]week",
    ),
    (
        Grain.MONTH,
        r"по\s+месяцам|помесячн\w*|ежемесячно|в\s+разрезе\s+месяцев"
        r"|\bmonthly\b(?!\s+active)|\b(?:by|per|each|every)\s+month\b|month[-\s](?:by|over)[-\s]month",
    ),
    (
        Grain.QUARTER,
        r"по\s+кварталам|поквартальн\w*|ежеквартально|в\s+разрезе\s+кварталов"
        r"|\bquarterly\b|\b(?:by|per|each|every)\s+quarter\b|quarter[-\s](?:by|over)[-\s]quarter",
    ),
    (
        Grain.YEAR,
        r"по\s+годам|погодов\w*|ежегодно|в\s+разрезе\s+(?:лет|годов)"
        r"|\b(?:yearly|annually)\b|\b(?:by|per|each|every)\s+year\b|year[-\s]by[-\s]year",
    ),
)
_GRAIN_RE = re.compile("|".join(f"(?P<{grain.value}>{pattern})" for grain, pattern in _GRAINS), _F)


# the grain as the second of two breakdowns: "по каналам и месяцам", "by channel and month"
_SECOND = re.compile(
    r"(?:\bпо|\bby)\s+[\w-]+(?:\s+[\w-]+)?\s+(?P<words>(?:и|and)\s+(?:"
    r"(?P<day>дням(?!\s+недели)|days?\b(?!\s+of))|(?P<week>неделям|weeks?\b)|"
    r"(?P<month>месяцам|months?\b)|(?P<quarter>кварталам|quarters?\b)|(?P<year>годам|years?\b)))",
    _F,
)


def find_grain(text: str) -> tuple[Grain, tuple[int, int]] | None:
    """The grain asked for and where its words are in `text` (start, end offsets).

    >>> find_grain("платежи по каналам и месяцам в 2025 году")
    (<Grain.MONTH: 'month'>, (19, 28))
    """
    m = _GRAIN_RE.search(text)
    if m and m.lastgroup:
        return Grain(m.lastgroup), m.span()
    second = _SECOND.search(text)
    if second is None:
        return None
    grain = next(g for g in Grain if second.group(g.value))
    return grain, second.span("words")


def extract_grain(text: str) -> Grain | None:
    """The time grain asked for: "day", "week", "month", "quarter" or "year"; else None.

    ``Grain`` is a ``StrEnum``, so the result compares equal to the plain string.
    "по дням недели" and "monthly active users" name a dimension and a metric, not a grain.

    >>> extract_grain("Выручка за 2024 год помесячно")
    <Grain.MONTH: 'month'>
    >>> extract_grain("weekly orders in May") == "week"
    True
    >>> extract_grain("продажи по дням недели") is None
    True
    """
    found = find_grain(text)
    return found[0] if found else None
