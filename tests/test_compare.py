"""Unit tests of the result comparison used by the golden set."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from vitrina.eval.compare import compare_results, normalize_cell


def test_reordered_columns_are_equal() -> None:
    expected = [("Москва", Decimal("100.50"), 3), ("Самара", Decimal("20.00"), 1)]
    got = [(3, "Москва", 100.5), (1, "Самара", 20)]
    assert compare_results(expected, got)


def test_row_order_ignored_by_default() -> None:
    assert compare_results([("a", 1), ("b", 2)], [("b", 2), ("a", 1)])


def test_integer_equals_decimal_with_cents() -> None:
    assert compare_results([(3700,)], [(Decimal("3700.00"),)])
    assert compare_results([(3700.004,)], [(Decimal("3700"),)])
    assert normalize_cell(3700) == normalize_cell(Decimal("3700.00"))


def test_different_counts_are_not_merged() -> None:
    result = compare_results([(3700,)], [(3701,)])
    assert not result
    assert "3700" in result.diff and "3701" in result.diff


def test_duplicate_rows_are_counted() -> None:
    assert not compare_results([("a", 1), ("a", 1)], [("a", 1), ("b", 1)])
    assert not compare_results([("a", 1), ("a", 1)], [("a", 1)])


def test_total_is_not_a_breakdown() -> None:
    total = [(Decimal("300"),)]
    breakdown = [("Москва", Decimal("100")), ("Самара", Decimal("200"))]
    result = compare_results(total, breakdown)
    assert not result
    assert "1 row(s) x 1 col(s)" in result.diff and "2 row(s) x 2 col(s)" in result.diff
    # one group of a breakdown still carries its label: not the same answer as a total
    assert not compare_results([(Decimal("100"),)], [("Москва", Decimal("100"))])


def test_ordered_top_n_checks_order() -> None:
    expected = [("Москва", 300), ("Самара", 200), ("Казань", 100)]
    assert compare_results(expected, list(expected), ordered=True)
    swapped = [("Самара", 200), ("Москва", 300), ("Казань", 100)]
    assert compare_results(expected, swapped)  # same rows
    result = compare_results(expected, swapped, ordered=True)
    assert not result
    assert "different order" in result.diff


def test_ordered_with_reordered_columns() -> None:
    expected = [("Москва", 300), ("Самара", 200)]
    assert compare_results(expected, [(300, "Москва"), (200, "Самара")], ordered=True)


def test_midnight_timestamp_equals_date() -> None:
    assert compare_results([(dt.date(2025, 5, 1), 1)], [(dt.datetime(2025, 5, 1), 1)])
    assert not compare_results([(dt.date(2025, 5, 1), 1)], [(dt.date(2025, 6, 1), 1)])


def test_nulls_and_empty_results() -> None:
    assert compare_results([(None, 5)], [(5, None)])
    assert compare_results([], [])
    assert not compare_results([], [(0,)])


def test_columns_swapped_inside_rows_are_not_equal() -> None:
    # each column holds the same multiset, but the pairs differ row by row
    expected = [("a", 1, 1), ("b", 2, 2)]
    got = [("a", 1, 2), ("b", 2, 1)]
    assert not compare_results(expected, got)


def test_diff_is_small() -> None:
    expected = [(i, i) for i in range(100)]
    got = [(i, i + 1) for i in range(100)]
    result = compare_results(expected, got)
    assert not result
    assert len(result.diff.splitlines()) <= 4
    assert "(0.00, 1.00), (1.00, 2.00), (2.00, 3.00)" in result.diff  # numeric order
    assert all(line.count("), (") <= 4 for line in result.diff.splitlines())


def test_extra_id_column_next_to_a_name_is_tolerated() -> None:
    from vitrina.eval.compare import compare_results

    expected = [("Иванов И.И.", 10), ("Иванов И.И.", 7), ("Петров П.П.", 5)]
    got = [(101, "Иванов И.И.", 10), (205, "Иванов И.И.", 7), (300, "Петров П.П.", 5)]
    assert compare_results(expected, got)
    wrong = [(101, "Иванов И.И.", 10), (205, "Иванов И.И.", 8), (300, "Петров П.П.", 5)]
    assert not compare_results(expected, wrong)
    # a name first and the id after it works the same way
    assert compare_results(expected, [(n, i, v) for i, n, v in got])
    # an extra column that determines nothing (a second metric) is never dropped
    assert not compare_results([("a", 1), ("a", 2)], [("a", 1, 5), ("a", 2, 5)])
