"""Verbs in a question: a metric's own verb picks the metric, a neutral verb is read.

"Сколько треков купили": "сколько треков" names the tracks in the store (track_count) as
well as the tracks sold; "купили" is a verb of tracks_sold (`verbs:` in the catalog), so
the metric named by the shared noun is the one whose verb the question uses. "Сколько
заказов совершили", "how many payments were made": neutral verbs (language.verbs) say
only that the events happened; they are read when the question names a metric, and left
unexplained otherwise (nothing says what was counted).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from vitrina.catalog import Catalog
from vitrina.language.stopwords import QUESTION_STOPWORDS
from vitrina.language.text import phrase_stems, stem_matches
from vitrina.language.verbs import NEUTRAL_VERBS

if TYPE_CHECKING:  # the reader calls this module: no import back at run time
    from vitrina.query.understand import Match, Reading


def metric_verbs(catalog: Catalog) -> dict[str, tuple[str, ...]]:
    """Each metric's verb stems (cached on the catalog)."""
    cached = catalog.cache.get("metric_verbs")
    if cached is None:
        cached = {
            m.id: tuple(s for v in m.verbs for s in phrase_stems(v))
            for m in catalog.metrics.values()
            if m.verbs
        }
        catalog.cache["metric_verbs"] = cached
    return cached


def _nouns(metric_id: str, catalog: Catalog) -> set[str]:
    metric = catalog.metrics[metric_id]
    names = [metric.name_ru, metric.name_en, *metric.synonyms]
    return {s for n in names for s in phrase_stems(n) if s not in QUESTION_STOPWORDS}


def _shares_noun(match: Match, nouns: set[str]) -> bool:
    said = [s for s in match.phrase.stems if s not in QUESTION_STOPWORDS]
    return any(stem_matches(n, s) or stem_matches(s, n) for s in said for n in nouns)


def _select(reading: Reading, i: int, owners: list[str], catalog: Catalog) -> bool:
    """The verb at `i` is read: its metric is named, or it re-reads the metric named by a
    noun its metric shares."""
    if any(m.phrase.target in owners for m in reading.metrics):
        return True
    for n, match in sorted(enumerate(reading.metrics), key=lambda nm: abs(nm[1].start - i)):
        owner = next((o for o in owners if _shares_noun(match, _nouns(o, catalog))), None)
        if owner is not None:
            start, end = _span_with_verb(reading, match, i)
            reading.verb_picks.append((reading.words[i].original, owner, match.phrase.target))
            phrase = replace(match.phrase, target=owner)
            reading.metrics[n] = replace(match, phrase=phrase, start=start, length=end - start)
            return True
    return False


def _neutral(word: str) -> bool:
    return word in QUESTION_STOPWORDS or word in NEUTRAL_VERBS  # words come lowercased, ё as е


def _span_with_verb(reading: Reading, match: Match, i: int) -> tuple[int, int]:
    """The match's words and the verb's, when only stop words or neutral verbs stand between
    ("tracks were bought", "треков было куплено"): the whole names the metric."""
    lo, hi = min(match.start, i), max(match.end, i + 1)
    between = [
        w.text
        for k, w in enumerate(reading.words[lo:hi], lo)
        if not match.start <= k < match.end and k != i
    ]
    if all(_neutral(w) for w in between):
        reading.used.update(range(lo, hi))
        return lo, hi
    return match.start, match.end


def read_verbs(reading: Reading, catalog: Catalog) -> None:
    """Mark the verbs the reading explains as read (see the module docstring)."""
    verbs = metric_verbs(catalog)
    for i, word in enumerate(reading.words):
        if i in reading.used:
            continue
        owners = [m for m, stems in verbs.items() if any(stem_matches(s, word.text) for s in stems)]
        if owners:
            if _select(reading, i, owners, catalog):
                reading.used.add(i)
            continue
        if reading.metrics and word.text in NEUTRAL_VERBS:
            reading.used.add(i)
