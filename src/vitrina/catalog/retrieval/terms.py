"""Index terms for retrieval: words cut to light stems, matched by the catalog's prefix rule.

The catalog's synonyms are already stems ("кошел"), but descriptions and labels are
prose ("Одна строка на попытку платежа"). Both sides go through one conservative
suffix stripper (a few Russian and English endings, never below 3 letters), and a
question word then matches an index term when `vitrina.language.text.stem_matches` says so
(the term starts the word and the rest is short). No morphology dictionary: the same
trade-off as the rule nodes, and the catalog author still controls recall via synonyms.

>>> light_stem("платежей"), light_stem("payments"), light_stem("кошел")
('платеж', 'payment', 'кошел')
>>> index_terms("Одна строка на попытку платежа")  # stop words dropped
['попытк', 'платеж']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from vitrina.language.stopwords import INDEX_STOPWORDS
from vitrina.language.text import stem_matches, tokenize

MIN_STEM = 3  # never strip a word below this many letters
MAX_EXTRA = 5  # the longest ending stem_matches accepts

# Noun and adjective endings only: verb endings ("-ит", "-ет") would cut "кредит" to "кред".
_RU_ENDINGS = tuple(
    sorted(
        (
            "иями",
            "ями",
            "ами",
            "ого",
            "его",
            "ому",
            "ему",
            "ыми",
            "ими",
            "ией",
            "иях",
            "ах",
            "ях",
            "ов",
            "ев",
            "ей",
            "ам",
            "ям",
            "ом",
            "ем",
            "ой",
            "ый",
            "ий",
            "ая",
            "яя",
            "ое",
            "ее",
            "ые",
            "ие",
            "ым",
            "им",
            "ую",
            "юю",
            "ию",
            "ия",
            "ью",
            "а",
            "я",
            "о",
            "е",
            "ы",
            "и",
            "у",
            "ю",
            "ь",
            "й",
        ),
        key=len,
        reverse=True,
    )
)
_EN_ENDINGS = ("ies", "ing", "es", "ed", "ly", "s")
_CYRILLIC = re.compile(r"[а-я]")

# Periods are normalised by rules, so the words that name them say little about tables:
# month names are dropped from queries, grain and relative-period words count a quarter.
MONTH_STEMS = (
    "январ",
    "феврал",
    "март",
    "апрел",
    "май",
    "мая",
    "мае",
    "июн",
    "июл",
    "август",
    "сентябр",
    "октябр",
    "ноябр",
    "декабр",
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
PERIOD_STEMS = (
    "квартал",
    "поквартальн",
    "месяц",
    "помесячн",
    "недел",
    "понедельн",
    "год",
    "дн",
    "дне",
    "день",
    "вчера",
    "сегодня",
    "прошл",
    "последн",
    "текущ",
    "начал",
    "ежедневн",
    "quarter",
    "month",
    "week",
    "year",
    "day",
    "daily",
    "yesterday",
    "today",
    "ytd",
    "since",
    "previous",
    "current",
    "annual",
)
PERIOD_WEIGHT = 0.25


def query_weight(word: str) -> float:
    """How much a question word counts: 0 for month names, PERIOD_WEIGHT for period words."""
    if any(stem_matches(s, word) for s in MONTH_STEMS):
        return 0.0
    if any(stem_matches(s, word) for s in PERIOD_STEMS):
        return PERIOD_WEIGHT
    return 1.0


def light_stem(word: str) -> str:
    """Strip one common ending (Russian or English); keep at least MIN_STEM letters."""
    endings = _RU_ENDINGS if _CYRILLIC.search(word) else _EN_ENDINGS
    for end in endings:
        if word.endswith(end) and len(word) - len(end) >= MIN_STEM:
            if end == "s" and word[-2] in "usi":  # status, analysis, class
                return word
            if end == "ies":
                return word[: -len(end)] + "y"
            return word[: -len(end)]
    return word


def words(text: str) -> Iterator[str]:
    """Normalised words worth indexing: no stop words, no bare numbers, no single letters."""
    for w in tokenize(text.replace("_", " ").replace(".", " ")):
        if len(w.text) >= 2 and not w.text.isdigit() and w.text not in INDEX_STOPWORDS:
            yield w.text


def index_terms(text: str) -> list[str]:
    """The stems a document field contributes to the index."""
    return [light_stem(w) for w in words(text)]


def query_words(text: str) -> list[str]:
    """Distinct question words, in order."""
    return list(dict.fromkeys(words(text)))


def matching_terms(word: str, vocabulary: Iterable[str] | dict[str, object]) -> list[str]:
    """Index terms that a question word matches: its stem, or a prefix allowed by stem_matches.

    Only the word's own prefixes are looked up (at most MAX_EXTRA + 1 dictionary probes),
    so a query costs the same on a catalog of 10 or 10,000 tables.
    """
    found = []
    for cut in range(max(2, len(word) - MAX_EXTRA), len(word) + 1):
        prefix = word[:cut]
        if prefix in vocabulary and stem_matches(prefix, word):
            found.append(prefix)
    stem = light_stem(word)
    if stem not in found and stem in vocabulary:
        found.append(stem)
    return found
