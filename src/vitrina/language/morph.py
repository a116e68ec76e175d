"""Russian morphology by a real analyser: pymorphy3 with its Russian dictionaries.

The dictionaries ship inside the `pymorphy3-dicts-ru` wheel (nothing is downloaded at run time)
and load on first use only; the lemmas they gave are kept on disk for later processes
(`vitrina.language.lemma_cache`). Two uses: a question word whose inflected form
is too far from a catalog stem ("типам" for the stem "тип", "людей" for "человек") matches
through its lemma, and words shown back to a user (a refusal naming what the warehouse does
not hold) are put in their dictionary form instead of a bare stem ("ипотека", not "ипотек").
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache
from typing import Any

from vitrina.language import lemma_cache

log = logging.getLogger(__name__)
_CYRILLIC = re.compile(r"^[а-яё]+$")


@lru_cache(maxsize=1)
def _analyzer() -> Any:
    try:
        import pymorphy3
    except ImportError:  # a broken install: matching falls back to stems alone, loudly
        log.warning("pymorphy3 is not installed: Russian words match catalog stems only")
        return None
    return pymorphy3.MorphAnalyzer()


@lru_cache(maxsize=65536)
def lemma(word: str) -> str:
    """The dictionary form of a lower-case Russian word (ё as е); other words unchanged.

    >>> lemma("типам"), lemma("кошельков"), lemma("wallets")
    ('тип', 'кошелек', 'wallets')
    """
    if not _CYRILLIC.match(word):
        return word
    known = lemma_cache.cached(word)
    if known is not None:
        return known
    analyzer = _analyzer()
    if analyzer is None:
        return word
    parses = analyzer.parse(word)
    found = parses[0].normal_form.replace("ё", "е") if parses else word
    lemma_cache.remember(word, found)
    return found


def dictionary_form(phrase: str) -> str:
    """Each Russian word of `phrase` in its dictionary form, for text shown to a user.

    >>> dictionary_form("ипотек"), dictionary_form("курс доллар")
    ('ипотека', 'курс доллар')
    """
    return " ".join(lemma(w) for w in phrase.split())
