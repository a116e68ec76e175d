"""A new question to a verified entry, by rules only (no model).

The question's parameters are read by the same readers as ask's: its periods
(`vitrina.language.periods`, leftmost first, at most two), its dictionary values and its
top N (`vitrina.query.understand.read_question`). What is left are its content words; the
alignment rule is the planner's (decision 152: nothing asked may be dropped):

* every content word of the question is explained by a wording of the entry (the same
  word or another form of it, `restates`) or was read as a parameter;
* every content word of one of the entry's wordings is in the question (a question that
  says less, "average days to ship" for "average days to ship by ship mode", is another
  grain and is not matched);
* the question gives exactly the parameters the SQL has: as many periods, a value of each
  value placeholder's column, a top N when the SQL has one. A value or a number the SQL
  cannot take is a content word no wording explains.

Negations ("not", "never", "не", "без") are content words here although the planner's
stopwords drop "не": "bought in 2023 but not in 2024" is another question without it.
Two entries that fit equally well: none is used (the trace says which).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import TYPE_CHECKING

from vitrina.language.periods import Period, extract_period, period_offsets
from vitrina.language.stopwords import QUESTION_STOPWORDS
from vitrina.language.text import Word, normalize, phrase_stems, stem_matches, tokenize
from vitrina.query.understand import TOP_N, Reading, read_question, restates
from vitrina.query.verified.model import Entry, Param

if TYPE_CHECKING:
    from vitrina.catalog import Catalog
    from vitrina.query.verified.params import Value

NEGATIONS = frozenset({"не", "ни", "нет", "без", "никогда", "not", "never", "no", "without", "nor"})
MAX_PERIODS = 3  # periods read from one question (the third one makes it no match)


@dataclass(frozen=True)
class ValueHit:
    value: str
    column: str | None  # the column the placeholder takes it for (None: several, unresolved)
    columns: tuple[str, ...]
    words: frozenset[int]


@dataclass
class QuestionParams:
    """What a question gives a verified query, and the words left to align."""

    words: list[Word]
    periods: list[Period] = field(default_factory=list)
    values: list[ValueHit] = field(default_factory=list)
    top_n: int | None = None
    top_words: frozenset[int] = frozenset()
    period_words: frozenset[int] = frozenset()
    concepts: dict[int, str] = field(default_factory=dict)  # word -> the catalog element it names

    def content(self, skip: set[int]) -> list[Item]:
        """Content words outside `skip` (parameter words), negations kept; a word that names
        a catalog element (a metric, a column, a table by its synonyms) carries that element,
        so "sales" and "revenue" of one metric are one content item."""
        return [
            Item(w.text, self.concepts.get(i))
            for i, w in enumerate(self.words)
            if i not in skip and (w.text in NEGATIONS or w.text not in QUESTION_STOPWORDS)
        ]


@dataclass(frozen=True)
class Item:
    """One content word, and the catalog element it names when it names one."""

    word: str
    concept: str | None = None


def _read_periods(text: str, today: date) -> tuple[list[Period], list[tuple[int, int]]]:
    """The question's periods in the order they are named, and where their words are."""
    work = normalize(text)
    found: list[tuple[int, Period, tuple[int, int]]] = []
    for _ in range(MAX_PERIODS):
        period = extract_period(work, today)
        offsets = period_offsets(work, period.span) if period else None
        if period is None or offsets is None:
            break
        found.append((offsets[0], period, offsets))
        work = work[: offsets[0]] + " " * (offsets[1] - offsets[0]) + work[offsets[1] :]
    found.sort(key=lambda f: f[0])
    return [f[1] for f in found], [f[2] for f in found]


