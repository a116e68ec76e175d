"""Rule-based reading of a question against the catalog: which metrics, dimensions,
filter values, order and limit it names, and which topic each points to.

Matching consumes words: the longest phrase wins a word, so "сумма возвратов" is the
refund volume and not "сумма" plus "возврат". Everything here is pure and cached per
catalog, so a question costs microseconds to a few milliseconds.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial

from vitrina.catalog import Catalog
from vitrina.catalog.model import ColumnRole
from vitrina.language.comparisons import NumberComparison, find_comparisons
from vitrina.language.periods.grain import find_grain
from vitrina.language.stopwords import QUESTION_STOPWORDS
from vitrina.language.text import Word, find_phrase, normalize, phrase_stems, stem_matches, tokenize
from vitrina.query.derived import (
    UNIT_FILLERS,
    PerUnit,
    find_per_unit,
    find_share,
    is_share_link,
    table_of,
)
from vitrina.query.event_verbs import read_verbs

GROUP_MARKERS = (
    "по",
    "by",
    "per",
    "разрез",
    "разбивк",
    "кажд",
    "each",
    "every",
    "which",
    "what",
    "как",
    "каки",  # "в каких странах", "какие жанры"
    "како",  # "какой город", "в каком регионе"
    "кака",
    "каку",
    "топ",
    "top",
    "across",
    "among",
    "среди",
    "split",
    "breakdown",
)
CONJUNCTIONS = {"и", "and", "а", "также", "плюс", "plus", "&", "или", "or", "vs", "versus"}
TOP_N = re.compile(
    r"\b(?:топ|top)[\s-]*(\d{1,3})\b|\b(\d{1,3})\s+(?:сам\w*|крупнейш\w*|лучш\w*|largest|biggest|top|highest|most)\b"
)
DESC_STEMS = (
    "больше всего",
    "наибольш",
    "максимальн",
    "крупнейш",
    "сам больш",
    "лидир",
    "лучш",
    "топ",
    "most",
    "highest",
    "largest",
    "biggest",
    "top",
    "best",
    "leading",
    "по убыван",
    "descending",
)
ASC_STEMS = (
    "меньше всего",
    "наименьш",
    "минимальн",
    "худш",
    "сам мал",
    "least",
    "lowest",
    "smallest",
    "worst",
    "fewest",
    "по возрастан",
    "ascending",
)


@dataclass(frozen=True)
class Phrase:
    stems: tuple[str, ...]
    kind: str  # metric | dimension | value | date | refuse | broken (a metric that cannot run)
    target: str  # metric id, table.column, or stem
    value: str | None = None
    exact: bool = False  # whole words only: a dictionary value as stored, not a stem
    exact_head: int = 0  # the first words whole ("IT" of "IT companies"), the rest stems

    def matches(self, words: list[Word], i: int) -> bool:
        n = len(self.stems)
        if i + n > len(words):
            return False
        if self.exact:
            return all(words[i + k].text == self.stems[k] for k in range(n))
        return all(
            words[i + k].text == self.stems[k]
            if k < self.exact_head
            else stem_matches(self.stems[k], words[i + k].text)
            for k in range(n)
        )


@dataclass
class Match:
    phrase: Phrase
    start: int  # word index
    length: int
    alternatives: tuple[str, ...] = ()  # for values: every dictionary column holding this value

    @property
    def end(self) -> int:
        return self.start + self.length


@dataclass(frozen=True)
class BoundComparison:
    """A number compared with a column ("Total > 10": WHERE) or with a metric per group
    ("more than 10 invoices": HAVING); `targets` are the candidate table.column names (the
    planner keeps the nearest) or the one metric id."""

    comparison: NumberComparison
    kind: str  # column | metric
    targets: tuple[str, ...]
    words: frozenset[int]


@dataclass
class Reading:
    """What the rules found in one question."""

    words: list[Word]
    metrics: list[Match] = field(default_factory=list)
    dimensions: list[Match] = field(default_factory=list)
    values: list[Match] = field(default_factory=list)
    dates: list[Match] = field(default_factory=list)  # a date column named ("по дате отгрузки")
    day_kind: str | None = None  # weekend | weekday
    day_kind_words: tuple[int, int] | None = None  # (first word, count) that said it
    comparisons: list[BoundComparison] = field(default_factory=list)
    share: bool = False  # "доля", "share of": the metric as a share of the total
    per_unit: PerUnit | None = None  # "average X per customer": X divided among the units
    refuse: list[str] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)  # ids of broken catalog metrics named
    topic_scores: dict[str, float] = field(default_factory=dict)
    segments: list[str] = field(default_factory=list)  # b2b / b2c named in the question
    grain: str | None = None
    grain_span: str | None = None  # the words that named the grain, as typed
    order: str | None = None
    limit: int | None = None
    unknown_names: list[str] = field(default_factory=list)  # capitalised words nothing explained
    dangling: list[int] = field(
        default_factory=list
    )  # "до", "after" next to a period that did not read them
    keyword_words: set[int] = field(default_factory=set)  # words that only scored a topic
    topic_words: dict[str, set[int]] = field(default_factory=dict)  # those words, per topic
    named_columns: set[int] = field(default_factory=set)  # a column named, not grouped by
    used: set[int] = field(default_factory=set)
    ties: list[Tie] = field(default_factory=list)  # metric readings decided between equals
    unread: list[Unread] = field(default_factory=list)  # words asking for more than is read
    verb_picks: list[tuple[str, str, str]] = field(default_factory=list)  # (verb, metric, instead)


@dataclass(frozen=True)
class Tie:
    """Words two metrics' names fit equally well: `chosen` won (its names cover more of the
    question's words, else the catalog's order decided), `other` lost."""

    words: str
    chosen: str
    other: str
    by_coverage: bool


@dataclass(frozen=True)
class Unread:
    """A word that asks for a plan element the reading does not carry: a second breakdown
    ("employee region" after "by employee"), a "per X" no average was built for."""

    word: str
    role: str  # breakdown | per


def _build_phrases(catalog: Catalog) -> list[Phrase]:
    out: list[Phrase] = []
    for metric in catalog.metrics.values():
        for syn in {metric.name_ru, metric.name_en, *metric.synonyms}:
            out.append(Phrase(phrase_stems(syn), "metric", metric.id))
    for broken in catalog.broken_metrics.values():  # named, so the refusal can say what to fix
        for syn in {broken.metric.name_ru, broken.metric.name_en, *broken.metric.synonyms}:
            out.append(Phrase(phrase_stems(syn), "broken", broken.metric.id))
    for table in catalog.tables.values():
        for col in table.columns:
            if col.role is ColumnRole.DIMENSION:
                for syn in col.synonyms:
                    out.append(Phrase(phrase_stems(syn), "dimension", f"{table.name}.{col.name}"))
            elif col.role is ColumnRole.DATE:
                for syn in col.synonyms:
                    out.append(Phrase(phrase_stems(syn), "date", f"{table.name}.{col.name}"))
    segment_column = catalog.info.segment_column
    for dic in catalog.dictionaries.values():
        if dic.column == segment_column:
            continue  # the segment is read from catalog.segment_keywords, not as a filter
        nouns = _subject_nouns(catalog, dic.column)
        for val in dic.values:
            stored = phrase_stems(val.value)
            if value_matchable(stored):
                out.append(Phrase(stored, "value", dic.column, val.value, exact=True))
            elif stored:  # "IT companies": a code that is a word needs its subject noun
                for noun in nouns:
                    phrase = Phrase(stored + noun, "value", dic.column, val.value)
                    out.append(replace(phrase, exact_head=len(stored)))
            for syn in val.synonyms or []:
                out.append(Phrase(phrase_stems(syn), "value", dic.column, val.value))
    for stem in catalog.info.refuse_keywords:
        out.append(Phrase(phrase_stems(stem), "refuse", stem))
    return [p for p in out if p.stems]


def _subject_nouns(catalog: Catalog, column: str) -> list[tuple[str, ...]]:
    """The nouns that name the rows of a column's table: its synonyms, and the segment's
    words when the segment is a column of the same table ("companies" of clients)."""
    table_name = column.rsplit(".", 1)[0]
    table = catalog.tables.get(table_name)
    names = list(table.synonyms) if table is not None else []
    segment = catalog.info.segment_column
    if segment and segment.rsplit(".", 1)[0] == table_name:
        names += [k for keys in catalog.info.segment_keywords.values() for k in keys]
    return [stems for n in names if (stems := phrase_stems(n)) and len(stems) == 1]


MIN_VALUE_LETTERS = 3


def value_matchable(stems: tuple[str, ...]) -> bool:
    """A stored value may be matched by itself (as whole words) only when it cannot be an
    ordinary word of a question: a one-letter code ("O", "F") or a stopword ("it", "and")
    needs a synonym written in the catalog."""
    if not stems:
        return False
    if len(stems) == 1 and (len(stems[0]) < MIN_VALUE_LETTERS or stems[0] in QUESTION_STOPWORDS):
        return False
    return not all(s in QUESTION_STOPWORDS or s.isdigit() for s in stems)


NUMERIC_TYPES = ("int", "decimal", "numeric", "float", "double", "real", "number", "money")


def numeric_columns(catalog: Catalog) -> list[tuple[str, object]]:
    """(table.column, column) of every numeric measure or attribute a number can be compared
    with (keys and ids never: "more than 5" is no condition on an id)."""
    if "numeric_columns" not in catalog.cache:
        catalog.cache["numeric_columns"] = [
            (f"{table.name}.{col.name}", col)
            for table in catalog.tables.values()
            for col in table.columns
            if col.role in (ColumnRole.MEASURE, ColumnRole.ATTRIBUTE, ColumnRole.DIMENSION)
            and any(t in col.type.lower() for t in NUMERIC_TYPES)
        ]
    built: list[tuple[str, object]] = catalog.cache["numeric_columns"]
    return built


def measure_phrases(catalog: Catalog) -> list[Phrase]:
    """Synonyms of numeric columns ("сумм", "balance"): they name what a number is compared
    with, and nothing else (a measure is not a breakdown)."""
    if "measure_phrases" not in catalog.cache:
        catalog.cache["measure_phrases"] = [
            Phrase(phrase_stems(syn), "measure", qualified)
            for qualified, col in numeric_columns(catalog)
            for syn in col.synonyms
            if phrase_stems(syn)
        ]
    built: list[Phrase] = catalog.cache["measure_phrases"]
    return built


def _bind_comparisons(
    reading: Reading, catalog: Catalog, occurrences: list[Match], found: list[NumberComparison]
) -> None:
    """Tie each "comparator number [unit]" to what it compares: a metric named right after
    the number (HAVING), a numeric column named right before the comparator, or the numeric
    columns of the unit said (WHERE). An unbound comparison leaves its words unread."""
    words, used = reading.words, reading.used
    for comp in found:
        after = [
            m
            for m in occurrences
            if m.phrase.kind == "metric" and m.start == comp.end and not _overlaps(m, used)
        ]
        if after:
            best = max(after, key=lambda m: m.length)
            span = comp.words | set(range(best.start, best.start + best.length))
            reading.comparisons.append(
                BoundComparison(comp, "metric", (best.phrase.target,), frozenset(span))
            )
            used |= span
            continue
        lead = _metric_before(reading, catalog, occurrences, comp)
        if lead is not None:
            span = comp.words | set(range(lead.start, lead.start + lead.length))
            reading.comparisons.append(
                BoundComparison(comp, "metric", (lead.phrase.target,), frozenset(span))
            )
            used |= span
            continue
        before = [
            Match(p, i, len(p.stems))
            for p in measure_phrases(catalog)
            for i in (comp.start - len(p.stems),)
            if i >= 0 and p.matches(words, i)
        ]
        before = [m for m in before if not _overlaps(m, used)]
        if before:
            best_len = max(m.length for m in before)
            best = [m for m in before if m.length == best_len]
            targets = tuple(dict.fromkeys(m.phrase.target for m in best))
            span = comp.words | set(range(best[0].start, comp.start))
            reading.comparisons.append(BoundComparison(comp, "column", targets, frozenset(span)))
            used |= span
            continue
        if comp.unit and not _unit_is_the_metrics(reading, catalog, occurrences, comp):
            targets = tuple(
                q for q, col in numeric_columns(catalog) if (col.unit or "") == comp.unit
            )
            if targets:
                reading.comparisons.append(
                    BoundComparison(comp, "column", targets, frozenset(comp.words))
                )
                used |= comp.words


def _metric_before(
    reading: Reading, catalog: Catalog, occurrences: list[Match], comp: NumberComparison
) -> Match | None:
    """ "страны с выручкой больше 50 долларов", "genres with revenue above 100": a metric
    named right before the comparator, after a link word ("с", "with", "где"), is what the
    number bounds, when the number is in the metric's own unit (or in none, for a metric that
    is not a count). "invoices over 10 dollars" is not
    one: a count is not in dollars, so the dollars belong to a column of the rows."""
    for m in occurrences:
        if m.phrase.kind != "metric" or m.start + m.length != comp.start:
            continue
        if _overlaps(m, reading.used):
            continue
        if m.start == 0 or reading.words[m.start - 1].text not in GROUP_LINKS:
            continue  # "сумма платежей больше 5000": the sum, or the payments? not read
        metric = catalog.metrics[m.phrase.target]
        if comp.unit and (metric.unit or "").upper() == comp.unit.upper():
            return m
        if comp.unit is None and metric.format != "count":
            return m
    return None


def _unit_is_the_metrics(
    reading: Reading, catalog: Catalog, occurrences: list[Match], comp: NumberComparison
) -> bool:
    """ "Выручка за 2 года больше 10 долларов": a metric in the number's unit is named, and no
    row noun stands before the comparator ("счетов меньше 2 долларов", "invoices over 10
    dollars"): the number may bound the metric or the rows, so it is not read as either."""
    in_unit = any(
        m.phrase.kind == "metric"
        and (catalog.metrics[m.phrase.target].unit or "").upper() == (comp.unit or "").upper()
        for m in occurrences
    )
    if not in_unit:
        return False
    rows_named = any(
        m.phrase.kind == "metric"
        and m.start + m.length == comp.start
        and catalog.metrics[m.phrase.target].format == "count"
        for m in occurrences
    )
    return not rows_named


def _overlaps(match: Match, used: set[int]) -> bool:
    return bool(set(range(match.start, match.start + match.length)) & used)


def phrases(catalog: Catalog) -> list[Phrase]:
    """Every phrase of the catalog's vocabulary, built once per loaded catalog."""
    if "phrases" not in catalog.cache:
        catalog.cache["phrases"] = _build_phrases(catalog)
    built: list[Phrase] = catalog.cache["phrases"]
    return built


def phrase_index(catalog: Catalog) -> dict[str, list[Phrase]]:
    """Phrases (and topic keywords) by the first two letters of their first stem, so a
    question is matched by looking up each of its words, not by trying every phrase."""
    if "phrase_index" not in catalog.cache:
        index: dict[str, list[Phrase]] = {}
        keywords = [
            Phrase(phrase_stems(stem), "keyword", topic.id, str(weight))
            for topic in catalog.topics.values()
            for stem, weight in topic.keywords.items()
        ]
        for phrase in [*phrases(catalog), *keywords]:
            if phrase.stems:
                index.setdefault(phrase.stems[0][:2], []).append(phrase)
        catalog.cache["phrase_index"] = index
    built: dict[str, list[Phrase]] = catalog.cache["phrase_index"]
    return built


def _occurrences(words: list[Word], catalog: Catalog) -> list[Match]:
    """Every place where a catalog phrase matches consecutive words of the question."""
    index = phrase_index(catalog)
    found: list[Match] = []
    for i, word in enumerate(words):
        for key in {word.text[:2], word.text[:1]}:
            for phrase in index.get(key, ()):
                if phrase.matches(words, i):
                    found.append(Match(phrase, i, len(phrase.stems)))
    return found


def _mark_span(words: list[Word], start: int, end: int, used: set[int]) -> None:
    for i, w in enumerate(words):
        if w.start < end and w.end > start:
            used.add(i)


def _find_all(
    stem_list: tuple[str, ...], words: list[Word], used: set[int]
) -> tuple[int, int] | None:
    """Consume the first phrase of the list found in the question: (first word, word count)."""
    for stem in stem_list:
        stems = phrase_stems(stem)
        idx = find_phrase(stems, words, used)
        if idx is not None:
            used.update(range(idx, idx + len(stems)))
            return idx, len(stems)
    return None


def _has_marker_before(words: list[Word], idx: int, blocked: set[int]) -> bool:
    for j in range(idx - 1, max(-1, idx - 4), -1):
        if j in blocked:
            return False
        if any(stem_matches(m, words[j].text) for m in GROUP_MARKERS):
            return True
    return False


WEEKEND_STEMS = ("выходн", "weekend", "субботам и воскресен", "saturdays and sundays")
WEEKDAY_STEMS = ("будн", "рабоч дн", "рабоч день", "weekday", "working day", "business day")
DAY_WORDS = {"дни", "дней", "день", "дням", "днях", "days", "day"}
DATE_WORDS = ("дат", "date", "dated")


def _day_kind(words: list[Word], used: set[int]) -> tuple[str, tuple[int, int]] | None:
    """ "по выходным", "on weekdays": a calendar filter on the plan's date and the words that
    said it (used)."""
    for kind, stems in (("weekend", WEEKEND_STEMS), ("weekday", WEEKDAY_STEMS)):
        found = _find_all(stems, words, used)
        if found is not None:
            start, count = found
            if start + count < len(words) and words[start + count].text in DAY_WORDS:
                used.add(start + count)
                count += 1
            return kind, (start, count)
    return None


SERIES_WORDS = (
    "динамик",
    "тренд",
    "trend",
    "trends",
    "dynamic",
    "dynamics",
    "помесячн",
    "понедельн",
)
RANGE_WORDS = {
    "до",
    "после",
    "с",
    "со",
    "от",
    "начиная",
    "from",
    "since",
    "after",
    "before",
    "until",
    "till",
    "starting",
    "onwards",
    "through",
    "prior",
}


def _range_word_before(words: list[Word], start: int, used: set[int]) -> list[int]:
    """A range word right before the period that the period did not take ("до 1995 года" read
    as the year 1995): it changes the dates, so it must be explained or the question is not
    answered."""
    before = [i for i, w in enumerate(words) if w.end <= start and i not in used]
    return [before[-1]] if before and words[before[-1]].text in RANGE_WORDS else []


def _take_date_word(words: list[Word], match: Match, used: set[int]) -> None:
    """ "по дате отгрузки", "by ship date": the generic word next to a date's name is read too."""
    for j in (match.start - 1, match.start + match.length):
        if (
            0 <= j < len(words)
            and j not in used
            and any(stem_matches(s, words[j].text) for s in DATE_WORDS)
        ):
            used.add(j)


INSTRUMENT_MARKERS = {"по", "by", "with", "через", "using"}


def _is_instrument(words: list[Word], match: Match, value_starts: set[int]) -> bool:
    """ "по картам Мир", "by Visa cards": a metric word between a preposition and a filter
    value names the means, not the number asked for."""
    before = match.start - 1
    return (
        before >= 0
        and words[before].text in INSTRUMENT_MARKERS
        and (match.start + match.length) in value_starts
    )


def _metric_coverage(
    words: list[Word], catalog: Catalog, structural: frozenset[int], metric_id: str
) -> int:
    """How many of the question's words any name of the metric holds ("средняя сумма
    платежа": every word is in the average ticket's names, two in the payment sum's)."""
    stems = metric_stems(catalog).get(metric_id, frozenset())
    return sum(
        1
        for i, w in enumerate(words)
        if i not in structural
        and w.text not in QUESTION_STOPWORDS
        and any(stem_matches(s, w.text) for s in stems)
    )


def metric_stems(catalog: Catalog) -> dict[str, frozenset[str]]:
    """Every stem of every name of each metric, built once per catalog."""
    if "metric_stems" not in catalog.cache:
        catalog.cache["metric_stems"] = {
            m.id: frozenset(
                stem
                for name in {m.name_ru, m.name_en, *m.synonyms}
                for stem in phrase_stems(name)
                if stem not in QUESTION_STOPWORDS
            )
            for m in catalog.metrics.values()
        }
    built: dict[str, frozenset[str]] = catalog.cache["metric_stems"]
    return built


def _ties(
    words: list[Word],
    chosen: list[Match],
    candidates: list[Match],
    coverage: Callable[[Match], int],
) -> list[Tie]:
    """Each chosen metric match that another metric's name fitted as well (as many words,
    overlapping): the tie and what decided it. Two metrics under the very same name (revenue
    of invoices and of invoice lines) are no tie: build_plan takes the one that reaches."""
    out: list[Tie] = []
    same_words = {(m.phrase.target, m.start, m.phrase.stems) for m in candidates}
    for won in chosen:
        span = set(range(won.start, won.start + won.length))
        for lost in candidates:
            if (
                lost.phrase.kind != "metric"
                or lost.phrase.target == won.phrase.target
                or lost.length != won.length
                or (lost.phrase.target, won.start, won.phrase.stems) in same_words
                or not span & set(range(lost.start, lost.start + lost.length))
                or any(t.other == lost.phrase.target for t in out)
                or any(m.phrase.target == lost.phrase.target for m in chosen)
            ):
                continue
            said = range(min(won.start, lost.start), max(won.end, lost.end))
            out.append(
                Tie(
                    " ".join(words[i].original for i in said),
                    won.phrase.target,
                    lost.phrase.target,
                    coverage(won) != coverage(lost),
                )
            )
    return out


def _second_breakdowns(
    reading: Reading, named: list[Match], named_columns: set[int], segment_starts: set[int]
) -> None:
    """ "по регионам и каналам", "by country and genre": a column named after a conjunction
    that follows a breakdown is a breakdown too. A column named right after a breakdown with
    nothing between ("by employee region") asks for a breakdown the reading cannot place:
    unread, never explained by being a column; unless a value it holds follows ("по
    клиентам сегмента B2B": the clients of that segment)."""
    words = reading.words
    held = segment_starts | {v.start for v in reading.values}
    for match in sorted(named, key=lambda m: m.start):
        ends = {d.end for d in reading.dimensions}
        link = match.start - 1
        if link >= 1 and words[link].text in CONJUNCTIONS and link in ends:
            reading.dimensions.append(match)
        elif match.start in ends and match.end not in held:  # not "сегмента B2B"
            reading.unread.append(
                Unread(" ".join(w.original for w in words[match.start : match.end]), "breakdown")
            )
        else:
            continue
        span = set(range(match.start, match.end))
        named_columns -= span
        reading.used |= span


PER_MARKERS = {"per", "на"}  # "в", "a", "each" also start a unit, but mean much else too


def _unread_per(reading: Reading, catalog: Catalog) -> list[Unread]:
    """ "на один заказ", "per order" that no average took: the question divides by a unit
    the plan would not, so it is unread (and the turn is not answered as the total). Not
    where the marker says where something goes ("пришлась на карты") or the unit word is
    read as something else than a metric ("на сумму больше 1000": a compared column)."""
    words, out = reading.words, []
    metric_words = {i for m in reading.metrics for i in range(m.start, m.end)}
    for p, w in enumerate(words):
        if p in reading.used or w.text not in PER_MARKERS:
            continue
        if p > 0 and is_share_link(words[p - 1].text):
            continue
        u = p + 1
        while u < len(words) and words[u].text in UNIT_FILLERS:
            u += 1
        if u >= len(words) or (u in reading.used and u not in metric_words):
            continue
        if table_of(words[u], catalog) is not None:
            out.append(Unread(" ".join(x.original for x in words[p : u + 1]), "per"))
    return out


READING_CACHE_SIZE = 512


def read_question(
    text: str, catalog: Catalog, *, period_span: tuple[int, int] | None = None
) -> Reading:
    """Match the catalog's vocabulary against one (standalone) question.

    Cached per catalog: several nodes read the same question, and a Reading is never
    modified after it is built.
    """
    cache: dict[tuple[str, tuple[int, int] | None], Reading] = catalog.cache.setdefault(
        "readings", {}
    )
    key = (text, period_span)
    if key not in cache:
        if len(cache) >= READING_CACHE_SIZE:
            cache.pop(next(iter(cache)))
        cache[key] = _read(text, catalog, period_span)
    return cache[key]


def _read(text: str, catalog: Catalog, period_span: tuple[int, int] | None) -> Reading:
    """The reading in named steps: markers (period, grain, comparisons, top N, day kind,
    order, segments), then the catalog's phrases longest first, then what follows from them."""
    words = tokenize(text)
    reading = Reading(words=words)
    occurrences = _occurrences(words, catalog)
    compared, reserved, segment_starts = _read_markers(
        text, reading, catalog, period_span, _value_tails(occurrences)
    )
    structural = set(reading.used)  # period, grain, order and segment words: markers sit among them
    reading.used -= reserved
    _bind_comparisons(reading, catalog, occurrences, compared)
    reading.share = find_share(words, reading.used, occurrences) is not None
    reading.per_unit = find_per_unit(words, reading.used, occurrences, catalog)
    candidates, coverage = _ranked_candidates(words, catalog, structural, occurrences)
    named_columns, named_matches = _take_candidates(reading, candidates, structural)
    reading.metrics.sort(key=lambda m: m.start)
    reading.ties = _ties(words, reading.metrics, candidates, coverage)
    read_verbs(reading, catalog)
    reading.ties = [
        t for t in reading.ties if any(m.phrase.target == t.chosen for m in reading.metrics)
    ]
    _second_breakdowns(reading, named_matches, named_columns, segment_starts)
    reading.unread += _unread_per(reading, catalog)
    value_starts = {m.start for m in reading.values}
    reading.metrics = [m for m in reading.metrics if not _is_instrument(words, m, value_starts)]
    _value_alternatives(reading, catalog)
    _score_topics(reading, catalog, occurrences)
    _unknown_names(reading, _keyword_words(reading, occurrences, named_columns))
    return reading


def _value_tails(occurrences: list[Match]) -> set[int]:
    """Words a dictionary value's phrase takes after its first word ("IT companies",
    "IT-компании": the noun of the value): the value's, not a segment's."""
    return {i for m in occurrences if m.phrase.kind == "value" for i in range(m.start + 1, m.end)}


def _read_markers(
    text: str,
    reading: Reading,
    catalog: Catalog,
    period_span: tuple[int, int] | None,
    value_tails: set[int],
) -> tuple[list[NumberComparison], set[int], set[int]]:
    """The words that mark rather than name: the period, the grain, comparisons, top N, the
    day kind, the order and the segments. Returns the comparisons, the words they reserve and
    where each segment's words start. A segment word that ends a dictionary value's phrase
    (`value_tails`: "IT companies" is the industry IT, not every company) is not read as the
    segment."""
    words, used = reading.words, reading.used
    if period_span:
        _mark_span(words, period_span[0], period_span[1], used)
        reading.dangling = _range_word_before(words, period_span[0], used)
    norm = " ".join(w.text for w in words)

    grain = find_grain(normalize(text))
    if grain is not None:
        reading.grain = grain[0].value
        reading.grain_span = text[grain[1][0] : grain[1][1]]
        _mark_span(words, grain[1][0], grain[1][1], used)
    # comparisons first: "at least 20" is no "least", "больше 5" is no "больше всего"
    compared = find_comparisons(words, text, used)
    reserved = {i for comp in compared for i in comp.words}
    used |= reserved
    top = TOP_N.search(norm)
    if top:
        reading.limit = int(top.group(1) or top.group(2))
        reading.order = "desc"
        _mark_span(words, top.start(), top.end(), used)
    day = _day_kind(words, used)
    if day is not None:
        reading.day_kind, reading.day_kind_words = day
    if _find_all(ASC_STEMS, words, used) is not None:
        reading.order = "asc"
    elif _find_all(DESC_STEMS, words, used) is not None:
        reading.order = "desc"
    segment_starts: set[int] = set()
    for seg, stems in catalog.info.segment_keywords.items():
        held = used | value_tails
        found = _find_all(tuple(stems), words, held)
        used |= held - value_tails
        if found is not None:
            reading.segments.append(seg)
            segment_starts.add(found[0])
    return compared, reserved, segment_starts


KIND_RANK = {"refuse": 0, "date": 0.5, "value": 1, "metric": 2, "broken": 2, "dimension": 3}


def _ranked_candidates(
    words: list[Word], catalog: Catalog, structural: set[int], occurrences: list[Match]
) -> tuple[list[Match], Callable[[Match], int]]:
    """The phrases found (keywords aside) in the order they are taken: longest, most content,
    by kind, most metric coverage, longest stems, first. Returns them and the coverage score."""
    candidates = [m for m in occurrences if m.phrase.kind != "keyword"]

    def rank(m: Match) -> float:
        # after "по", "by", "top N", "какой" a word names a breakdown before it names a metric
        if m.phrase.kind == "dimension" and _has_marker_before(words, m.start, set()):
            return 1.5
        return KIND_RANK[m.phrase.kind]

    def content(m: Match) -> int:  # "трек продан" says more than "сколько трек"
        return sum(1 for stem in m.phrase.stems if stem not in QUESTION_STOPWORDS)

    covers = partial(_metric_coverage, words, catalog, frozenset(structural))
    covered: dict[str, int] = {}

    def coverage(m: Match) -> int:
        if m.phrase.kind != "metric":
            return 0
        if m.phrase.target not in covered:
            covered[m.phrase.target] = covers(m.phrase.target)
        return covered[m.phrase.target]

    candidates.sort(
        key=lambda m: (
            -m.length,
            -content(m),
            rank(m),
            -coverage(m),
            -sum(map(len, m.phrase.stems)),
            m.start,
        )
    )
    return candidates, coverage


def _take_candidates(
    reading: Reading, candidates: list[Match], structural: set[int]
) -> tuple[set[int], list[Match]]:
    """Take each candidate whose words are still free, into the list of its kind. A column
    with no breakdown marker before it is named, not grouped by: returned aside."""
    words, used = reading.words, reading.used
    named_columns: set[int] = set()
    named_matches: list[Match] = []
    for match in candidates:
        span = set(range(match.start, match.start + match.length))
        if span & used:
            continue
        if match.phrase.kind == "dimension" and not _has_marker_before(
            words, match.start, used - structural - span
        ):
            named_columns |= (
                span  # "в Приволжском федеральном округе": the column is named, not grouped
            )
            named_matches.append(match)
            continue
        used |= span
        _take_match(reading, match)
    return named_columns, named_matches


def _take_match(reading: Reading, match: Match) -> None:
    """One candidate taken: into the reading's list of its kind."""
    words = reading.words
    if match.phrase.kind == "refuse":
        reading.refuse.append(
            " ".join(w.original for w in words[match.start : match.start + match.length])
        )
    elif match.phrase.kind == "broken":
        reading.broken.append(match.phrase.target)
    elif match.phrase.kind == "date":
        reading.dates.append(match)
        _take_date_word(words, match, reading.used)
    else:
        {"metric": reading.metrics, "dimension": reading.dimensions, "value": reading.values}[
            match.phrase.kind
        ].append(match)


def _value_alternatives(reading: Reading, catalog: Catalog) -> None:
    """Each value read lists every column that holds the same value under the same words."""
    value_phrases = [p for p in phrases(catalog) if p.kind == "value"]
    for match in reading.values:
        match.alternatives = tuple(
            dict.fromkeys(
                p.target
                for p in value_phrases
                if p.value == match.phrase.value and p.stems == match.phrase.stems
            )
        )


def _score_topics(reading: Reading, catalog: Catalog, occurrences: list[Match]) -> None:
    """Each topic's score: its keywords' weights plus twice its longest metric read."""
    keyword_hits = {
        (m.phrase.target, m.phrase.stems): float(m.phrase.value or 0)
        for m in occurrences
        if m.phrase.kind == "keyword"
    }
    for topic in catalog.topics.values():
        score = sum(
            weight for (topic_id, _), weight in keyword_hits.items() if topic_id == topic.id
        )
        best = max(
            (
                m.length
                for m in reading.metrics
                if catalog.metrics[m.phrase.target].topic == topic.id
            ),
            default=0,
        )
        for bound in reading.comparisons:  # "more than 10 invoices" names a metric too
            if bound.kind == "metric" and catalog.metrics[bound.targets[0]].topic == topic.id:
                best = max(best, 1)
        score += 2 * best
        if score > 0:
            reading.topic_scores[topic.id] = score


def _keyword_words(reading: Reading, occurrences: list[Match], named_columns: set[int]) -> set[int]:
    """The words topic keywords took, in all and per topic, and the columns named; returns
    the keywords' words."""
    keyword_words = {
        i
        for m in occurrences
        if m.phrase.kind == "keyword"
        for i in range(m.start, m.start + m.length)
    }
    reading.keyword_words = keyword_words | named_columns
    reading.named_columns = named_columns
    for m in occurrences:
        if m.phrase.kind == "keyword":
            reading.topic_words.setdefault(m.phrase.target, set()).update(
                range(m.start, m.start + m.length)
            )
    return keyword_words


def _unknown_names(reading: Reading, keyword_words: set[int]) -> None:
    """Capitalised words nothing read (not the first word, not a number): names the catalog
    does not know."""
    for i, w in enumerate(reading.words):
        if (
            i == 0
            or i in reading.used
            or i in keyword_words
            or not w.original[:1].isupper()
            or len(w.text) < 3
        ):
            continue
        if w.text.isdigit():
            continue
        reading.unknown_names.append(w.original)


COMPARISON_LINKS = {"где", "where", "having", "чтобы"}
GROUP_LINKS = {"с", "со", "with", "where", "где", "having", "whose", "у"}
MODEL_THRESHOLD = 1  # one unexplained content word: the model reads the question, or no answer


def restates(word: str, vocabulary: frozenset[str]) -> bool:
    """A word that restates the plan's own vocabulary in another form ("выпустили" for the
    metric's "выпуск", "новые" for "нов", "краю" for "край"): the two share a start of four
    letters, or of three when one of them is hardly longer than that.

    >>> restates("выпустили", frozenset({"выпуск"})), restates("вернули", frozenset({"возврат"}))
    (True, False)
    """
    for token in vocabulary:
        if word == token:
            return True
        shared = 0
        for a, b in zip(word, token, strict=False):
            if a != b:
                break
            shared += 1
        if shared >= 4 or (shared >= 3 and shared >= min(len(word), len(token)) - 1):
            return True
    return False


def unexplained_words(
    reading: Reading,
    vocabulary: frozenset[str] = frozenset(),
    topic: str | None = None,
    joined: frozenset[str] = frozenset(),
) -> list[str]:
    """Content words the rules did not read: what a model may understand when rules cannot.

    `vocabulary` is the words of the plan (its metric's synonyms, its topic's keywords, its
    filters' values): another form of one of them adds no condition. A number nothing read
    (not a period, not a top N) is unexplained: "older than 60", "more than 10000".
    With `topic` (the plan's), a keyword of another topic explains a word only when it names
    something of the tables the plan joins (`joined`: their names and columns' synonyms, as
    "картами" for the card table of "платежи картами Visa"): "which genres sold at least 50
    tracks" answered from the music topic would drop "sold".
    """
    out = [reading.words[i].text for i in reading.dangling]
    keyword_words = reading.keyword_words
    if topic is not None:
        keyword_words = reading.named_columns | reading.topic_words.get(topic, set())
        keyword_words |= {
            i
            for i in reading.keyword_words - keyword_words
            if restates(reading.words[i].text, joined)
        }
    breakdown = bool(reading.dimensions or reading.grain)
    for i, w in enumerate(reading.words):
        if (
            i in reading.used
            or i in keyword_words
            or w.text in QUESTION_STOPWORDS
            or i in reading.dangling
        ):
            continue
        if breakdown and any(stem_matches(m, w.text) for m in GROUP_MARKERS):
            continue  # "в разрезе", "split by": the marker of the breakdown the plan has
        if reading.grain and any(stem_matches(m, w.text) for m in SERIES_WORDS):
            continue  # "динамика по месяцам", "monthly trend": the grain is the series
        if reading.share and is_share_link(w.text):
            continue  # "пришлась на Москву", "came from the USA": where the share goes
        if reading.comparisons and w.text in COMPARISON_LINKS:
            continue  # "страны, где больше 5 счетов": the link to the condition the plan has
        acronym = (
            w.original.isalpha() and w.original.isupper() and len(w.original) > 1
        )  # "IT", "EU"
        if w.text.isdigit() or acronym or (len(w.text) > 2 and not restates(w.text, vocabulary)):
            out.append(w.text)
    return out
