"""Period normalisation: the table in tests/data/periods.yaml (its speed: bench_periods.py)."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml

from vitrina.language.periods import Period, extract_grain, extract_period, strip_period

CASES_FILE = Path(__file__).parent / "data" / "periods.yaml"
CASES: list[dict[str, Any]] = yaml.safe_load(CASES_FILE.read_text(encoding="utf-8"))


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


def _hinted_patterns() -> list[tuple[str, Any]]:
    from vitrina.language.periods import matchers

    found: list[tuple[str, Any]] = []
    for name, value in vars(matchers).items():
        for i, rx in enumerate(value if isinstance(value, tuple) else (value,)):
            if isinstance(rx, matchers.Rx) and rx.hints:
                found.append((f"{name}[{i}]", rx))
    return found


def test_every_hint_is_found_wherever_its_pattern_matches() -> None:
    """A pattern is skipped on a text without its hint: sound only if no text the pattern
    matches lacks the hint. Every phrase of the table is tried, matched or not."""
    hinted = _hinted_patterns()
    assert len(hinted) >= 6  # the ranges, "с начала", "с марта": the costly ones
    matched = dict.fromkeys((name for name, _ in hinted), 0)
    for case in CASES:
        for name, rx in hinted:
            if rx.compiled.search(case["phrase"]):
                matched[name] += 1
                for hint in rx.hints:
                    assert hint.search(case["phrase"]), (name, hint.pattern, case["phrase"])
    assert all(matched.values()), matched  # each pattern is exercised by the table


def test_a_question_without_a_range_word_compiles_no_range_pattern() -> None:
    """`extract_period` on "в мае 2025" (a fresh process) compiles the month pattern, not
    the ~4 KB ones of ranges and "since"."""
    import subprocess
    import sys

    code = (
        "from datetime import date\n"
        "from tests.test_periods import _hinted_patterns\n"
        "from vitrina.language.periods import extract_period, matchers\n"
        "p = extract_period('Сколько кошельков открыли в мае 2025?', date(2026, 1, 1))\n"
        "assert (p.start, p.end) == (date(2025, 5, 1), date(2025, 5, 31)), p\n"
        "print(matchers._MONTH._compiled is not None,"
        " sorted(n for n, rx in _hinted_patterns() if rx._compiled is not None))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    month_compiled, hinted_compiled = done.stdout.split(maxsplit=1)
    assert month_compiled == "True"
    assert hinted_compiled.strip() == "[]"  # none of the ranges, "с начала", "с марта"
