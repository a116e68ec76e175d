"""Derived metrics the rules build from a catalog metric: a share of the total ("доля
выручки по странам", "what share of revenue came from the USA") and an average per unit
("average revenue per customer", "в среднем на клиента", "средняя выручка на одного
клиента", "в одном счёте").

Only the words are read here; the planner decides whether the metric allows it (a share or
an average of an average is refused) and the compiler writes the SQL.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vitrina.catalog import Catalog
from vitrina.language.text import Word, stem_matches
from vitrina.query.join_paths import table_names

SHARE_WORDS = {
    "доля", "долю", "доли", "долей", "доле", "share", "shares", "proportion", "percentage",
    "процент", "процента", "процентов",
}  # fmt: skip
AVERAGE_WORDS = {"average", "avg", "mean", "среднем"}  # "в среднем": "в" is a stop word
PER_WORDS = {"per", "на", "for", "each", "every", "в", "a", "an"}
UNIT_FILLERS = {
    "одного", "одну", "одном", "один", "одна", "одной", "каждого", "каждую", "каждом",
    "каждый", "каждая", "каждой", "each", "every", "one", "single",
}  # fmt: skip
# words that only say where a share goes: "пришлась на Москву", "came from", "went through"
SHARE_LINKS = (
    "пришл", "приход", "прих", "составля", "came", "come", "comes", "coming", "went", "go",
    "goes", "through", "accounted", "account", "accounts", "total", "всего", "общ", "from",
    "made", "make", "makes",
)  # fmt: skip


@dataclass(frozen=True)
class PerUnit:
    """ "per customer": the table whose rows the metric is divided among, and its word."""

    table: str
    word: str  # as typed: "клиента", "customer"


def _metric_words(occurrences: list[Any]) -> set[int]:
    return {
        i
        for m in occurrences
        if m.phrase.kind == "metric"
        for i in range(m.start, m.start + m.length)
    }


def find_share(words: list[Word], used: set[int], occurrences: list[Any]) -> int | None:
    """The word saying "share of" (consumed), or None; not when a catalog metric is named
    by it ("доля отклонённых" may be a metric of its own)."""
    covered = _metric_words(occurrences)
    for i, w in enumerate(words):
        if i not in used and i not in covered and w.text in SHARE_WORDS:
            used.add(i)
            return i
    return None


def table_of(word: Word, catalog: Catalog) -> str | None:
    """The one table the unit word names; when several do, the one it names whole."""
    names = table_names(catalog).items()
    named = [t for t, stems in names if any(stem_matches(s, word.text) for s in stems)]
    if not named:  # "order" names the table "orders" too
        named = [t for t, stems in names if any(stem_matches(word.text, s) for s in stems)]
    if len(named) > 1:  # "per invoice": invoice, not invoice_line (a part of its name)
        named = [t for t in named if _names_whole(word.text, catalog.tables[t].short_name)]
    return named[0] if len(named) == 1 else None


def _names_whole(word: str, short_name: str) -> bool:
    """The word is the table's whole name ("invoices": invoice, "order": orders), not one part
    of a snake_case name ("invoice" of invoice_line)."""
    return stem_matches(short_name, word) or (
        "_" not in short_name and stem_matches(word, short_name)
    )


def find_per_unit(
    words: list[Word], used: set[int], occurrences: list[Any], catalog: Catalog
) -> PerUnit | None:
    """ "average X per Y", "в среднем на Y", "в среднем ... в одном Y": the unit table.

    The average word must not be part of a catalog metric's own name ("средний чек"), and the
    unit word must name exactly one table; then every word of the phrase is consumed.
    """
    metric_words = _metric_words(occurrences)
    for a, w in enumerate(words):
        # "в среднем счетов": the adverb, never the start of a metric named "средний счёт"
        adverb = w.text == "среднем" and a > 0 and words[a - 1].text == "в"
        covered = set() if adverb else metric_words
        # "средняя выручка на клиента" reads as "average revenue per client": the adjective
        # of no metric's name averages the metric after it (the unit word must follow)
        averaging = w.text in AVERAGE_WORDS or w.text.startswith("средн")
        if a in used or not averaging:
            continue
        first = a + 1
        if a in covered:  # "средний чек на клиента": only right after the metric's own name
            ends = [
                m.start + m.length
                for m in occurrences
                if m.phrase.kind == "metric" and m.start <= a < m.start + m.length
            ]
            first = max(ends)
        for p in range(first, len(words)):
            if a in covered and p != first:
                break
            if words[p].text not in PER_WORDS or p in used:
                continue
            u, fillers = _unit_word(words, p + 1)
            if u >= len(words) or u in used:
                continue
            table = table_of(words[u], catalog)
            if table is None:
                continue
            used.update({p, u, *fillers} | (set() if a in covered else {a}))
            if a > 0 and words[a - 1].text == "в":
                used.add(a - 1)
            return PerUnit(table, words[u].original)
        return None
    return _per_after_metric(words, used, occurrences, catalog)


PER_AFTER_METRIC = {"per", "на"}


def _unit_word(words: list[Word], start: int) -> tuple[int, list[int]]:
    """The position of the unit's word at or after ``start``, past fillers ("один",
    "каждого"), and the fillers' positions."""
    u = start
    while u < len(words) and words[u].text in UNIT_FILLERS:
        u += 1
    return u, list(range(start, u))


def _per_after_metric(
    words: list[Word], used: set[int], occurrences: list[Any], catalog: Catalog
) -> PerUnit | None:
    """ "revenue per order", "выручка на (один) заказ": a metric's name, then "per"/"на" and a
    word naming one table, is the metric's average per that unit, as "average X per Y" is."""
    ends = {m.start + m.length for m in occurrences if m.phrase.kind == "metric"}
    values = {m.start for m in occurrences if m.phrase.kind == "value"}
    for p in sorted(ends):
        if p >= len(words) or p in used or words[p].text not in PER_AFTER_METRIC:
            continue
        u, fillers = _unit_word(words, p + 1)
        if u >= len(words) or u in used or u + 1 in values:
            continue  # "платежи на карты Мир": the cards the payments went to, not a unit
        table = table_of(words[u], catalog)
        if table is not None:
            used.update({p, u, *fillers})
            return PerUnit(table, words[u].original)
    return None


def is_share_link(word: str) -> bool:
    return any(stem_matches(s, word) for s in SHARE_LINKS)
