"""Coverage accounting and value matching, read against a catalog the planner was not
written for (suites/tpch_like: one-letter codes, prefixed names, two paths to a nation)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from vitrina.catalog import load_catalog
from vitrina.language.periods import extract_period, period_offsets
from vitrina.language.requests import write_verb
from vitrina.query import build_plan, read_question
from vitrina.query.understand import unexplained_words
from vitrina.trace import Trace

CATALOG = Path(__file__).resolve().parents[1] / "suites" / "tpch_like"
TODAY = date(1998, 12, 1)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(CATALOG, strict=True)


def _read(question: str, catalog):
    period = extract_period(question, TODAY)
    return read_question(
        question, catalog, period_span=period_offsets(question, period.span if period else None)
    )


@pytest.mark.parametrize(
    "question", ["How many orders of 1995 were there", "Revenue of items shipped in 1996"]
)
def test_codes_never_match_ordinary_words(catalog, question: str) -> None:
    reading = _read(question, catalog)
    assert [m.phrase.value for m in reading.values] == []  # not O for "of", not SHIP for "shipped"


def test_a_code_matches_by_its_synonym(catalog) -> None:
    reading = _read("Сколько открытых заказов", catalog)
    assert [(m.phrase.target, m.phrase.value) for m in reading.values] == [
        ("main.orders.o_orderstatus", "O")
    ]


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("What fraction of 1995 revenue came from Europe?", ["fraction"]),  # "share" is read
        ("Revenue from customers older than 60", ["older", "60"]),
        ("Выручка до 15 марта 1995 года", ["до"]),  # "до 1995 года" is read (decision 071)
        ("Revenue until 1996", ["until"]),
        ("Customer satisfaction score in 1996", ["satisfaction", "score"]),
    ],
)
def test_unread_words_are_listed(catalog, question: str, words: list[str]) -> None:
    assert set(words) <= set(unexplained_words(_read(question, catalog)))


@pytest.mark.parametrize(
    ("question", "via"),
    [
        ("Revenue by customer region in 1996", "main.customer"),
        ("Top 5 supplier nations by revenue in 1995", "main.supplier"),
    ],
)
def test_join_path_follows_the_named_table(catalog, question: str, via: str) -> None:
    reading = _read(question, catalog)
    outcome = build_plan(
        reading, catalog, topic="sales", lang="en", period=None, segment=None, trace=Trace("t")
    )
    assert outcome.plan is not None and via in outcome.plan.tables


def test_ambiguous_join_path_is_not_guessed(catalog) -> None:
    reading = _read("Revenue by region in 1996", catalog)
    outcome = build_plan(
        reading, catalog, topic="sales", lang="en", period=None, segment=None, trace=Trace("t")
    )
    assert (
        outcome.plan is None
        and "supplier" in (outcome.refusal or "")
        and "customer" in (outcome.refusal or "")
    )
    # the paths are offered as a clarification; the chosen table decides the path
    options = outcome.clarification["options"]
    assert outcome.clarification["kind"] == "join"
    assert sorted(o["id"] for o in options) == ["main.customer", "main.supplier"]
    for option in options:
        chosen = build_plan(
            reading,
            catalog,
            topic="sales",
            lang="en",
            period=None,
            segment=None,
            trace=Trace("t"),
            via=option["id"],
        )
        assert chosen.plan is not None and option["id"] in chosen.plan.tables
        other = {"main.customer", "main.supplier"} - {option["id"]}
        assert not other & set(chosen.plan.tables)


def test_an_ambiguous_join_is_asked_then_answered(tmp_path: Path) -> None:
    """Through the graph: "revenue by region" asks which way; "1" answers through it."""
    import importlib.util

    from vitrina.ask import AskService
    from vitrina.config import load_settings

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "unseen" / "tpch_like.py"
    spec = importlib.util.spec_from_file_location("unseen_tpch_like", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    db = module.generate(tmp_path / "tpch.duckdb", orders=300, seed=3)
    settings = load_settings(db_url=f"duckdb:///{db}", catalog_dir=CATALOG)
    service = AskService(settings, today=TODAY, write_files=False, use_llm=False)
    try:
        asked = service.ask("Revenue by region in 1996", thread_id="j1")
        assert asked.status == "clarification", asked.answer
        labels = [o["label"] for o in asked.clarification["options"]]
        first = asked.clarification["options"][0]["id"]
        answered = service.ask("1", thread_id="j1")
    finally:
        service.close()
    assert len(labels) == 2 and all("region" in label for label in labels)
    assert answered.status == "answered", answered.answer
    assert first.split(".")[-1] in answered.sql


def test_ship_date_is_chosen_by_its_words(catalog) -> None:
    reading = _read("Выручка по дате отгрузки за 1997 год", catalog)
    outcome = build_plan(
        reading, catalog, topic="sales", lang="ru", period=None, segment=None, trace=Trace("t")
    )
    assert outcome.plan is not None
    assert (outcome.plan.date_table, outcome.plan.date_column) == (None, "l_shipdate")
    default = build_plan(
        _read("Выручка за 1997 год", catalog),
        catalog,
        topic="sales",
        lang="ru",
        period=None,
        segment=None,
        trace=Trace("t"),
    ).plan
    assert default is not None and (default.date_table, default.date_column) == (
        "main.orders",
        "o_orderdate",
    )


@pytest.mark.parametrize(
    ("question", "verb"),
    [
        ("Delete all orders from 1992", "delete"),
        ("Установи скидку 10% для всех заказов", "установи"),
        ("Set the region of client 42 to Moscow", "set"),
        ("How many orders were updated in 1995?", None),
        ("Did revenue drop in 1996?", None),
    ],
)
def test_write_requests(question: str, verb: str | None) -> None:
    assert write_verb(question) == verb


@pytest.mark.parametrize(
    "question",
    [
        "Помесячная динамика суммы платежей за последние 24 месяца",
        "Monthly trend of payment volume in 2025",
    ],
)
def test_series_words_with_a_grain_are_read(question: str) -> None:
    demo = load_catalog(None)
    period = extract_period(question, date(2026, 11, 30))
    reading = read_question(
        question, demo, period_span=period_offsets(question, period.span if period else None)
    )
    assert reading.grain == "month" and unexplained_words(reading) == []
