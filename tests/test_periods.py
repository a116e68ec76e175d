"""Period normalisation: the table in tests/data/periods.yaml, the docstrings, speed."""

from __future__ import annotations

import doctest
import importlib
import time
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml

from vitrina.language.periods import Period, extract_grain, extract_period, strip_period

CASES_FILE = Path(__file__).parent / "data" / "periods.yaml"
CASES: list[dict[str, Any]] = yaml.safe_load(CASES_FILE.read_text(encoding="utf-8"))
MODULES = ("", ".calendar", ".grain", ".lexicon", ".matchers", ".model", ".points")


def _case_id(case: dict[str, Any]) -> str:
    return f"{case['phrase']}@{case['today']}"


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_period_case(case: dict[str, Any]) -> None:
    period = extract_period(case["phrase"], case["today"])
    if case["start"] is None:
        assert period is None, f"expected no period, got {period!r}"
    else:
        assert period is not None, "expected a period, got None"
        assert (period.start, period.end) == (case["start"], case["end"])
        for key, attr in (("ru", "label_ru"), ("en", "label_en"), ("span", "span")):
            if key in case:
                assert getattr(period, attr) == case[key]
        assert period.span in case["phrase"]
        if "corrected" in case:
            assert period.corrected is not None and case["corrected"] in period.corrected
        else:
            assert period.corrected is None
        if "stripped" in case:
            assert strip_period(case["phrase"], period) == case["stripped"]
    if "grain" in case:
        assert extract_grain(case["phrase"]) == case["grain"]


def test_table_is_large_and_well_formed() -> None:
    assert len(CASES) >= 60
    allowed = {"phrase", "today", "start", "end", "ru", "en", "span", "stripped"}
    allowed |= {"corrected", "grain"}
    for case in CASES:
        assert set(case) <= allowed, case
        assert isinstance(case["today"], date), case
        assert ("end" in case) == (case["start"] is not None), case
    ids = [_case_id(c) for c in CASES]
    assert len(ids) == len(set(ids)), "duplicate phrase@today in periods.yaml"


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples(module: str) -> None:
    mod = importlib.import_module("vitrina.language.periods" + module)
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


@pytest.mark.parametrize(
    ("text", "grain"),
    [
        ("продажи по месяцам", "month"),
        ("помесячная динамика выручки", "month"),
        ("by week", "week"),
        ("по неделям", "week"),
        ("в понедельник", None),
        ("по дням", "day"),
        ("по кварталам", "quarter"),
        ("по годам", "year"),
        ("monthly revenue", "month"),
        ("daily", "day"),
        ("quarterly report", "quarter"),
    ],
)
def test_extract_grain(text: str, grain: str | None) -> None:
    assert extract_grain(text) == grain


def test_strip_period_leaves_text_when_span_is_absent() -> None:
    period = extract_period("за май 2025", date(2025, 6, 1))
    assert period is not None
    assert strip_period("выручка по регионам", period) == "выручка по регионам"


def test_period_is_frozen_and_round_trips_json() -> None:
    period = extract_period("с 1 по 30 февраля 2025", date(2025, 5, 15))
    assert period is not None
    with pytest.raises(ValueError):
        period.start = date(2000, 1, 1)  # type: ignore[misc]
    assert Period.model_validate_json(period.model_dump_json()) == period
    assert period.days == 28


def test_today_is_only_what_is_passed() -> None:
    """The same words mean different dates on different days: nothing reads the clock."""
    a = extract_period("прошлый месяц", date(2025, 1, 15))
    b = extract_period("прошлый месяц", date(2025, 7, 15))
    assert a is not None and b is not None
    assert a.start == date(2024, 12, 1) and b.start == date(2025, 6, 1)


def test_fast_enough_per_question() -> None:
    """Called once per question: the whole table averages well under a millisecond."""
    phrases = [(c["phrase"], c["today"]) for c in CASES]
    best = float("inf")
    for _ in range(3):
        began = time.perf_counter()
        for phrase, today in phrases:
            extract_period(phrase, today)
        best = min(best, (time.perf_counter() - began) / len(phrases))
    assert best < 1e-3, f"{best * 1e6:.0f} µs per question"
