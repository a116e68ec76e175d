"""Derived metrics the rules build: a share of the total (of a part, or by groups), an
average per unit, and a ratio metric declared in the catalog. Reference SQL is written by
hand and run on the same real database (SQLite Chinook, DuckDB demo)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from vitrina.catalog import CatalogError, load_catalog

ROOT = Path(__file__).resolve().parents[1]

CHINOOK_CASES = [  # question, reference (SQLite), words the answer must hold
    (
        "What share of revenue came from the USA in 2024?",
        "SELECT 100.0 * SUM(CASE WHEN BillingCountry = 'USA' THEN Total ELSE 0 END) / SUM(Total) "
        "FROM Invoice WHERE InvoiceDate >= '2024-01-01' AND InvoiceDate < '2025-01-01'",
        ["share of the total: Country = USA", "%"],
    ),
    (
        "Доля выручки по странам за 2024 год",
        "SELECT BillingCountry, 100.0 * SUM(Total) / (SELECT SUM(Total) FROM Invoice "
        "WHERE InvoiceDate >= '2024-01-01' AND InvoiceDate < '2025-01-01') FROM Invoice "
        "WHERE InvoiceDate >= '2024-01-01' AND InvoiceDate < '2025-01-01' GROUP BY BillingCountry",
        ["Доля: Выручка"],
    ),
    (
        "Top 3 genres by share of revenue in 2024",
        "SELECT g.Name, 100.0 * SUM(il.UnitPrice * il.Quantity) / (SELECT SUM(il2.UnitPrice * "
        "il2.Quantity) FROM InvoiceLine il2 JOIN Invoice i2 ON i2.InvoiceId = il2.InvoiceId "
        "WHERE i2.InvoiceDate >= '2024-01-01' AND i2.InvoiceDate < '2025-01-01') AS s "
        "FROM InvoiceLine il JOIN Invoice i ON i.InvoiceId = il.InvoiceId "
        "JOIN Track t ON t.TrackId = il.TrackId JOIN Genre g ON g.GenreId = t.GenreId "
        "WHERE i.InvoiceDate >= '2024-01-01' AND i.InvoiceDate < '2025-01-01' "
        "GROUP BY g.Name ORDER BY s DESC LIMIT 3",
        [],
    ),
    (
        "Average revenue per customer in 2024",
        "SELECT SUM(Total) * 1.0 / COUNT(DISTINCT CustomerId) FROM Invoice "
        "WHERE InvoiceDate >= '2024-01-01' AND InvoiceDate < '2025-01-01'",
        ["per customer"],
    ),
    (
        "Выручка в среднем на клиента по странам за 2023 год",
        "SELECT BillingCountry, SUM(Total) * 1.0 / COUNT(DISTINCT CustomerId) FROM Invoice "
        "WHERE InvoiceDate >= '2023-01-01' AND InvoiceDate < '2024-01-01' GROUP BY BillingCountry",
        ["в среднем на клиента"],
    ),
    (
        "Average number of invoices per customer",
        "SELECT COUNT(*) * 1.0 / COUNT(DISTINCT CustomerId) FROM Invoice",
        ["6.98"],  # a count per unit is no whole number
    ),
    (
        "Сколько в среднем счетов на клиента?",  # "в среднем": no metric "Средний счёт"
        "SELECT COUNT(*) * 1.0 / COUNT(DISTINCT CustomerId) FROM Invoice",
        [],
    ),
    (
        "Average selling price by genre in 2024",  # the catalog's ratio metric
        "SELECT g.Name, SUM(il.UnitPrice * il.Quantity) * 1.0 / SUM(il.Quantity) "
        "FROM InvoiceLine il JOIN Invoice i ON i.InvoiceId = il.InvoiceId "
        "JOIN Track t ON t.TrackId = il.TrackId JOIN Genre g ON g.GenreId = t.GenreId "
        "WHERE i.InvoiceDate >= '2024-01-01' AND i.InvoiceDate < '2025-01-01' GROUP BY g.Name",
        [],
    ),
]

CHINOOK_REFUSED = [
    ("Доля выручки за 2024 год", "долю чего"),  # a share of nothing
    ("Share of average invoice by country", "not a sum"),  # a share of an average
    ("Share of average selling price by genre", "not a sum"),  # of a ratio
]


def _rows(rows, ordered: bool = False) -> list[tuple]:
    out = [tuple(round(v, 6) if isinstance(v, float) else v for v in r) for r in rows]
    return out if ordered else sorted(out)


@pytest.mark.parametrize(("question", "reference", "words"), CHINOOK_CASES)
def test_derived_metric_matches_the_reference(
    chinook_service, chinook: str, question: str, reference: str, words: list[str]
) -> None:
    result = chinook_service.ask(question)
    assert result.status == "answered", result.answer
    with sqlite3.connect(f"file:{chinook}?mode=ro", uri=True) as conn:
        expected = conn.execute(reference).fetchall()
    ordered = "LIMIT" in reference
    assert _rows(result.rows, ordered) == _rows(expected, ordered), result.sql
    for word in words:
        assert word in result.answer, (word, result.answer)


@pytest.mark.parametrize(("question", "says"), CHINOOK_REFUSED)
def test_derived_metric_not_built_is_refused(chinook_service, question: str, says: str) -> None:
    result = chinook_service.ask(question)
    assert result.status == "refused" and result.sql is None, result.answer
    assert says in result.answer


DEMO_CASES = [
    (
        "Какая доля выручки пришлась на Москву в 2025 году?",
        "SELECT 100.0 * SUM(CASE WHEN r.region_name = 'Москва' THEN p.amount_rub ELSE 0 END) / "
        "SUM(p.amount_rub) FROM dwh.fact_payment p JOIN dwh.dim_client c ON c.client_id = "
        "p.client_id JOIN dwh.dim_region r ON r.region_id = c.region_id WHERE p.status = "
        "'success' AND p.payment_date BETWEEN DATE '2025-01-01' AND DATE '2025-12-31'",
    ),
    (
        "Average fee per payment in 2025",
        "SELECT AVG(fee_rub) FROM dwh.fact_payment WHERE status = 'success' "
        "AND payment_date BETWEEN DATE '2025-01-01' AND DATE '2025-12-31'",
    ),
]


@pytest.mark.parametrize(
    ("question", "says"),
    [
        ("Средний чек на клиента в 2025 году", "не сумма"),  # an average per client: not built
        ("Which merchant categories had more than 100000 payments in 2025", "condition"),
    ],
)
def test_demo_average_of_an_average_or_an_empty_condition(make_service, question, says) -> None:
    result = make_service().ask(question)
    assert says in result.answer, result.answer
    assert "no data for" not in result.answer  # the condition emptied it, not the period


@pytest.mark.parametrize(("question", "reference"), DEMO_CASES)
def test_derived_metric_on_duckdb(make_service, demo_db: Path, question: str, reference: str):
    import duckdb

    result = make_service().ask(question)
    assert result.status == "answered", result.answer
    with duckdb.connect(str(demo_db), read_only=True) as conn:
        expected = conn.execute(reference).fetchall()
    assert _rows(result.rows) == _rows(expected), result.sql


def _ratio_catalog(tmp_path: Path, numerator: str, table: str = "main.invoiceline") -> Path:
    folder = tmp_path / "cat"
    folder.mkdir()
    for f in (ROOT / "suites" / "chinook").glob("*.yaml"):
        (folder / f.name).write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
    with (folder / "metrics.yaml").open("a", encoding="utf-8") as out:
        out.write(
            "  - {id: bad_ratio, name_ru: Плохое, name_en: Bad, table: " + table
            + ", numerator: " + numerator + ", denominator: tracks_sold}\n"
        )  # fmt: skip
    return folder


@pytest.mark.parametrize(
    ("numerator", "table", "says"),
    [
        ("nope", "main.invoiceline", "numerator 'nope' is not a metric"),
        ("revenue", "main.invoiceline", "is a metric of main.invoice"),
    ],
)
def test_catalog_check_reports_a_bad_ratio(
    tmp_path: Path, numerator: str, table: str, says: str
) -> None:
    with pytest.raises(CatalogError) as err:
        load_catalog(_ratio_catalog(tmp_path, numerator, table), strict=True)
    assert any("bad_ratio" in str(p) and says in str(p) for p in err.value.problems), [
        str(p) for p in err.value.problems
    ]


def test_a_ratio_metric_is_written_from_its_parts() -> None:
    metric = load_catalog(ROOT / "suites" / "chinook").metrics["average_track_price"]
    assert metric.expression == "1.0 * (SUM(UnitPrice * Quantity)) / NULLIF(SUM(Quantity), 0)"
    assert metric.additive is False


@pytest.mark.parametrize(
    ("catalog", "question", "unit"),
    [
        # snake_case names: "invoice" is a part of invoice_line's name, invoice is named whole
        ("chinook_pg", "Average tracks sold per invoice in 2024", "chinook.invoice"),
        ("chinook_pg", "Average tracks sold per line", "chinook.invoice_line"),  # a part, unique
        ("chinook_pg", "Выручка в среднем на клиента", "chinook.customer"),
        ("chinook", "Average tracks sold per invoice in 2024", "main.invoice"),
    ],
)
def test_the_unit_of_an_average_is_the_table_named_whole(
    catalog: str, question: str, unit: str
) -> None:
    from vitrina.language.text import tokenize
    from vitrina.query.derived import find_per_unit

    words = tokenize(question)
    found = find_per_unit(words, set(), [], load_catalog(ROOT / "suites" / catalog))
    assert found is not None and found.table == unit
