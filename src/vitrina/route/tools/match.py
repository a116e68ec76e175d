"""Word matching shared by the analyst's tools: a request's words against stems and labels."""

from __future__ import annotations

from vitrina.language.names import stems
from vitrina.language.stopwords import SEARCH_NOISE
from vitrina.language.text import stem_matches, tokenize


def request_words(text: str) -> list[str]:
    """Meaningful words of a request, normalised (ё -> е, lower case)."""
    return [
        w.text
        for w in tokenize(text)
        if w.text not in SEARCH_NOISE and len(w.text) > 1 and not w.text.isdigit()
    ]


def phrase_hits(
    phrase_stems: list[str] | tuple[str, ...], words: list[str], *, loose: bool = False
) -> int:
    """How many stems of a phrase match a word of the request (all must, else 0).

    `loose` compares only the first four letters: a last resort for unusual endings.
    """
    if not phrase_stems:
        return 0
    for s in phrase_stems:
        probe = s[:4] if loose and len(s) > 4 else s
        if not any(stem_matches(probe, w) or (loose and w.startswith(probe)) for w in words):
            return 0
    return len(phrase_stems)


def text_stems(text: str) -> list[str]:
    return stems(text)
