"""Which words the rules could not place does a model's SQL carry, and which of its extra
conditions does a word explain? (`vitrina.query.meaning` refuses on what is left.)

A word is carried by the query when it is
- a number that is a literal of the query, in the same or a usual other unit (5 minutes as
  300000 ms), or a year counted from it (60 years: a birth year);
- a comparison word ("старше", "more than") and the query compares with a number;
- a stem of a name the query uses (a table, a column), of the catalog's words for them
  (synonyms, labels, description), of a literal, or of the dictionary's words for a value;
- a Russian verb or participle (the event the metric counts: "появилось", "продано");
- a verb of the event of a table the query reads: a `verbs:` stem of a metric on that
  table, or the event verbs `catalog init` drafts from the table's name ("placed" for
  orders, "paid" for payments: `language.verbs.TABLE_VERBS`);
- a time unit ("month", "месяце") by a bucket of that grain in a GROUP BY, or by a number
  compared (a duration: "старше 60 лет"); never by any number (LIMIT 1 is no month).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlglot import exp

from vitrina.catalog import Catalog
from vitrina.language.periods.grain import Grain
from vitrina.language.text import phrase_stems, stem_matches
from vitrina.language.verbs import draft_verbs
from vitrina.sql.checks import groups_by_grain

COMPARISON_WORDS = frozenset(
    [
        "старше",
        "младше",
        "больше",
        "меньше",
        "более",
        "менее",
        "выше",
        "ниже",
        "свыше",
        "дороже",
        "дешевле",
        "длиннее",
        "короче",
        "превышает",
        "превышающие",
        "over",
        "above",
        "more",
        "less",
        "older",
        "younger",
        "under",
        "below",
        "least",
        "most",
        "longer",
        "shorter",
        "greater",
        "fewer",
        "exceeding",
    ]
)
# units of a number the query carries ("старше 60 лет", "longer than 5 minutes")
UNIT_WORDS = frozenset(
    [
        "лет",
        "года",
        "год",
        "месяцев",
        "месяца",
        "дней",
        "дня",
        "часов",
        "часа",
        "минут",
        "минуты",
        "секунд",
        "рублей",
        "рубля",
        "долларов",
        "доллара",
        "евро",
        "штук",
        "years",
        "year",
        "months",
        "month",
        "days",
        "day",
        "hours",
        "hour",
        "minutes",
        "minute",
        "seconds",
        "second",
        "dollars",
        "dollar",
        "rubles",
        "euros",
    ]
)
# "в среднем на одного клиента", "average per customer": an AVG or a division carries them
AVERAGE_WORDS = ("средн", "average", "mean", "avg")
PER_WORDS = frozenset(
    {"один", "одного", "одну", "одна", "одном", "каждого", "каждый", "каждую", "каждом"}
    | {"each", "every", "per"}
)
# a listing ("список регионов и их названий") is carried by columns shown outside aggregates;
# "без дубликатов" by DISTINCT or GROUP BY; "без", "without" only lead the word that counts
LISTING_STEMS = ("спис", "перечен", "перечисл", "назван", "наименов", "list", "name")
DISTINCT_STEMS = ("дубл", "повтор", "уникал", "distinct", "unique", "duplicat")
LEADING_WORDS = frozenset({"без", "кроме", "исключая", "without", "except", "excluding"})
# numbers in words ("с двумя и более картами", "more than two"), by lemma
NUMBER_WORDS = {
    **dict.fromkeys(("один", "one"), 1.0),
    **dict.fromkeys(("два", "две", "two", "twice"), 2.0),
    **dict.fromkeys(("три", "three"), 3.0),
    **dict.fromkeys(("четыре", "four"), 4.0),
    **dict.fromkeys(("пять", "five"), 5.0),
    **dict.fromkeys(("десять", "ten"), 10.0),
}
# time units that are also a grain: "which month", "в каком месяце" ask for a bucket
GRAIN_STEMS: dict[str, tuple[str, ...]] = {
    "month": ("month", "месяц", "месячн"),
    "quarter": ("quarter", "квартал"),
    "week": ("week", "недел"),
    "year": ("year", "annual", "годов", "годам", "годах"),
}
GRAIN_WORDS: dict[str, frozenset[str]] = {
    "day": frozenset(
        {"day", "days", "daily", "день", "дня", "дню", "днем", "днём", "дни", "дней", "дням"}
    ),
    "year": frozenset({"год", "года", "году", "годом", "годы", "лет"}),
}
UNIT_FACTORS = (1, 60, 100, 1000, 3600, 60_000, 86_400, 1_000_000)
VERB_TAGS = frozenset({"VERB", "INFN", "PRTF", "PRTS", "GRND"})
_SPLIT = re.compile(r"[^0-9a-zа-яё]+")


def _stem(word: str) -> str:
    word = word.lower().replace("ё", "е")
    return word[: max(4, len(word) - 3)] if len(word) > 4 else word


@dataclass
class QueryWords:
    """The words a query's names, literals and their catalog entries give."""

    words: set[str]
    numbers: set[float]
    compares: bool
    averages: bool = False  # an AVG, or a division of aggregates
    lists: bool = False  # columns shown outside aggregates
    distinct: bool = False  # DISTINCT or GROUP BY
    verbs: tuple[str, ...] = ()  # event verb stems of the tables read
    grains: frozenset[str] = frozenset()  # grains some GROUP BY buckets a date by
    compared_numbers: bool = False  # a column compared with a number (a duration)

    def _has_number(self, value: float) -> bool:
        """The number as a literal, in a usual other unit, or a year counted from it."""
        return any(value * f in self.numbers for f in UNIT_FACTORS) or any(
            1900 <= n <= 2100 for n in self.numbers
        )

    def carries(self, word: str) -> bool:
        """Whether the query carries the word: the first rule that has a say decides (a
        number, a time unit, a word of the query's shape), else the names the query uses."""
        low = word.lower().replace(" ", "")
        for rule in (self._number_says, self._grain_says, self._shape_says):
            said = rule(low)
            if said is not None:
                return said
        return self._named(low)

    def _number_says(self, low: str) -> bool | None:
        """A number in digits is carried only as a number; a spelled one ("пять") when the
        query holds it, else the other rules decide."""
        if low.replace(".", "", 1).isdigit():
            return self._has_number(float(low))
        spelled = NUMBER_WORDS.get(_lemma(low))
        if spelled is not None and self._has_number(spelled):
            return True
        return None

    def _grain_says(self, low: str) -> bool | None:
        """A time unit: by a bucket of its grain, or by a number compared (a duration)."""
        grain = grain_of_word(low)
        if grain is None:
            return None
        return grain in self.grains or self.compared_numbers

    def _shape_says(self, low: str) -> bool | None:
        """Words the query's shape carries: comparisons, leading words, listing, distinct,
        averages and units (and any word under three letters)."""
        if low in COMPARISON_WORDS:
            return self.compares
        if low in LEADING_WORDS:
            return True
        if low.startswith(LISTING_STEMS) and self.lists:
            return True
        if low.startswith(DISTINCT_STEMS):
            return self.distinct
        if low in PER_WORDS or low.startswith(AVERAGE_WORDS):
            return self.averages
        if low in UNIT_WORDS or len(low) < 3:
            return bool(self.numbers) or len(low) < 3
        return None

    def _named(self, low: str) -> bool:
        """An event verb of a table read, a stem of a name the query uses, or a verb."""
        if any(stem_matches(v, low) for v in self.verbs):
            return True
        stem = _stem(low)
        return any(
            stem in w or (len(w) >= 4 and w in stem) for w in self.words if len(stem) >= 3
        ) or _is_verb(low)


