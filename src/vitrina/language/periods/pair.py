"""Two periods in one question: the one reading ask, route's report planner and task share.

A question compares two periods in one of two ways:

* an offset ("за 2025 год к прошлому году", "revenue YoY in 2025"): the asked period and the
  one `compare.previous_period` moves it back to;
* two periods named ("сравни выручку за 2024 и 2025 годы", "X в 2025 году по сравнению с
  2024", "revenue 2025 vs 2024"): the later one is the current, the earlier the previous.

`read_two_periods` returns both periods and the question with one period left and the
comparison's words gone, so the metric reader sees a plain one-period question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from vitrina.language.periods import Period, extract_period
from vitrina.language.periods.calendar import labels
from vitrina.language.periods.compare import find_comparison, previous_period, strip_comparison

# the words that join the second period to the first ("и 2025", "compared with 2024", "vs")
LINK = re.compile(
    r"\s*,?\s*(?:(?:в|по)\s+сравнени[июе]\s+со?|против|относительно|и|vs\.?|versus|against|"
    r"compared\s+(?:to|with)|and|с|со|к|with|to)\s+",
    re.IGNORECASE,
)
# the verb that asks for the comparison: not a word the metric reader has to explain
LEAD = re.compile(r"^\s*(?:сравни(?:те)?|сопоставь(?:те)?|compare)\s+", re.IGNORECASE)
CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
YEAR_NOUN = r"(?:\s+(?:годы|годах|годов|годам|годом|году|года|год|гг\.?|г\.?|years?))?"
# a bare year after the link ("по сравнению с 2024", "and 1997 years")
BARE_YEAR = re.compile(rf"(?P<y>(?:19|20)\d\d)(?![\w.]){YEAR_NOUN}(?!\w)", re.IGNORECASE)
# "2025 vs 2024", "2024 и 2025": two bare years (a bare year alone is no period)
BARE_YEARS = re.compile(
    r"(?<![\w.])(?:(?:в|за|in|for)\s+)?(?P<a>(?:19|20)\d\d)\s*(?:vs\.?|versus|против|и|and|/)\s*"
    rf"(?P<b>(?:19|20)\d\d)(?![\w.]){YEAR_NOUN}(?!\w)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class TwoPeriods:
    """The two periods a question compares, the later first."""

    current: Period
    previous: Period
    question: str  # one period left, the comparison's words gone
    words: str  # the words that asked for the comparison (for the trace and the answer)
    span: str = ""  # the words of the question that name the periods (a follow-up keeps them)


def _tidy(text: str) -> str:
    return re.sub(r"\s{2,}", " ", LEAD.sub("", text)).strip(" ,.;")


def _shifted(period: Period, unit: str) -> Period:
    start, end = previous_period(period.start, period.end, unit)  # type: ignore[arg-type]
    ru, en = labels(start, end)
    return Period(start=start, end=end, label_ru=ru, label_en=en, span="")


def _by_offset(question: str, today: date) -> TwoPeriods | None:
    found = find_comparison(question)
    if found is None:
        return None
    stripped = strip_comparison(question, found)
    asked = extract_period(stripped, today)
    if asked is None or asked.open_start:
        return None
    return TwoPeriods(
        asked, _shifted(asked, found.unit), _tidy(stripped), found.span, span=asked.span
    )


def _year(text: str, today: date) -> Period | None:
    return extract_period(f"в {text} году", today)


def _year_words(year: int, question: str) -> str:
    """A year's words in the question's language, so the period reader reads it."""
    return f"в {year} году" if CYRILLIC.search(question) else f"in {year}"


def _bare_years(question: str, today: date) -> TwoPeriods | None:
    m = BARE_YEARS.search(question)
    if m is None:
        return None
    a, b = _year(m["a"], today), _year(m["b"], today)
    if a is None or b is None or a.start == b.start:
        return None
    later, earlier = (a, b) if a.start > b.start else (b, a)
    words = _year_words(later.start.year, question)
    kept = f"{question[: m.start()]} {words} {question[m.end() :]}"
    later = later.model_copy(update={"span": words})
    return TwoPeriods(later, earlier, _tidy(kept), m.group(0), span=m.group(0))


def _second_after(after: str, today: date) -> tuple[Period, int] | None:
    """The period named right after a link word, and where its words end in `after`."""
    link = LINK.match(after)
    if link is None:
        return None
    rest = after[link.end() :]
    year = BARE_YEAR.match(rest)
    if year is not None:
        found = _year(year["y"], today)
        return (found, link.end() + year.end()) if found else None
    found = extract_period(rest, today)
    if found is None or not found.span or not rest.startswith(found.span):
        return None
    return found, link.end() + len(found.span)


def _named_pair(question: str, today: date) -> TwoPeriods | None:
    first = extract_period(question, today)
    if first is None or not first.span or first.open_start or first.span not in question:
        return None
    at = question.find(first.span)
    after = question[at + len(first.span) :]
    found = _second_after(after, today)
    if found is None:
        return None
    second, end = found
    if (second.start, second.end) == (first.start, first.end):
        return None
    if bool(YEAR.search(first.span)) != bool(YEAR.search(after[:end])):
        return None  # "за январь и февраль 2025": one year for both, not read here
    later, earlier = (first, second) if first.start > second.start else (second, first)
    span = later.span if later is first else second.span or _year_words(later.start.year, question)
    kept = f"{question[:at]} {span} {after[end:]}"
    words = question[at : at + len(first.span) + end].strip()
    return TwoPeriods(
        later.model_copy(update={"span": span}), earlier, _tidy(kept), words, span=words
    )


def read_two_periods(question: str, today: date) -> TwoPeriods | None:
    """The two periods a question compares, or None when it names one period or none.

    >>> two = read_two_periods("сравни выручку за 2024 и 2025 годы", date(2026, 1, 1))
    >>> (two.current.start.year, two.previous.start.year, two.question)
    (2025, 2024, 'выручку в 2025 году')
    >>> two = read_two_periods("revenue 2025 vs 2024", date(2026, 1, 1))
    >>> (two.current.start.year, two.previous.start.year, two.question)
    (2025, 2024, 'revenue in 2025')
    >>> read_two_periods("выручка за 2025 год к прошлому году", date(2026, 1, 1)).previous.label_ru
    '2024 год'
    >>> read_two_periods("выручка за 2025 год", date(2026, 1, 1)) is None
    True
    """
    two = _by_offset(question, today) or _bare_years(question, today)
    two = two or _named_pair(question, today)
    single = None if two is None else extract_period(question, today)
    if single is not None and single.start <= two.previous.start and two.current.end <= single.end:
        return None  # "between 2023 and 2025", "с 2024 по 2025": one range, not two periods
    return two


__all__ = ["TwoPeriods", "read_two_periods"]
