"""Turn a follow-up ("а в декабре, по неделям?") into a standalone question.

The previous turn leaves a snapshot: its standalone question split into a core, a
period span and a grain phrase. A follow-up replaces the parts it names and keeps the
rest, so the rest of the pipeline only ever sees standalone questions. The parts are read
the way people mean them (decision 153): a new breakdown, metric, period or value of the
same column *replaces* the old one; a breakdown is *added* only when the user says so
("ещё", "также", "и по", "also", "too"); a message that reads as a whole question is not
glued at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from vitrina.catalog import Catalog
from vitrina.language.periods import extract_period, period_offsets
from vitrina.language.stopwords import QUESTION_STOPWORDS
from vitrina.language.text import phrase_stems, stem_matches, tokenize
from vitrina.query.understand import TOP_N, Reading, read_question, unexplained_words

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
_TOP_N = re.compile(TOP_N.pattern, re.IGNORECASE)
_SPACES = re.compile(r"\s+")
# words that ask to *add* a breakdown to the previous one instead of replacing it
_ALSO = re.compile(
    r"(?<![\w-])(?:ещ[её]|также|тоже|вдобавок|дополнительно|also|too|additionally|as well)"
    r"(?![\w-])",
    re.IGNORECASE,
)
_AND_BY = re.compile(r"^\s*(?:а\s+)?и\s+(?:ещ[её]\s+)?по(?![\w-])", re.IGNORECASE)
# the first words of a question that reads by itself ("а сколько карт выпустили в мае 2025?")
QUESTION_OPENERS = frozenset(
    {
        "сколько",
        "какой",
        "какая",
        "какое",
        "какие",
        "каков",
        "какова",
        "каково",
        "каковы",
        "покажи",
        "покажите",
        "посчитай",
        "посчитайте",
        "выведи",
        "how",
        "what",
        "which",
        "show",
        "list",
        "give",
    }
)

PREPOSITIONS = {"в", "во", "из", "по", "для", "на", "in", "for", "from", "at", "of", "on"}
# the words that lead into a breakdown: "по регионам и каналам", "by region and channel"
BREAKDOWN_LEADS = {"по", "by", "и", "and", "разрезе", "в", "per"}

# why a follow-up-shaped message has nothing to continue (the previous turn gave no answer)
NOTHING_TO_CONTINUE = {
    "ru": "Предыдущий вопрос остался без ответа, поэтому продолжать нечего.",
    "en": "The previous question got no answer, so there is nothing to continue.",
}
ANSWERED_ON_ITS_OWN = {
    "ru": " Отвечаю на «{question}» как на отдельный вопрос.",
    "en": " Answering “{question}” as a question on its own.",
}
ASK_IN_FULL = {
    "ru": " Задайте вопрос целиком, назвав показатель (например, «{example}»).",
    "en": " Ask the whole question, naming a metric (for example “{example}”).",
}


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


def strip_lead(question: str) -> str:
    """The follow-up without its linking word ("а по каналам?" -> "по каналам")."""
    return _LEAD.sub("", question).strip(" ?!.")


def is_follow_up(question: str, reading: Reading, has_history: bool) -> bool:
    """A follow-up starts with a linking word, or names no metric and no topic at all."""
    if not has_history:
        return False
    if _LEAD.match(question):
        return True
    return not reading.metrics and not reading.topic_scores and not reading.refuse


def reads_alone(question: str, catalog: Catalog, today: date) -> bool:
    """A message after a linking word that is a whole question by itself: it names a metric
    and a period, every word is read, and it opens like a question ("а сколько кошельков
    открыли в мае 2025?"). "а карт?" or "а карт в июне?" stay follow-ups."""
    rest = strip_lead(question)
    words = tokenize(rest)
    if not words or words[0].text not in QUESTION_OPENERS:
        return False
    period = extract_period(rest, today)
    if period is None:
        return False
    reading = read_question(rest, catalog, period_span=period_offsets(rest, period.span))
    if not reading.metrics or reading.refuse:
        return False
    # the metric's own words ("выпустили" of "выпущено карт") restate it
    names: list[str] = []
    for match in reading.metrics:
        metric = catalog.metrics[match.phrase.target]
        names += [metric.name_ru, metric.name_en, *metric.synonyms]
        topic = catalog.topics.get(metric.topic or "")
        names += [topic.name_ru, topic.name_en, *topic.keywords] if topic else []
    vocabulary = frozenset(w for name in names for w in phrase_stems(name))
    return not unexplained_words(reading, vocabulary)


def adds_breakdown(question: str) -> bool:
    """ "ещё по каналам", "и по каналам", "also by channel": add, do not replace."""
    return bool(_ALSO.search(question) or _AND_BY.match(question))


def _cut(core: str, spans: list[tuple[int, int]]) -> str:
    """Remove the given (start, end) character spans of `core`."""
    for start, end in sorted(spans, reverse=True):
        core = core[:start] + " " + core[end:]
    return core


def _span(reading: Reading, start: int, length: int, leads: set[str]) -> tuple[int, int]:
    """Character span of words start..start+length, with up to two leading `leads` words."""
    first = start
    while first > 0 and start - first < 2 and reading.words[first - 1].text in leads:
        first -= 1
    return reading.words[first].start, reading.words[start + length - 1].end


def replace_values(core: str, reading: Reading, catalog: Catalog) -> str:
    """Drop from the previous question the values of the columns the follow-up names anew
    ("в Москве" -> "а в Санкт-Петербурге?" replaces the region, it does not add one)."""
    new_columns = {col for m in reading.values for col in m.alternatives or (m.phrase.target,)}
    if not new_columns:
        return core
    old = read_question(core, catalog)
    return _cut(
        core,
        [
            _span(old, m.start, m.length, PREPOSITIONS)
            for m in old.values
            if new_columns & set(m.alternatives or (m.phrase.target,))
        ],
    )


def replace_day_kind(core: str, reading: Reading, catalog: Catalog) -> str:
    """Drop the previous question's weekday/weekend words when the follow-up names its own
    ("по выходным" -> "а в будни?" replaces the calendar filter, it does not add one)."""
    if reading.day_kind is None:
        return core
    old = read_question(core, catalog)
    if old.day_kind_words is None:
        return core
    start, count = old.day_kind_words
    return _cut(core, [_span(old, start, count, PREPOSITIONS)])


def drop_breakdowns(core: str, catalog: Catalog) -> str:
    """The previous question without its breakdowns ("по регионам" of "Сумма платежей по
    регионам"): a new breakdown replaces them."""
    old = read_question(core, catalog)
    return _cut(core, [_span(old, m.start, m.length, BREAKDOWN_LEADS) for m in old.dimensions])


def kept_parts(core: str, catalog: Catalog) -> str:
    """What of the previous question outlives a new metric: its breakdowns, filter values
    and weekday/weekend words ("по регионам", "в Москве"), in their order."""
    old = read_question(core, catalog)
    spans = [_span(old, m.start, m.length, BREAKDOWN_LEADS) for m in old.dimensions]
    spans += [_span(old, m.start, m.length, PREPOSITIONS) for m in old.values]
    if old.day_kind_words is not None:
        spans.append(_span(old, *old.day_kind_words, PREPOSITIONS))
    return " ".join(core[s:e] for s, e in sorted(set(spans)))


def metric_from_part(rest: str, core: str, catalog: Catalog, lang: str) -> str | None:
    """A metric named by part of its name ("а количество?", "and the count?"): the one metric
    of the previous question's table (else topic) whose name or synonym holds every word the
    rules left unread. `rest` with that part replaced by the metric's name, or None when no
    single metric holds them."""
    reading = read_question(rest, catalog)
    old = read_question(core, catalog)
    previous = catalog.metrics.get(old.metrics[0].phrase.target) if old.metrics else None
    if previous is None:
        return None
    unread = [i for i in range(len(reading.words)) if i not in reading.used]

    def stems_of(metric_id: str) -> list[tuple[str, ...]]:
        metric = catalog.metrics[metric_id]
        return [phrase_stems(s) for s in {metric.name_ru, metric.name_en, *metric.synonyms}]

    def named(i: int, stems: tuple[str, ...]) -> bool:
        return any(stem_matches(s, reading.words[i].text) for s in stems)

    def part(metric_id: str) -> set[int] | None:
        """The unread words this metric's name holds, when it holds every content one."""
        for stems in stems_of(metric_id):
            held = {i for i in unread if named(i, stems)}
            content = {i for i in unread if reading.words[i].text not in QUESTION_STOPWORDS}
            if held and content <= held:
                return held
        return None

    found = {m: p for m in catalog.metrics if m != previous.id and (p := part(m)) is not None}
    for scope in (
        [m for m in found if catalog.metrics[m].table == previous.table],
        [m for m in found if catalog.metrics[m].topic == previous.topic],
    ):
        if len(scope) > 1:
            return None  # several metrics hold the words: the rules do not guess
        if scope:
            drop = found[scope[0]] | {
                i for i in unread if reading.words[i].text in QUESTION_STOPWORDS
            }
            kept = " ".join(w.original for i, w in enumerate(reading.words) if i not in drop)
            return f"{catalog.metrics[scope[0]].name(lang)} {kept}"
    return None


def _metric_words(core: str, catalog: Catalog) -> str:
    """The words that named the previous question's metrics ("Сумма платежей")."""
    old = read_question(core, catalog)
    return " ".join(
        core[s:e] for s, e in (_span(old, m.start, m.length, set()) for m in old.metrics)
    )


@dataclass
class Rewrite:
    """The standalone question and the rules that made it (for the decision trace)."""

    question: str
    rules: list[dict[str, Any]] = field(default_factory=list)


def replace_top(core: str, rest: str) -> tuple[str, str, dict[str, Any] | None]:
    """A new top N ("а топ 3?", "and top 3?") replaces the previous question's top N, like
    any other new value (decision 153); without one in the core nothing changes."""
    new, old = _TOP_N.search(rest), _TOP_N.search(core)
    if new is None or old is None:
        return core, rest, None
    core = core[: old.start()] + new.group(0) + core[old.end() :]
    rest = _clean(rest[: new.start()] + " " + rest[new.end() :])
    return core, rest, {"rule": "replaced", "part": "top", "old": old.group(0), "new": new.group(0)}


def rewrite(
    question: str,
    reading: Reading,
    prev: dict[str, Any],
    today: date,
    catalog: Catalog,
    lang: str = "ru",
) -> Rewrite:
    """Merge a follow-up with the previous turn's snapshot into one standalone question."""
    rules: list[dict[str, Any]] = []
    adding = adds_breakdown(question)
    rest = _clean(_ALSO.sub(" ", strip_lead(question)))
    period = extract_period(rest, today)
    prev_span = prev.get("period_span")
    if period is not None and not _YEAR.search(period.span) and prev_span:
        year = _YEAR.search(prev_span)
        if year:
            rest = rest.replace(period.span, f"{period.span} {year.group(0)}", 1)
    if period is not None and _YEAR.fullmatch(period.span.strip()):
        # "what about 2024?": a bare year reads as a period only with its preposition
        rest = rest.replace(period.span, f"{'in' if lang == 'en' else 'в'} {period.span}", 1)
    if period is not None and prev_span:
        rules.append({"rule": "replaced", "part": "period", "old": prev_span, "new": period.span})
    if reading.grain_span:
        rest = remove_span(rest, reading.grain_span)
    period_part = "" if period is not None else (prev_span or "")
    core, rest, top = replace_top(prev["core"], rest)
    rules += [top] if top else []
    replaced = replace_day_kind(replace_values(core, reading, catalog), reading, catalog)
    if replaced != core:
        rules.append({"rule": "replaced", "part": "filter", "old": core, "new": replaced})
    core = replaced
    grain_span = prev.get("grain_span")
    new_breakdown = bool(reading.dimensions or reading.grain_span)
    if new_breakdown:
        if adding:
            rules.append({"rule": "added", "part": "breakdown"})
        else:
            kept = drop_breakdowns(core, catalog)
            if kept != core or grain_span:
                rules.append({"rule": "replaced", "part": "breakdown", "old": core, "new": kept})
            core, grain_span = kept, None
        grain_span = reading.grain_span or grain_span
    elif reading.values and not any(r["part"] == "filter" for r in rules):
        rules.append({"rule": "added", "part": "filter"})
    named_part = None if reading.metrics else metric_from_part(rest, core, catalog, lang)
    if reading.metrics or named_part:
        # a new metric ("а карт?", "а количество?") replaces the metric; the previous
        # question's breakdowns and filters stay
        new_subject = named_part or rest
        kept_metric = _metric_words(core, catalog) if adding else ""
        if kept_metric:
            # "а также количество?": both metrics asked, never the new one alone
            link = "and" if lang == "en" else "и"
            if new_subject[1:2].islower():  # "Количество платежей" mid-sentence, not "GMV"
                new_subject = new_subject[:1].lower() + new_subject[1:]
            new_subject = f"{kept_metric} {link} {new_subject}"
        rules.append(
            {
                "rule": "added" if kept_metric else "replaced",
                "part": "metric",
                "new": _clean(new_subject),
            }
        )
        core, rest = f"{new_subject} {kept_parts(core, catalog)}", ""
    parts = [_clean(p) for p in (core, rest, period_part, grain_span or "")]
    return Rewrite(_clean(" ".join(p for p in parts if p)), rules)
