"""Turn a follow-up ("а в декабре, по неделям?") into a standalone question.

The previous turn leaves a snapshot: its standalone question split into a core, a
period span and a grain phrase. A follow-up replaces the parts it names and keeps the
rest, so the rest of the pipeline only ever sees standalone questions.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from vitrina.ask.understand import Reading, read_question
from vitrina.catalog import Catalog
from vitrina.language.periods import extract_period

FOLLOW_UP_STARTS = (
    "а ",
    "и ",
    "а если",
    "а что",
    "а теперь",
    "теперь ",
    "тогда ",
    "and ",
    "what about",
    "how about",
    "and what",
    "now ",
    "same for",
    "то же",
    "тоже ",
)
_LEAD = re.compile(
    r"^\s*(?:"
    + "|".join(sorted((re.escape(s.strip()) for s in FOLLOW_UP_STARTS), key=len, reverse=True))
    + r")\b[\s,]*",
    re.IGNORECASE,
)
_YEAR = re.compile(r"\b(19|20)\d{2}\b")
_SPACES = re.compile(r"\s+")


def _clean(text: str) -> str:
    text = _SPACES.sub(" ", text.replace(" ,", ",")).strip(" ,?.!")
    return re.sub(r"(,\s*)+", ", ", text).strip(" ,")


def remove_span(text: str, span: str | None) -> str:
    if not span:
        return text
    idx = text.lower().find(span.lower())
    return text if idx < 0 else text[:idx] + " " + text[idx + len(span) :]


def snapshot(question: str, period_span: str | None, grain_span: str | None) -> dict[str, Any]:
    """What a later follow-up needs from this turn's standalone question."""
    core = _clean(remove_span(remove_span(question, period_span), grain_span))
    return {"core": core, "period_span": period_span, "grain_span": grain_span}


def is_follow_up(question: str, reading: Reading, has_history: bool) -> bool:
    """A follow-up starts with a linking word, or names no metric and no topic at all."""
    if not has_history:
        return False
    if _LEAD.match(question):
        return True
    return not reading.metrics and not reading.topic_scores and not reading.refuse


PREPOSITIONS = {"в", "во", "из", "по", "для", "на", "in", "for", "from", "at", "of", "on"}


def replace_values(core: str, reading: Reading, catalog: Catalog) -> str:
    """Drop from the previous question the values of the columns the follow-up names anew
    ("в Москве" -> "а в Санкт-Петербурге?" replaces the region, it does not add one)."""
    new_columns = {col for m in reading.values for col in m.alternatives or (m.phrase.target,)}
    if not new_columns:
        return core
    old = read_question(core, catalog)
    cuts = []
    for match in old.values:
        if new_columns & set(match.alternatives or (match.phrase.target,)):
            first = (
                match.start - 1
                if match.start > 0 and old.words[match.start - 1].text in PREPOSITIONS
                else match.start
            )
            cuts.append((old.words[first].start, old.words[match.start + match.length - 1].end))
    for start, end in sorted(cuts, reverse=True):
        core = core[:start] + " " + core[end:]
    return core


def replace_day_kind(core: str, reading: Reading, catalog: Catalog) -> str:
    """Drop the previous question's weekday/weekend words when the follow-up names its own
    ("по выходным" -> "а в будни?" replaces the calendar filter, it does not add one)."""
    if reading.day_kind is None:
        return core
    old = read_question(core, catalog)
    if old.day_kind_words is None:
        return core
    start, count = old.day_kind_words
    if start > 0 and old.words[start - 1].text in PREPOSITIONS:
        start, count = start - 1, count + 1
    return core[: old.words[start].start] + " " + core[old.words[start + count - 1].end :]


def rewrite(
    question: str, reading: Reading, prev: dict[str, Any], today: date, catalog: Catalog
) -> str:
    """Merge a follow-up with the previous turn's snapshot into one standalone question."""
    rest = _LEAD.sub("", question).strip(" ?!.")
    period = extract_period(rest, today)
    prev_span = prev.get("period_span")
    if period is not None and not _YEAR.search(period.span) and prev_span:
        year = _YEAR.search(prev_span)
        if year:
            rest = rest.replace(period.span, f"{period.span} {year.group(0)}", 1)
    if reading.grain_span:
        rest = remove_span(rest, reading.grain_span)
    grain_span = reading.grain_span or prev.get("grain_span")
    period_part = "" if period is not None else (prev_span or "")
    core = replace_day_kind(replace_values(prev["core"], reading, catalog), reading, catalog)
    if reading.metrics:
        # a new subject ("а карт?"): the follow-up's words replace the previous core
        core, rest = rest, ""
    parts = [_clean(p) for p in (core, rest, period_part, grain_span or "")]
    return _clean(" ".join(p for p in parts if p))