def read_params(text: str, catalog: Catalog, today: date) -> QuestionParams:
    """The periods, dictionary values and top N of a question (see the module docstring)."""
    words = tokenize(text)
    periods, spans = _read_periods(text, today)
    in_period = frozenset(i for i, w in enumerate(words) if any(a <= w.start < b for a, b in spans))
    reading = read_question(text, catalog, period_span=spans[0] if spans else None)
    values = []
    for m in reading.values:
        span = frozenset(range(m.start, m.end))
        if span & in_period or m.phrase.value is None:
            continue
        columns = tuple(dict.fromkeys((m.phrase.target, *m.alternatives)))
        values.append(
            ValueHit(m.phrase.value, columns[0] if len(columns) == 1 else None, columns, span)
        )
    top = TOP_N.search(normalize(text))
    top_words: frozenset[int] = frozenset()
    top_n = None
    if top:
        top_n = int(top.group(1) or top.group(2))
        top_words = frozenset(
            i
            for i, w in enumerate(words)
            if top.start() <= w.start < top.end() and w.text.isdigit()
        )
    concepts = _concepts(reading, catalog)
    return QuestionParams(words, periods, values, top_n, top_words, in_period, concepts)


def _concepts(reading: Reading, catalog: Catalog) -> dict[int, str]:
    """Each word the reader matched to a metric, a dimension or a date column, and each
    word a table's synonym names, -> an id of that element (``=kind:target``)."""
    out: dict[int, str] = {}
    for kind, matches in (("m", reading.metrics), ("d", reading.dimensions), ("t", reading.dates)):
        for m in matches:
            for i in range(m.start, m.end):
                out[i] = f"={kind}:{m.phrase.target}"
    for i, w in enumerate(reading.words):
        if i in out:
            continue
        for table in catalog.tables.values():
            if any(
                stem_matches(stem, w.text)
                for syn in table.synonyms
                for stem in phrase_stems(syn)[:1]
            ):
                out[i] = f"=table:{table.name}"
                break
    return out


@dataclass(frozen=True)
class Template:
    """One wording of an entry, read once: its content words."""

    content: frozenset[Item]


@dataclass
class Match:
    """A question matched to an entry: the values to bind and what each replaced."""

    entry: Entry
    values: dict[str, Value]
    substituted: dict[str, str]  # placeholder -> the value as the question said it
    coverage: int  # content words of the wording the question covered


def _period_values(params: list[Param], periods: list[Period]) -> dict[str, Value]:
    out: dict[str, Value] = {}
    for p in params:
        if p.type != "date":
            continue
        period = periods[p.period - 1]
        if p.name.endswith("_start"):
            out[p.name] = period.start
        elif p.name.endswith("_end"):
            out[p.name] = period.end
        else:
            out[p.name] = period.end + timedelta(days=1)
    return out


def _bind_values(
    params: list[Param], question: QuestionParams
) -> tuple[dict[str, Value], set[int]] | None:
    """Each value placeholder takes the next value of its column named in the question;
    None when one has none."""
    out: dict[str, Value] = {}
    taken: set[int] = set()
    left = list(question.values)
    for p in params:
        if p.type != "value":
            continue
        column = (p.column or "").lower()
        hit = next((v for v in left if column in (c.lower() for c in v.columns)), None)
        if hit is None:
            return None
        left.remove(hit)
        out[p.name] = hit.value
        taken |= hit.words
    return out, taken


def bind_question(
    entry: Entry, question: QuestionParams
) -> tuple[dict[str, Value], set[int]] | None:
    """The entry's placeholders filled from the question, and the words they took; None
    when the question does not give exactly what the SQL takes."""
    params = entry.params
    periods_needed = max((p.period for p in params), default=0)
    if len(question.periods) != periods_needed:
        return None
    ints = [p for p in params if p.type == "int"]
    if any(p.name != "top_n" for p in ints) or bool(ints) != (question.top_n is not None):
        return None
    bound = _bind_values(params, question)
    if bound is None:
        return None
    values, taken = bound
    values |= _period_values(params, question.periods)
    if ints and question.top_n is not None:
        values["top_n"] = question.top_n
        taken |= question.top_words
    return values, taken | question.period_words


