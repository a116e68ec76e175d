"""Period normalisation by rules: the time phrase of a question -> exact dates.

Rules first, no LLM (DESIGN principle 1): a question's period ("в мае", "за I квартал
2025", "last 30 days") becomes an inclusive ``Period`` with labels in both languages,
and its grain ("по месяцам", "weekly") is found separately by ``extract_grain``.

Conventions (each one a decision; the table in tests/data/periods.yaml pins them):

* ``today`` is always passed in; nothing here reads the clock.
* A month, quarter, half, date or range named without a year is the latest one that
  has started by ``today`` (in May 2025 "июнь" is June 2024, "май" is May 2025).
* Calendar periods are whole: "этот месяц" ends on the month's last day, not today.
  Only "to date" phrases end today: "с начала года", YTD, MTD, "с марта", "по сегодня".
* "последние N дней/недель/месяцев", "last N days", "за последнюю неделю", "past month"
  are rolling windows ending today inclusive (30 days = today and the 29 before).
* "прошлая неделя"/"last week" is the previous ISO week, Monday to Sunday; "last
  month"/"прошлый месяц" the previous calendar month ("last" without a number).
* An impossible day is clamped to the month's end with a note in ``corrected``
  ("30 февраля 2025" -> 28.02.2025); a day above 31 or a month above 12 is no date.
* A range whose end is before its start is returned with its ends swapped and a note
  in ``corrected``, never swapped silently and never dropped.
* Several periods in one question: the leftmost wins (the longest phrase at that
  place), so comparisons named later ("... по сравнению с прошлым годом") are ignored.
* Numeric dates are day.month.year ("01.03.2025") or ISO ("2025-03-01"); slashes are
  not read, as 03/01 means different days to different readers.
"""

from __future__ import annotations

import re
from datetime import date

from vitrina.language.periods.grain import extract_grain
from vitrina.language.periods.matchers import MATCHERS, Hit
from vitrina.language.periods.model import OPEN_START, Period
from vitrina.language.periods.open_ranges import widen

__all__ = [
    "OPEN_START",
    "Period",
    "extract_grain",
    "extract_period",
    "period_offsets",
    "strip_period",
]


def extract_period(text: str, today: date) -> Period | None:
    """The period a question asks about, or None when it names none.

    >>> p = extract_period("Выручка за май 2025 по регионам", date(2025, 6, 10))
    >>> p.start, p.end, p.label_ru, p.label_en, p.span
    (datetime.date(2025, 5, 1), datetime.date(2025, 5, 31), 'май 2025', 'May 2025', 'за май 2025')
    >>> extract_period("last week", date(2025, 5, 15)).label_ru
    '05.05.2025–11.05.2025'
    >>> extract_period("top 5 merchants by revenue", date(2025, 5, 15)) is None
    True
    """
    best: tuple[int, int, int, Hit] | None = None
    for order, matcher in enumerate(MATCHERS):
        hit = matcher(text, today)
        if hit is None:
            continue
        key = (hit.start, hit.start - hit.end, order, hit)
        if best is None or key[:3] < best[:3]:
            best = key
    return widen(text, best[3].period, today) if best else None


_SPACES = re.compile(r"[ \t\u00a0]{2,}")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([?!.,;:])")


def strip_period(text: str, period: Period) -> str:
    """The question without the period's words, for rewriting follow-ups.

    >>> strip_period("Выручка за май 2025 по регионам?", Period(
    ...     start=date(2025, 5, 1), end=date(2025, 5, 31), label_ru="май 2025",
    ...     label_en="May 2025", span="за май 2025"))
    'Выручка по регионам?'
    """
    if not period.span or period.span not in text:
        return text
    stripped = text.replace(period.span, " ", 1)
    stripped = _SPACE_BEFORE_PUNCT.sub(r"\1", _SPACES.sub(" ", stripped))
    return stripped.strip(" \t,")


def period_offsets(text: str, span: str | None) -> tuple[int, int] | None:
    """Where a period's words are in `text` (start, end), so word readers can skip them.

    >>> period_offsets("Выручка за Май 2025", "за май 2025"), period_offsets("Выручка", "за май")
    ((8, 19), None)
    """
    if not span:
        return None
    idx = text.lower().replace("ё", "е").find(span.lower().replace("ё", "е"))
    return None if idx < 0 else (idx, idx + len(span))
