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
class Request:
    words: list[str]  # normalised words, in order
    content: set[int]  # indexes of the words that must be explained
    grouping: set[int] = field(
        default_factory=set
    )  # words after "по"/"by": fields to group by, not objects
    values: list[Value] = field(default_factory=list)
    period_words: set[int] = field(default_factory=set)


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
    words = [w.text for w in tokenize(text)]
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
    req.grouping = {
        i + 1 for i, w in enumerate(words[:-1]) if w in ("по", "by") and i + 1 in content
    }
    nouns = _model_words(config, words, content)
    req.values = [v for v in _values(config, words, content) if not v.words <= nouns]
    return req


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