def grain_of_word(word: str) -> str | None:
    """The grain a time-unit word names ("месяце": month), else None."""
    if word.startswith(("weekend", "weekday")):
        return None  # a kind of day, not a bucket
    for grain, words in GRAIN_WORDS.items():
        if word in words:
            return grain
    return next((g for g, stems in GRAIN_STEMS.items() if word.startswith(stems)), None)


def _lemma(word: str) -> str:
    from vitrina.language.morph import lemma

    return lemma(word)


def _is_verb(word: str) -> bool:
    from vitrina.language.morph import _analyzer

    if not re.match(r"^[а-яё]+$", word):
        return False
    analyzer = _analyzer()
    if analyzer is None:
        return False
    parses = analyzer.parse(word)
    return bool(parses) and parses[0].tag.POS in VERB_TAGS


def _text_words(*texts: str | None) -> set[str]:
    return {w for t in texts if t for w in _SPLIT.split(t.lower().replace("ё", "е")) if w}


def query_words(tree: exp.Expr, catalog: Catalog) -> QueryWords:
    tables = {t.name.lower() for t in tree.find_all(exp.Table)}
    columns = {c.name.lower() for c in tree.find_all(exp.Column)}
    words = _text_words(*tables, *columns)
    for name, table in catalog.tables.items():
        if name.rsplit(".", 1)[-1] not in tables:
            continue
        words |= _text_words(table.description, table.description_ru, *table.synonyms)
        for col in table.columns:
            if col.name.lower() in columns:
                words |= _text_words(col.label_ru, col.label_en, col.description, *col.synonyms)
    literals = [lit.this for lit in tree.find_all(exp.Literal)]
    words |= _text_words(*[lit for lit in literals if not _number(lit)])
    for dictionary in catalog.dictionaries.values():
        for value in dictionary.values:
            if value.value in literals:
                words |= _text_words(*value.synonyms, value.label_ru, value.label_en)
    numbers = {n for lit in literals if (n := _number(lit)) is not None}
    compares = any(
        _numeric(node.expression) or _numeric(node.this)
        for node in tree.find_all(exp.GT, exp.GTE, exp.LT, exp.LTE)
    )
    averages = tree.find(exp.Avg) is not None or any(
        d.this.find(exp.AggFunc) and d.expression.find(exp.AggFunc) for d in tree.find_all(exp.Div)
    )
    outer = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    lists = outer is not None and any(
        not p.find(exp.AggFunc) and p.find(exp.Column) for p in outer.expressions
    )
    distinct = tree.find(exp.Distinct) is not None or tree.find(exp.Group) is not None
    return QueryWords(
        words,
        numbers,
        compares or tree.find(exp.Having) is not None,
        averages,
        lists=lists,
        distinct=distinct,
        verbs=event_verbs(tables, catalog),
        grains=frozenset(g for g in Grain if groups_by_grain(tree, g.value)),
        compared_numbers=_compares_number(tree),
    )


