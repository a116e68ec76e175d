"""Numeric comparisons in a question: "больше 10 000 рублей", "older than 60", "at least 5".

Only the words are read here (the comparator, the number, a unit word after it); which
column or metric the number is compared with is the ask planner's business. A number whose
writing is ambiguous ("10,000": ten thousand or ten?) is not read, so it stays unexplained
and the question is not answered rather than answered with a guessed bound.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vitrina.language.text import Word, stem_matches

# comparator phrases (as tokens) -> operator; longest first when several start at one word
COMPARATORS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("не", "менее"), ">="),
    (("не", "меньше"), ">="),
    (("не", "более"), "<="),
    (("не", "больше"), "<="),
    (("не", "старше"), "<="),
    (("не", "младше"), ">="),
    (("at", "least"), ">="),
    (("at", "most"), "<="),
    (("no", "less", "than"), ">="),
    (("no", "more", "than"), "<="),
    (("no", "fewer", "than"), ">="),
    (("more", "than"), ">"),
    (("greater", "than"), ">"),
    (("larger", "than"), ">"),
    (("bigger", "than"), ">"),
    (("higher", "than"), ">"),
    (("older", "than"), ">"),
    (("less", "than"), "<"),
    (("fewer", "than"), "<"),
    (("lower", "than"), "<"),
    (("smaller", "than"), "<"),
    (("younger", "than"), "<"),
    (("больше", "чем"), ">"),
    (("меньше", "чем"), "<"),
    (("больше",), ">"),
    (("более",), ">"),
    (("свыше",), ">"),
    (("выше",), ">"),
    (("старше",), ">"),
    (("дороже",), ">"),
    (("over",), ">"),
    (("above",), ">"),
    (("exceeding",), ">"),
    (("меньше",), "<"),
    (("менее",), "<"),
    (("ниже",), "<"),
    (("младше",), "<"),
    (("дешевле",), "<"),
    (("under",), "<"),
    (("below",), "<"),
)
AGE_COMPARATORS = {"старше", "младше", "older", "younger"}  # they say the unit: years
# "N or more", "N и более": the comparator after the number
TRAILING: tuple[tuple[tuple[str, ...], str], ...] = (
    (("or", "more"), ">="),
    (("or", "less"), "<="),
    (("or", "fewer"), "<="),
    (("и", "более"), ">="),
    (("и", "больше"), ">="),
    (("и", "менее"), "<="),
    (("и", "меньше"), "<="),
)
# unit words after a number -> the unit a catalog column declares (`unit:` on a column)
UNIT_STEMS: dict[str, tuple[str, ...]] = {
    "RUB": ("руб", "рубл", "rub", "rubles", "roubles"),
    "USD": ("доллар", "dollar", "dollars", "usd"),
    "EUR": ("евро", "euro", "euros", "eur"),
    "years": ("лет", "год", "года", "years", "year", "yo"),
    "days": ("дн", "дней", "день", "days", "day"),
    "minutes": ("минут", "minutes", "min", "mins"),
    "seconds": ("секунд", "seconds", "sec", "secs"),
}
_THAN = {"чем", "than"}


@dataclass(frozen=True)
class NumberComparison:
    """ "больше 10 000 рублей": op '>', value 10000, unit 'RUB', the words it covers."""

    op: str  # > >= < <=
    value: float
    start: int  # first word (the comparator)
    number_start: int  # first word of the number
    end: int  # one past the last word read (number and unit)
    unit: str | None = None  # from the unit word, or "years" for "старше"
    comparator: str = ""

    @property
    def words(self) -> set[int]:
        return set(range(self.start, self.end))

    def text(self) -> str:
        value = int(self.value) if self.value == int(self.value) else self.value
        return f"{self.op} {value}"


_DIGITS = re.compile(r"^\d+$")


def _number(words: list[Word], i: int, text: str) -> tuple[float, int] | None:
    """The number starting at word i and the index after it; None when none or ambiguous."""
    if i >= len(words) or not _DIGITS.match(words[i].text):
        return None
    digits, j = words[i].text, i + 1
    while j < len(words) and _DIGITS.match(words[j].text):
        gap = text[words[j - 1].end : words[j].start]
        if gap in (" ", "\u00a0", "\u202f") and len(words[j].text) == 3:
            digits += words[j].text  # "10 000"
        elif gap == "." or (gap == "," and len(words[j].text) != 3):
            return float(f"{digits}.{words[j].text}"), j + 1
        elif gap == ",":
            return None  # "10,000": thousands or a decimal comma, not guessed
        else:
            break
        j += 1
    return float(digits), j


def _phrase_at(words: list[Word], i: int, phrase: tuple[str, ...]) -> bool:
    return i + len(phrase) <= len(words) and all(
        words[i + k].text == phrase[k] for k in range(len(phrase))
    )


def unit_at(words: list[Word], i: int) -> str | None:
    """The unit a word names ("рублей" -> RUB), or None."""
    if i >= len(words):
        return None
    for unit, stems in UNIT_STEMS.items():
        if any(stem_matches(s, words[i].text) for s in stems):
            return unit
    return None


def find_comparisons(words: list[Word], text: str, used: set[int]) -> list[NumberComparison]:
    """Every "comparator number [unit]" (or "number [unit] or more") among unused words."""
    found: list[NumberComparison] = []
    taken: set[int] = set(used)
    for i in range(len(words)):
        if i in taken:
            continue
        for phrase, op in COMPARATORS:
            if not _phrase_at(words, i, phrase):
                continue
            j = i + len(phrase)
            if j < len(words) and words[j].text in _THAN:
                j += 1
            number = _number(words, j, text)
            if number is None:
                break
            value, after = number
            unit = unit_at(words, after)
            end = after + (1 if unit else 0)
            if unit is None and any(word in AGE_COMPARATORS for word in phrase):
                unit = "years"
            span = set(range(i, end))
            if span & taken:
                break
            found.append(NumberComparison(op, value, i, j, end, unit, " ".join(phrase)))
            taken |= span
            break
    for i in range(len(words)):
        if i in taken:
            continue
        number = _number(words, i, text)
        if number is None:
            continue
        value, after = number
        unit = unit_at(words, after)
        k = after + (1 if unit else 0)
        for phrase, op in TRAILING:
            if _phrase_at(words, k, phrase):
                span = set(range(i, k + len(phrase)))
                if not span & taken:
                    found.append(
                        NumberComparison(op, value, i, i, k + len(phrase), unit, " ".join(phrase))
                    )
                    taken |= span
                break
    return sorted(found, key=lambda c: c.start)
