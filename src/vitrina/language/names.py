"""Names to searchable stems: 'ТоварыНаСкладах' -> 'товары на складах' -> ('товар', 'склад').

The catalog matches a word when it starts with a stem and the rest is short, so a name
must be cut to its stem to match other grammatical cases ("номенклатура" must match
"номенклатуре"). The cut is deliberately crude: drop one common Russian ending, keep at
least four letters.
"""

from __future__ import annotations

import re

from vitrina.language.stopwords import CONNECTIVES

_CAMEL = re.compile(r"(?<=[a-zа-яё0-9])(?=[A-ZА-ЯЁ])|_")
ENDINGS = sorted(
    (
        "ами",
        "ями",
        "ого",
        "его",
        "ому",
        "ему",
        "ыми",
        "ими",
        "ах",
        "ях",
        "ам",
        "ям",
        "ов",
        "ев",
        "ей",
        "ой",
        "ий",
        "ый",
        "ая",
        "яя",
        "ое",
        "ее",
        "ие",
        "ые",
        "ом",
        "ем",
        "ия",
        "ию",
        "ии",
        "а",
        "я",
        "ы",
        "и",
        "у",
        "ю",
        "е",
        "о",
        "ь",
        "s",
    ),
    key=len,
    reverse=True,
)


def split_name(name: str) -> str:
    """CamelCase and underscores to lower-case words.

    >>> split_name("ТоварыНаСкладах")
    'товары на складах'
    """
    return " ".join(p for p in _CAMEL.split(name) if p).lower().replace("ё", "е")


def stem(word: str) -> str:
    """Drop one common ending, keeping four letters at least.

    >>> stem("номенклатура"), stem("складах"), stem("продажи"), stem("остатки")
    ('номенклатур', 'склад', 'продаж', 'остатк')
    """
    word = word.lower().replace("ё", "е")
    for ending in ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 4:
            return word[: -len(ending)]
    return word


def stems(text: str) -> list[str]:
    """Stems of the meaningful words of a name or a synonym, in order, without repeats."""
    words = re.findall(r"[a-zа-яё0-9]+", split_name(text))
    return list(dict.fromkeys(stem(w) for w in words if w not in CONNECTIVES and len(w) > 1))


def phrase(text: str) -> str:
    """A synonym phrase of stems ('товар склад'): the catalog's stem-phrase format."""
    return " ".join(stems(text))
