"""Open ranges around a period: "до 2024 года", "before March 2025", "after 2023",
"после марта 2025", "from 1997 onwards", "2020 и позже".

A period phrase found by the matchers is widened by the range word next to it. "Since" and
"с" are read by the matchers themselves (up to today); this module adds the other ends:

* before / до / prior to / раньше X: everything before X starts (X itself excluded), with an
  open start (``OPEN_START``: the compiler writes no lower bound);
* after / после / later than X: from the day after X ends up to today;
* [from] X onwards / X and later / X и позже / X и далее: from X's start up to today.

"до" or "until" next to a single day is not read ("до 15 марта" may or may not include the
15th): the word stays unexplained and the question is not answered, never guessed.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from vitrina.language.periods.calendar import labels
from vitrina.language.periods.model import OPEN_START, Period

_BEFORE = re.compile(
    r"(?:^|(?<=\W))(?:до|раньше|ранее|before|prior\s+to|earlier\s+than)\s+$", re.IGNORECASE
)
_AFTER = re.compile(r"(?:^|(?<=\W))(?:после|позже|after|later\s+than)\s+$", re.IGNORECASE)
_FROM = re.compile(r"(?:^|(?<=\W))(?:from|starting(?:\s+from|\s+in)?)\s+$", re.IGNORECASE)
_ONWARDS = re.compile(
    r"^\s*(?:onwards?|and\s+later|and\s+after|or\s+later|и\s+позже|и\s+далее)\b", re.IGNORECASE
)
_PREPOSITION = re.compile(r"^(?:за|в|во|in|for|during)\s+", re.IGNORECASE)


def widen(text: str, period: Period, today: date) -> Period:
    """The period as the range words around it say; unchanged when none are there."""
    at = text.lower().replace("ё", "е").find(period.span.lower().replace("ё", "е"))
    if at < 0:
        return period
    before, after = text[:at], text[at + len(period.span) :]
    onwards = _ONWARDS.match(after)
    if onwards and period.end < today:
        lead = _FROM.search(before)
        start_at = lead.start() if lead else at
        span = text[start_at : at + len(period.span) + onwards.end()].strip()
        return _since(period, period.start, today, span)
    if _PREPOSITION.match(period.span) or period.days == 1 or period.end >= today:
        return period  # "в 2024 году", "до 15 марта" (a day), a period not over: as it is
    found = _BEFORE.search(before)
    if found:
        ru, en = (
            f"до {period.start:%d.%m.%Y}",
            f"before {period.start.isoformat()}",
        )
        return Period(
            start=OPEN_START,
            end=period.start - timedelta(days=1),
            label_ru=ru,
            label_en=en,
            span=text[found.start() : at + len(period.span)].strip(),
            corrected=period.corrected,
        )
    found = _AFTER.search(before)
    if found:
        span = text[found.start() : at + len(period.span)].strip()
        return _since(period, period.end + timedelta(days=1), today, span)
    return period


def _since(period: Period, start: date, today: date, span: str) -> Period:
    if start > today:
        return period
    ru, en = labels(start, today)
    return Period(
        start=start, end=today, label_ru=ru, label_en=en, span=span, corrected=period.corrected
    )
