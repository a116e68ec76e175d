"""Every comparison rule with its tricky pair (data in data/compare_pairs.yaml), number
parsing, and the top-N detection that decides when row order counts."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from vitrina.eval.compare import compare_results, parse_number_text
from vitrina.eval.order import asks_for_order

PAIRS = yaml.safe_load(
    (Path(__file__).parent / "data" / "compare_pairs.yaml").read_text(encoding="utf-8")
)["pairs"]


@pytest.mark.parametrize("pair", PAIRS, ids=[p["name"] for p in PAIRS])
def test_comparison_rule(pair: dict) -> None:
    result = compare_results(pair["expected"], pair["got"], ordered=pair.get("ordered", False))
    assert result.ok is pair["ok"], result.diff
    if not pair["ok"]:
        assert result.diff  # a failure always says why


@pytest.mark.parametrize(
    ("text", "value", "places"),
    [
        ("3 700", "3700", 0),
        ("3\u00a0700", "3700", 0),
        ("3\u202f700,5", "3700.5", 1),
        ("1,234,567.89", "1234567.89", 2),
        ("3,700", "3700", 0),
        ("0,125", "0.125", 3),
        ("12,5 %", "12.5", 1),
        ("RUB 1,234.50", "1234.50", 2),
        ("715 966 005,45 ₽", "715966005.45", 2),
        ("-42", "-42", 0),
        ("−5,5", "-5.5", 1),
    ],
)
def test_parse_number_text(text: str, value: str, places: int) -> None:
    assert parse_number_text(text) == (Decimal(value), places)


@pytest.mark.parametrize("text", ["Москва", "007", "2025-05-01", "3 70", "1,23,456", "", "12 %%"])
def test_not_numbers(text: str) -> None:
    assert parse_number_text(text) is None


def test_dates_and_mixed_types() -> None:
    assert compare_results([(dt.date(2025, 5, 1), "3 700")], [(dt.datetime(2025, 5, 1), 3700)])
    assert not compare_results([(dt.date(2025, 5, 1), 1)], [(dt.date(2025, 6, 1), 1)])


def test_diff_names_both_sides() -> None:
    result = compare_results([("Москва", 3700)], [("Москва", "3 701")])
    assert "3700" in result.diff and "3701" in result.diff


@pytest.mark.parametrize(
    ("question", "ordered"),
    [
        ("Топ-5 регионов по сумме платежей", True),
        ("топ 3 категории", True),
        ("Top 5 merchants by revenue", True),
        ("Регионы по сумме платежей по убыванию", True),
        ("Revenue by region, sorted", True),
        ("Сумма платежей по регионам", False),
        ("How many cards were issued", False),
        ("Стоп-лист мерчантов", False),
    ],
)
def test_asks_for_order(question: str, ordered: bool) -> None:
    assert asks_for_order(question) is ordered
