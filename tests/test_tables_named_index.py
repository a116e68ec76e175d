"""The stem index behind `tables_named`: the same tables as testing every stem against every
word (the plain scan it replaced, issue 38), on the golden questions and words built to hit
the lemma path, at a catalog large enough to have many stems per word."""

from __future__ import annotations

from synthetic_catalog import synthetic_catalog

from vitrina.catalog import Catalog
from vitrina.language.text import stem_matches as stem_matches_plain
from vitrina.language.text import tokenize
from vitrina.query.join_paths import stem_index, table_names, tables_named

QUESTIONS = [
    "выручка по типам клиентов за прошлый месяц",
    "сумма платежей по регионам клиента",
    "revenue by supplier nation and customer region",
    "отгрузки по складам и перевозчикам",
    "количество заявок по кредитным продуктам",
    "сколько кошельков у клиентов",
    "fraud alerts by channel",
]


def plain_tables_named(question: str, cat: Catalog) -> set[str]:
    words = tokenize(question)
    return {
        table
        for table, stems in table_names(cat).items()
        if any(stem_matches_plain(stem, w.text) for stem in stems for w in words)
    }


def test_index_names_the_same_tables_as_the_plain_scan() -> None:
    cat = synthetic_catalog(2500, seed=7)  # past max_tables(): branch copies included
    assert len(cat.tables) == 2500
    named_any = 0
    for question in QUESTIONS:
        expected = plain_tables_named(question, cat)
        assert tables_named(tokenize(question), cat) == expected, question
        named_any += bool(expected)
    assert named_any >= 5  # the questions do name tables: the comparison is not empty sets


def test_index_is_built_once_and_kept_on_the_catalog() -> None:
    cat = synthetic_catalog(60, seed=3)
    first = stem_index(cat)
    tables_named(tokenize("платежи по регионам"), cat)
    assert stem_index(cat) is first
    assert all(table in cat.tables for tables in first.values() for table in tables)


def test_ten_thousand_table_catalog_is_distinct() -> None:
    cat = synthetic_catalog(10_000)
    assert len(cat.tables) == 10_000
    assert all(r.left_table in cat.tables and r.right_table in cat.tables for r in cat.relations)
