"""A 1C request read against a configuration: which words name objects, fields and values.

Every word of the request is either explained (it names the object, a field, a value, the
period, the kind of table) or not; what each candidate explains is its evidence, and what it
leaves unexplained is shown. Values are the configuration's own constants: enum values
("В работе" -> Перечисление.СтатусыЗаказов.ВРаботе) and predefined items ("Основной склад"
-> Справочник.Склады.ОсновнойСклад), found by their names and descriptions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from vitrina.language.names import stem, stems
from vitrina.language.stopwords import CONNECTIVES as STOP
from vitrina.language.text import stem_matches, tokenize
from vitrina.onec import KINDS, Configuration, MetaField, MetaObject, expand

# words that say what kind of answer is wanted, not what it is about
KIND_WORDS = (
    "остатк",
    "остаток",
    "наличи",
    "оборот",
    "движени",
    "приход",
    "расход",
    "список",
    "перечен",
    "отчет",
    "сформир",
    "построй",
    "покажи",
    "выведи",
    "какие",
    "какой",
    "сколько",
    "сумм",
    "итог",
    "balance",
    "turnover",
    "list",
    "report",
    "show",
    "receipt",
    "issue",
    "all",
    "все",
    "всех",
    "месяц",
    "месяцам",
    "недел",
    "квартал",
    "год",
    "дням",
    "день",
    "month",
    "week",
    "quarter",
    "year",
    "daily",
    "monthly",
    "регистр",
    "register",
    "movement",
    "record",
    "запис",
    "начальн",
    "конечн",
    "opening",
    "closing",
    "catalog",
    "document",
    "документ",
    "справочник",
)


@dataclass
class Value:
    """A constant of the configuration the request names."""

    owner: MetaObject  # the enum or the catalog
    item: MetaField
    words: set[int]  # indexes of the request words it uses

    @property
    def expression(self) -> str:
        return f"ЗНАЧЕНИЕ({self.owner.ru_name}.{self.item.name})"

    @property
    def says(self) -> str:
        return f"{self.item.synonym('ru')} ({self.owner.ru_name}.{self.item.name})"

    @property
    def type_ref(self) -> str:
        return self.owner.full_name  # 'Catalog.Склады', the target of a field's reference type


@dataclass
class NamedItem:
    """A catalog item the request names that the configuration does not predefine ("покупателю
    Ромашка", "на складе «Main»"): a filter by its name on the field the noun before it names."""

    noun: int  # index of the word that names the field ("складе")
    words: set[int]  # indexes of the name's words
    name: str  # the name as typed


@dataclass
class Request:
    words: list[str]  # normalised words, in order
    content: set[int]  # indexes of the words that must be explained
    grouping: set[int] = field(
        default_factory=set
    )  # words after "по"/"by": fields to group by, not objects
    values: list[Value] = field(default_factory=list)
    period_words: set[int] = field(default_factory=set)
    items: list[NamedItem] = field(default_factory=list)
    exact: set[int] = field(default_factory=set)  # words that are an object's exact name


def _labels(name: str, synonyms: dict[str, str]) -> list[list[str]]:
    out = [stems(name), *(stems(s) for s in synonyms.values())]
    return [s for s in out if s]


def _word_matches(label_stem: str, word: str, direct: bool = False) -> bool:
    ws = stem(word)
    if stem_matches(label_stem, word) or ws == label_stem:
        return True
    return not direct and (
        label_stem in expand(ws) or any(stem_matches(label_stem, e) for e in expand(ws))
    )


def label_hits(
    name: str, synonyms: dict[str, str], words: list[str], allowed: set[int], direct: bool = False
) -> tuple[float, set[int]]:
    """The best share of a label's stems the request names, and the words that name them
    (`direct`: by the words themselves, not through `vocabulary`)."""
    best: tuple[float, set[int]] = (0.0, set())
    low = name.lower()
    exact = {i for i in allowed if words[i] == low}
    if exact:
        return 1.0, exact
    for label in _labels(name, synonyms):
        used = {i for s in label for i in allowed if _word_matches(s, words[i], direct)}
        named = sum(any(_word_matches(s, words[i], direct) for i in used) for s in label)
        share = named / len(label)
        if share > best[0] or (share == best[0] and len(used) > len(best[1])):
            best = (share, used)
    return best


def field_hits(
    f: MetaField, config: Configuration, words: list[str], allowed: set[int]
) -> tuple[float, set[int]]:
    """A field is named by its own labels or by the object its reference type points to
    ("по контрагентам" names Покупатель, typed Справочник.Контрагенты)."""
    share, used = label_hits(f.name, f.synonyms, words, allowed)
    target = config.objects.get(f.ref_target or "")
    if share < 1.0 and target is not None:
        t_share, t_used = label_hits(target.name, target.synonyms, words, allowed)
        if t_share > share:
            share, used = t_share, t_used
    return share, used


def _values(config: Configuration, words: list[str], allowed: set[int]) -> list[Value]:
    out: list[Value] = []
    for owner in config.objects.values():
        for item in (*owner.enum_values, *owner.predefined):
            for label in _labels(item.name, item.synonyms):
                used: set[int] = set()
                for s in label:
                    hit = next(
                        (
                            i
                            for i in sorted(allowed)
                            if stem_matches(s, words[i]) or stem(words[i]) == s
                        ),
                        None,
                    )
                    if hit is None:
                        break
                    used.add(hit)
                else:
                    out.append(Value(owner, item, used))
                    break
    # a longer value wins over one inside it ("Склад брака" over a value named "Склад")
    out.sort(key=lambda v: -len(v.words))
    kept: list[Value] = []
    for v in out:
        if not any(v.words < k.words for k in kept):
            kept.append(v)
    return kept


def read(text: str, config: Configuration, period_span: str = "") -> Request:
    """The request's words, which of them are content, and the values it names."""
    tokens = tokenize(text)
    words = [w.text for w in tokens]
    period = {w.text for w in tokenize(period_span)} if period_span else set()
    names = {o.name.lower() for o in config.objects.values()}
    content = {
        i
        for i, w in enumerate(words)
        if w not in STOP
        and len(w) > 1
        and not w.isdigit()
        and w not in period
        and not _table_word(w, names)
        and not re.fullmatch(r"[\d.]+", w)
    }
    req = Request(
        words=words, content=content, period_words={i for i, w in enumerate(words) if w in period}
    )
    req.exact = {i for i in content if words[i] in names}
    req.grouping = {
        i + 1 for i, w in enumerate(words[:-1]) if w in ("по", "by") and i + 1 in content
    }
    nouns = _model_words(config, words, content)
    req.values = [v for v in _values(config, words, content) if not v.words <= nouns]
    valued = set().union(set(), *(v.words for v in req.values))
    req.items = _named_items(text, tokens, config, req, nouns | valued)
    # a typed name is free text any object with such a field takes: evidence for none
    req.content -= set().union(set(), *(i.words for i in req.items))
    return req


QUOTES = "«\"'“„"
CLOSING = "»\"'”“"


def _names_field(config: Configuration, words: list[str], i: int) -> bool:
    return any(
        field_hits(f, config, words, {i})[0] >= 1.0
        for o in config.objects.values()
        for f in (*o.dimensions, *o.attributes)
    )


def _span(text: str, tokens: list[Any], j: int, quoted: bool) -> list[int]:
    """The words of one name: to the closing quote, or capitalised words joined by hyphens."""
    span = [j]
    while span[-1] + 1 < len(tokens):
        nxt = tokens[span[-1] + 1]
        joined = text[tokens[span[-1]].end : nxt.start]
        inside = quoted and not any(c in CLOSING for c in joined)
        if not (inside or (not quoted and joined == "-" and nxt.original[:1].isupper())):
            break
        span.append(span[-1] + 1)
    return span


def _named_items(
    text: str, tokens: list[Any], config: Configuration, req: Request, taken: set[int]
) -> list[NamedItem]:
    """Names typed after a noun that names a field: capitalised ("покупателю Ромашка") or
    quoted ("на складе «Main»"), not a name of the configuration, not part of the period."""
    out: list[NamedItem] = []
    used: set[int] = set()
    for i in range(len(tokens) - 1):
        j = i + 1
        tok = tokens[j]
        quoted = tok.start > 0 and text[tok.start - 1] in QUOTES
        if i not in req.content or i in used or j in req.period_words or tok.text.isdigit():
            continue
        if not (quoted or tok.original[:1].isupper()) or (j in taken and not quoted):
            continue
        if not _names_field(config, req.words, i):
            continue
        span = _span(text, tokens, j, quoted)
        name = text[tokens[span[0]].start : tokens[span[-1]].end]
        out.append(NamedItem(noun=i, words=set(span), name=name))
        used |= set(span)
    return out


def _table_word(word: str, names: set[str]) -> bool:
    """A word that says the kind of answer ("остатки", "регистра"), not a name: an object named
    like a table word ("РегистрНакопления1", "Документ2") keeps its name (issue 33)."""
    if word in names or any(ch.isdigit() for ch in word):
        return False
    return any(word.startswith(k) for k in KIND_WORDS)


def _model_words(config: Configuration, words: list[str], allowed: set[int]) -> set[int]:
    """Words that name an object or a field: a value named only by such words ("товар" is also
    Номенклатура) is not taken as a filter."""
    out: set[int] = set()
    for obj in config.objects.values():
        for name, synonyms in [
            (obj.name, obj.synonyms),
            *((f.name, f.synonyms) for f in (*obj.dimensions, *obj.resources, *obj.attributes)),
        ]:
            share, used = label_hits(name, synonyms, words, allowed - out)
            if share > 0:
                out |= used
    return out


def kind_label(obj: MetaObject) -> str:
    return KINDS[obj.kind].ru