def _numeric(side: exp.Expr) -> bool:
    """A side of a comparison that is a number: a literal, or arithmetic over literals and
    functions of no column ("60", "EXTRACT(YEAR FROM CURRENT_DATE) - 60")."""
    if side.find(exp.Column) is not None:
        return False
    return any(lit.is_number for lit in side.find_all(exp.Literal))


def _compares_number(tree: exp.Expr) -> bool:
    """A column compared with a number ("birth_year <= 1966", "ms > 300000",
    "birth_year <= EXTRACT(YEAR FROM CURRENT_DATE) - 60", "2026 - birth_year > 60")."""
    for node in tree.find_all(exp.GT, exp.GTE, exp.LT, exp.LTE, exp.EQ):
        sides = (node.this, node.expression)
        if any(_numeric(s) for s in sides) and any(s.find(exp.Column) for s in sides):
            return True
    return False


def event_verbs(tables: set[str], catalog: Catalog) -> tuple[str, ...]:
    """The verb stems of the events of `tables` (bare names): the `verbs:` of the metrics
    on them, and what `catalog init` drafts from their names ("How many orders were
    placed": counting orders carries "placed")."""
    out: list[str] = []
    for metric in catalog.metrics.values():
        if metric.verbs and metric.table.rsplit(".", 1)[-1].lower() in tables:
            out += [s for v in metric.verbs for s in phrase_stems(v)]
    for table in tables:
        out += draft_verbs([w for w in re.split(r"[^a-zа-яё]+", table) if len(w) > 1])
    return tuple(dict.fromkeys(out))


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def uncarried(tree: exp.Expr, catalog: Catalog, unexplained: list[str]) -> list[str]:
    """The unplaced words the query says nothing about."""
    found = query_words(tree, catalog)
    return [w for w in unexplained if not found.carries(w)]


def explains(condition: tuple[str, str, list[str]], unexplained: list[str]) -> bool:
    """Whether an unplaced word asks for an extra condition: its column or value named, or a
    comparison with a number the words give."""
    column, op, values = condition
    named = _text_words(column, *values)
    stems = [_stem(w) for w in unexplained if not w.isdigit()]
    if any(s in w for s in stems for w in named if len(s) >= 3):
        return True
    numbers = [w for w in unexplained if w.replace(".", "", 1).isdigit()]
    return op in ("gt", "gte", "lt", "lte") and bool(numbers)
