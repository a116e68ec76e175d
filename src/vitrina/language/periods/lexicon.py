"""Words and regex fragments the period matchers are built from.

Every word form is listed explicitly (no loose stems), so "май" never matches inside
"майка" and "мар" never eats "марка": a form must be a whole word. Patterns are
applied with ``re.IGNORECASE`` to the original text, so spans stay exact substrings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Russian month forms: nominative (used in labels), genitive ("1 мая"), prepositional
# ("в мае"), dative, instrumental. Abbreviations are listed apart: they may carry a dot.
_RU_SOFT = ("ь", "я", "е", "ю", "ём", "ем")  # январь, января, январе, январю, январём
_RU_HARD = ("", "а", "е", "у", "ом")  # март, марта, марте, марту, мартом
MONTHS_RU: dict[int, tuple[str, ...]] = {
    1: tuple("январ" + s for s in _RU_SOFT),
    2: tuple("феврал" + s for s in _RU_SOFT),
    3: tuple("март" + s for s in _RU_HARD),
    4: tuple("апрел" + s for s in _RU_SOFT),
    5: ("май", "мая", "мае", "маю", "маем"),
    6: tuple("июн" + s for s in _RU_SOFT),
    7: tuple("июл" + s for s in _RU_SOFT),
    8: tuple("август" + s for s in _RU_HARD),
    9: tuple("сентябр" + s for s in _RU_SOFT),
    10: tuple("октябр" + s for s in _RU_SOFT),
    11: tuple("ноябр" + s for s in _RU_SOFT),
    12: tuple("декабр" + s for s in _RU_SOFT),
}
MONTHS_EN: dict[int, tuple[str, ...]] = {
    1: ("january",), 2: ("february",), 3: ("march",), 4: ("april",), 5: ("may",),
    6: ("june",), 7: ("july",), 8: ("august",), 9: ("september",), 10: ("october",),
    11: ("november",), 12: ("december",),
}  # fmt: skip
ABBREVIATIONS: dict[int, tuple[str, ...]] = {
    1: ("янв", "jan"), 2: ("фев", "февр", "feb"), 3: ("мар", "mar"), 4: ("апр", "apr"),
    5: (), 6: ("июн", "jun"), 7: ("июл", "jul"), 8: ("авг", "aug"),
    9: ("сен", "сент", "sep", "sept"), 10: ("окт", "oct"), 11: ("ноя", "нояб", "nov"),
    12: ("дек", "dec"),
}  # fmt: skip
MONTH_NAME_RU = {m: forms[0] for m, forms in MONTHS_RU.items()}  # "май"
MONTH_NAME_EN = {m: forms[0].capitalize() for m, forms in MONTHS_EN.items()}  # "May"

MONTH_BY_WORD: dict[str, int] = {
    form: m
    for table in (MONTHS_RU, MONTHS_EN, ABBREVIATIONS)
    for m, forms in table.items()
    for form in forms
}


def month_number(word: str) -> int:
    """ "мае" -> 5, "Sept." -> 9."""
    return MONTH_BY_WORD[word.lower().rstrip(".")]


def _alternation(words: Iterable[str]) -> str:
    """Longest first, so "марта" wins over "мар" at the same position."""
    return "|".join(sorted({re.escape(w) for w in words}, key=len, reverse=True))


def trie_pattern(words: Iterable[str]) -> str:
    """One regex for many words, shared prefixes factored out, so a failing position
    costs a character or two instead of a try per word (extract_period stays fast).

    >>> trie_pattern(["мар", "марта", "май"])
    'ма(?:р(?:та)?|й)'
    """
    trie: dict[str, dict] = {}
    for word in words:
        node = trie
        for ch in word.lower():
            node = node.setdefault(ch, {})
        node[""] = {}

    def render(node: dict[str, dict]) -> str:
        ends = "" in node
        branches = [re.escape(ch) + render(child) for ch, child in node.items() if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        if ends:
            body = f"(?:{body})?" if len(branches) > 1 or len(body) > 1 else f"{body}?"
        return body

    return render(trie)


def _month_pattern(words: Iterable[str]) -> str:
    # \b first: the trie is not even entered in the middle of a word.
    return rf"\b{trie_pattern(words)}(?!\w)\.?"


def _forms(table: dict[int, tuple[str, ...]]) -> list[str]:
    return [form for forms in table.values() for form in forms]


# Any month word: "май", "мае", "May", "Sept."
MONTH = _month_pattern(MONTH_BY_WORD)
# The month after a day number: Russian genitive only ("1 марта", never "10 май" as in
# "топ 10 май 2025"), English full names and all abbreviations.
MONTH_AFTER_DAY = _month_pattern(
    [forms[1] for forms in MONTHS_RU.values()] + _forms(MONTHS_EN) + _forms(ABBREVIATIONS)
)
# English months only, for "March 1": "в мае 15 клиентов" must not become 15 May.
MONTH_EN = _month_pattern([f for f in _forms(MONTHS_EN) + _forms(ABBREVIATIONS) if f.isascii()])

# Numbers written as words, for "последние две недели" / "last three months".
NUMBER_WORDS: dict[str, int] = {
    "один": 1, "одну": 1, "одна": 1, "одного": 1, "one": 1,
    "два": 2, "две": 2, "двух": 2, "two": 2,
    "три": 3, "трёх": 3, "трех": 3, "three": 3,
    "четыре": 4, "четырёх": 4, "четырех": 4, "four": 4,
    "пять": 5, "пяти": 5, "five": 5,
    "шесть": 6, "шести": 6, "six": 6,
    "семь": 7, "семи": 7, "seven": 7,
    "восемь": 8, "восьми": 8, "eight": 8,
    "девять": 9, "девяти": 9, "nine": 9,
    "десять": 10, "десяти": 10, "ten": 10,
    "двенадцать": 12, "двенадцати": 12, "twelve": 12,
    "тридцать": 30, "тридцати": 30, "thirty": 30,
}  # fmt: skip
NUMBER = rf"(?:(?<![\d.,])\d{{1,3}}(?!\d)(?![.,]\d)|\b(?:{_alternation(NUMBER_WORDS)})\b)"

# Unit words of a rolling window ("последние 3 месяца", "last 2 weeks"), by unit.
UNIT_WORDS: dict[str, tuple[str, ...]] = {
    "day": ("день", "дня", "дней", "дни", "сутки", "суток", "day", "days"),
    "week": ("неделя", "неделю", "недели", "недель", "неделе", "week", "weeks"),
    "month": ("месяц", "месяца", "месяцев", "месяцы", "month", "months"),
    "quarter": ("квартал", "квартала", "кварталов", "quarter", "quarters"),
    "half": ("полгода", "полугодие", "полугодия", "half-year", "half year"),
    "year": ("год", "года", "лет", "year", "years"),
}
UNIT_BY_WORD = {w: unit for unit, words in UNIT_WORDS.items() for w in words}
UNIT = rf"(?:{_alternation(UNIT_BY_WORD)})\b"

# A four-digit year; the 1990..2100 range is checked in code (see calendar.year_ok).
YEAR = r"(?<![\d.,])(?:19|20|21)\d\d(?!\d)(?![.,]\d)"
# "2025 года", "2025-й год", "2025 г.", "2023-2024 гг.", "2024 year"
YEAR_WORD = (
    r"(?:(?:-?(?:й|м|го))?\s*(?:годы|годах|годов|года|году|годом|год|гг\.?|г\.?(?!\w))|\s+year\b)"
)

# A preposition kept in the span, so strip_period() leaves no "в" behind.
PREP = r"(?:(?:в|во|за|на|in|for|during|over|on|of|within)\s+(?:the\s+)?)"

# Ordinal words for quarters and halves, any case/gender: "первый", "первом", "1-й", "I".
ORDINALS: dict[str, int] = {
    "перв": 1, "втор": 2, "трет": 3, "четверт": 4, "четвёрт": 4,
    "first": 1, "second": 2, "third": 3, "fourth": 4,
    "1st": 1, "2nd": 2, "3rd": 3, "4th": 4,
    "i": 1, "ii": 2, "iii": 3, "iv": 4,
    "1": 1, "2": 2, "3": 3, "4": 4,
}  # fmt: skip
ORDINAL_RU_WORD = (
    r"(?:перв|втор|трет|четв[её]рт)(?:ый|ий|ой|ого|ому|ом|ым|ая|ую|ое|ье|ьего|ьем|ьему|ьим|ья|ью)"
)
# An ordinal before "квартал"/"полугодие"/"quarter": a word, a Roman numeral, or a digit
# with an optional Russian ending ("1-й", "2-м", "3кв").
ORDINAL = (
    rf"(?:\b(?:{ORDINAL_RU_WORD}|first|second|third|fourth|1st|2nd|3rd|4th|iv|iii|ii|i)(?!\w)"
    r"|(?<![\d.,])[1-4](?:-?(?:й|го|м|ом|е|ое|ый))?(?!\d))"
)


def ordinal_value(word: str) -> int:
    """The number an ordinal word stands for: "первом" -> 1, "III" -> 3, "2-й" -> 2.

    >>> ordinal_value("четвёртом"), ordinal_value("IV"), ordinal_value("1-м")
    (4, 4, 1)
    """
    w = word.lower()
    if w in ORDINALS:
        return ORDINALS[w]
    if w[0].isdigit():
        return int(w[0])
    for stem, value in ORDINALS.items():
        if len(stem) > 3 and w.startswith(stem):
            return value
    raise ValueError(word)


def number_value(word: str) -> int:
    """ "30" -> 30, "две" -> 2, "three" -> 3."""
    return int(word) if word.isdigit() else NUMBER_WORDS[word.lower()]
