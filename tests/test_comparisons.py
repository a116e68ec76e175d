"""Period comparisons: the table in tests/data/comparisons.yaml and the module's docstrings."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
import yaml

from vitrina.language.periods import extract_period
from vitrina.language.periods.compare import find_comparison, previous_period, strip_comparison

CASES = yaml.safe_load(
    (Path(__file__).parent / "data" / "comparisons.yaml").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("case", CASES, ids=[c["phrase"] for c in CASES])
def test_comparison_phrases(case):
    found = find_comparison(case["phrase"])
    if case["unit"] is None:
        assert found is None, f"read {found} in {case['phrase']!r}"
        return
    assert found is not None and found.unit == case["unit"], found
    assert case["phrase"][found.start : found.end] == found.span
    asked = extract_period(strip_comparison(case["phrase"], found), case["today"])
    assert asked is not None, strip_comparison(case["phrase"], found)
    assert (asked.start, asked.end) == (case["start"], case["end"])
    assert list(previous_period(asked.start, asked.end, found.unit)) == case["prev"]


def test_previous_period_keeps_month_ends():
    assert previous_period(date(2026, 3, 1), date(2026, 3, 31), "month") == (
        date(2026, 2, 1),
        date(2026, 2, 28),
    )
    assert previous_period(date(2024, 3, 1), date(2024, 3, 31), "month") == (
        date(2024, 2, 1),
        date(2024, 2, 29),
    )
    assert previous_period(date(2026, 1, 1), date(2026, 1, 15), "year") == (
        date(2025, 1, 1),
        date(2025, 1, 15),
    )
    assert previous_period(date(2026, 11, 23), date(2026, 11, 29), "day") == (
        date(2026, 11, 22),
        date(2026, 11, 28),
    )
