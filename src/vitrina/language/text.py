"""Words, stems and phrase matching shared by every rule node.

Russian inflects heavily, so the catalog stores stems ("кошел" matches "кошельков") and
a word matches a stem when it starts with it and the ending is short; a word too far
from its stem ("типам" for "тип") matches through its lemma (`vitrina.language.morph`,
pymorphy3). Multi-word phrases match consecutive words in order. The catalog author controls
recall through synonyms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from vitrina.language.morph import lemma

# Hyphens split words ("топ-5", "клиентов-женщин"); hyphenated synonyms ("санкт-петербург")
# are split the same way, so they still match as consecutive words.
_WORD = re.compile(r"[0-9a-zа-я]+(?:'[0-9a-zа-я]+)*", re.IGNORECASE)


def normalize(text: str) -> str:
    """Lower case, ё -> е, typographic quotes and dashes made plain."""
    return (
        text.lower()
        .replace("ё", "е")
        .replace("\u2013", "-")
        .replace("\u2014", "-")
        .replace("\u00a0", " ")
    )


@dataclass(frozen=True)
class Word:
    text: str  # normalised
    start: int  # offsets in the normalised text
    end: int
    original: str  # as typed (case kept), for proper-noun detection


def tokenize(text: str) -> list[Word]:
    norm = normalize(text)
    return [
        Word(m.group(0), m.start(), m.end(), text[m.start() : m.end()])
        for m in _WORD.finditer(norm)
    ]


def stem_matches(stem: str, word: str) -> bool:
    """A word matches a stem when it, or its dictionary form, starts with it and the ending
    is short ("типам" matches "тип" through its lemma "тип")."""
    if prefix_matches(stem, word):
        return True
    if word[:1] != stem[:1] or not ("а" <= word[:1] <= "я"):
        return False  # lemmas keep the first letter of a Russian word (cheap pre-check)
    base = lemma(word)
    return base != word and prefix_matches(stem, base)


def prefix_matches(stem: str, word: str) -> bool:
    """`word` starts with `stem` and its ending is short enough for the stem's length."""
    if not word.startswith(stem):
        return False
    extra = len(word) - len(stem)
    # short stems are ambiguous; long ones are specific enough for long verb endings
    return extra <= (1 if len(stem) <= 3 else 5 if len(stem) <= 6 else 10)


@lru_cache(maxsize=4096)
def phrase_stems(phrase: str) -> tuple[str, ...]:
    return tuple(w.text for w in tokenize(phrase))


def find_phrase(stems: tuple[str, ...], words: list[Word], used: set[int]) -> int | None:
    """Index of the first word where `stems` match consecutive unused words, else None."""
    n = len(stems)
    if not n:
        return None
    for i in range(len(words) - n + 1):
        if any((i + k) in used for k in range(n)):
            continue
        if all(stem_matches(stems[k], words[i + k].text) for k in range(n)):
            return i
    return None