def templates(entry: Entry, catalog: Catalog, today: date) -> list[Template]:
    """The entry's wordings read as questions (cached per catalog)."""
    cache: dict[tuple[str, str, tuple[str, ...]], list[Template]]
    cache = catalog.cache.setdefault("verified_templates", {})
    key = (entry.id, entry.sql, tuple(entry.wordings))
    if key not in cache:
        out = []
        for wording in entry.wordings:
            q = read_params(wording, catalog, today)
            bound = bind_question(entry, q)
            skip = bound[1] if bound else set(q.period_words)
            out.append(Template(frozenset(q.content(skip))))
        cache[key] = out
    return cache[key]


def _explained(item: Item, vocabulary: frozenset[Item]) -> bool:
    """The same catalog element, or the same word in another form (`restates`)."""
    if item.concept and any(v.concept == item.concept for v in vocabulary):
        return True
    return restates(item.word, frozenset(v.word for v in vocabulary))


def _negations(items: frozenset[Item]) -> frozenset[str]:
    return frozenset(i.word for i in items if i.word in NEGATIONS)


def _aligned(content: list[Item], wordings: list[Template]) -> int | None:
    """How many content words the best wording has when the question fits it both ways."""
    vocabulary: frozenset[Item] = frozenset().union(*(t.content for t in wordings))
    if any(not _explained(w, vocabulary) for w in content if w.word not in NEGATIONS):
        return None
    best = None
    asked = frozenset(content)
    for t in wordings:
        if _negations(t.content) != _negations(asked):
            continue
        if all(_explained(w, asked) for w in t.content if w.word not in NEGATIONS):
            best = max(best or 0, len(t.content))
    return best


def match_entry(
    entry: Entry, question: QuestionParams, catalog: Catalog, today: date
) -> Match | None:
    """The entry with the question's values, or None when they do not align."""
    bound = bind_question(entry, question)
    if bound is None:
        return None
    values, taken = bound
    coverage = _aligned(question.content(taken), templates(entry, catalog, today))
    if coverage is None:
        return None
    said = {name: (v.isoformat() if isinstance(v, date) else str(v)) for name, v in values.items()}
    return Match(entry, values, said, coverage)


@dataclass
class Found:
    match: Match | None
    ambiguous: list[str] = field(default_factory=list)  # ids that fit equally well


def find_match(text: str, entries: list[Entry], catalog: Catalog, today: date) -> Found:
    """The one usable entry the question fits best; none when two fit equally well."""
    question = read_params(text, catalog, today)
    fits = [m for e in entries if e.usable() and (m := match_entry(e, question, catalog, today))]
    if not fits:
        return Found(None)
    fits.sort(key=lambda m: -m.coverage)
    tied = [m.entry.id for m in fits if m.coverage == fits[0].coverage]
    if len(tied) > 1:
        return Found(None, tied)
    return Found(fits[0])


CLOSE_SHARE = 0.5  # share of a question's content words an entry must explain to be "close"


def close_entries(
    text: str, entries: list[Entry], catalog: Catalog, today: date, *, limit: int
) -> list[str]:
    """Entries a model may pick from and adapt (never used as verified): those whose wordings
    explain at least half of the question's content words, parameters set aside; best first,
    at most `limit`."""
    question = read_params(text, catalog, today)
    skip = set(question.period_words | question.top_words)
    for hit in question.values:
        skip |= hit.words
    content = [w for w in question.content(skip) if w.word not in NEGATIONS]
    if not content:
        return []
    scored = []
    for entry in entries:
        vocabulary: frozenset[Item] = frozenset().union(
            *(t.content for t in templates(entry, catalog, today))
        )
        share = sum(_explained(w, vocabulary) for w in content) / len(content)
        if share >= CLOSE_SHARE:
            scored.append((-share, entry.id))
    return [entry_id for _, entry_id in sorted(scored)[:limit]]
