"""Deterministic SQL checks, each alone, on passing and failing SQL."""

from __future__ import annotations

from datetime import date

import pytest
import sqlglot

from vitrina.catalog import load_catalog
from vitrina.sql.checks import (
    check_dictionary_values,
    check_grain,
    check_group_by,
    check_period,
    run_checks,
)

CATALOG = load_catalog()


def tree(sql: str):
    return sqlglot.parse_one(sql, read="duckdb")


@pytest.mark.parametrize(
    ("sql", "problems"),
    [
        ("SELECT count(*) FROM dwh.fact_payment p WHERE p.status = 'success'", 0),
        ("SELECT count(*) FROM dwh.fact_payment p WHERE p.status = 'ok'", 1),
        ("SELECT count(*) FROM dwh.fact_payment WHERE status IN ('success', 'lost')", 1),
        (
            "SELECT count(*) FROM dwh.fact_payment p JOIN dwh.dim_client c ON "
            "p.client_id = c.client_id "
            "JOIN dwh.dim_region r ON c.region_id = r.region_id WHERE r.region_name = 'Moskva'",
            1,
        ),
        (
            "SELECT count(*) FROM dwh.dim_client c WHERE c.client_name = 'anything'",
            0,
        ),  # no dictionary
    ],
)
def test_dictionary_values(sql: str, problems: int) -> None:
    assert len(check_dictionary_values(tree(sql), CATALOG)) == problems


def test_period_must_appear() -> None:
    ok = (
        "SELECT count(*) FROM dwh.fact_payment WHERE payment_date >= DATE '2025-05-01' AND "
        "payment_date < DATE '2025-06-01'"
    )
    assert check_period(tree(ok), date(2025, 5, 1), date(2025, 5, 31)) == []
    missing = "SELECT count(*) FROM dwh.fact_payment"
    assert (
        check_period(tree(missing), date(2025, 5, 1), date(2025, 5, 31))[0].check
        == "period_missing"
    )
    assert check_period(tree(missing), None, None) == []


def test_aggregate_without_group_by() -> None:
    bad = "SELECT channel, count(*) FROM dwh.fact_payment"
    assert check_group_by(tree(bad))[0].check == "aggregate_without_group_by"
    assert (
        check_group_by(tree("SELECT channel, count(*) FROM dwh.fact_payment GROUP BY channel"))
        == []
    )
    assert (
        check_group_by(tree("SELECT channel AS c, count(*) FROM dwh.fact_payment GROUP BY 1")) == []
    )


def test_grain_needs_grouping() -> None:
    monthly = (
        "SELECT date_trunc('month', payment_date) m, count(*) FROM dwh.fact_payment GROUP BY 1"
    )
    assert check_grain(tree(monthly), None) == []
    assert (
        check_grain(tree("SELECT count(*) FROM dwh.fact_payment"), "month")[0].check
        == "grain_missing"
    )
    grouped = (
        "SELECT date_trunc('month', payment_date) m, count(*) FROM dwh.fact_payment GROUP "
        "BY date_trunc('month', payment_date)"
    )
    assert check_grain(tree(grouped), "month") == []
    assert check_grain(tree(monthly), "month") == []  # GROUP BY 1 names the date_trunc
    by_alias = (
        "SELECT date_trunc('week', payment_date) AS wk, count(*) FROM dwh.fact_payment GROUP BY wk"
    )
    assert check_grain(tree(by_alias), "week") == []
    assert check_grain(tree(by_alias), "month")[0].check == "grain_missing"


def test_run_checks_collects_all() -> None:
    problems = run_checks(
        "SELECT channel, count(*) FROM dwh.fact_payment WHERE status = 'x'",
        "duckdb",
        CATALOG,
        period_start=date(2025, 1, 1),
        period_end=date(2025, 1, 31),
        grain="month",
    )
    assert {p.check for p in problems} == {
        "dictionary_value",
        "period_missing",
        "aggregate_without_group_by",
        "grain_missing",
    }
