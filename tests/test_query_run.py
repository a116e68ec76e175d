"""`run_checked`: one chain (guard, EXPLAIN, deterministic checks, execution, result checks)
on the demo warehouse, with a planted fault at each step and good input it must pass."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from vitrina.catalog import load_catalog
from vitrina.config import load_settings
from vitrina.query import PeriodRef, QuerySpec, RunOptions, plan_from_spec, run_checked
from vitrina.sql.policy import PolicyCondition, RowPolicy
from vitrina.trace import Trace
from vitrina.warehouse import Warehouse

YEAR = PeriodRef(start=date(2025, 1, 1), end=date(2025, 12, 31), label_ru="2025", label_en="2025")


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(load_settings().catalog_dir)


@pytest.fixture
def warehouse(demo_db: Path):
    return Warehouse(f"duckdb:///{demo_db}", row_cap=1000, result_max_bytes=200_000)


def _plan(catalog, **spec):
    out = plan_from_spec(QuerySpec(metrics=["fee_income"], **spec), catalog, Trace("t"))
    assert out.plan is not None, out.refusal
    return out.plan


def test_a_plan_runs_through_every_step(catalog, warehouse) -> None:
    plan = _plan(catalog, breakdowns=["dwh.dim_region.region_name"], period=YEAR)
    checked = run_checked(plan, catalog, warehouse, RunOptions(row_cap=1000))
    assert checked.ok and checked.result is not None and checked.result.row_count > 1
    assert checked.flags == [] and "LIMIT 1000" in checked.sql
    messages = [e.message for e in checked.trace.events]
    assert "all deterministic checks passed" in messages and "result checks passed" in messages


def test_the_guard_refuses_first(catalog, warehouse) -> None:
    checked = run_checked("DELETE FROM dwh.fact_payment", catalog, warehouse, RunOptions(10))
    assert checked.stage == "guard" and checked.result is None and checked.error


def test_the_compile_check_stops_a_query_the_engine_cannot_bind(catalog, warehouse) -> None:
    sql = "SELECT SUM(payment_date) FROM dwh.fact_payment"  # the guard passes it
    checked = run_checked(sql, catalog, warehouse, RunOptions(10, checks=False))
    assert checked.stage == "compile" and checked.kind == "compile", checked
    assert checked.result is None and "sum" in (checked.error or "").lower()
    late = run_checked(sql, catalog, warehouse, RunOptions(10, checks=False, explain=False))
    assert late.stage == "execute"  # without the compile check the engine refuses it later


def test_the_deterministic_checks_catch_a_wrong_period(catalog, warehouse) -> None:
    sql = (
        "SELECT SUM(fee_rub) FROM dwh.fact_payment "
        "WHERE payment_date >= DATE '2024-01-01' AND payment_date < DATE '2025-01-01'"
    )
    checked = run_checked(sql, catalog, warehouse, RunOptions(10, period=YEAR))
    assert checked.stage == "checks" and checked.problems, checked
    unchecked = run_checked(sql, catalog, warehouse, RunOptions(10, period=YEAR, checks=False))
    assert unchecked.ok


def test_the_byte_budget_still_applies(catalog, warehouse) -> None:
    sql = "SELECT repeat('x', 100000) AS big FROM dwh.fact_payment"
    checked = run_checked(sql, catalog, warehouse, RunOptions(1000, explain=False, checks=False))
    assert checked.stage == "execute" and checked.kind == "too_large", checked


def test_an_empty_period_is_flagged_with_where_data_is(catalog, warehouse) -> None:
    empty = PeriodRef(
        start=date(1990, 1, 1), end=date(1990, 12, 31), label_ru="1990", label_en="1990"
    )
    checked = run_checked(_plan(catalog, period=empty), catalog, warehouse, RunOptions(10))
    assert checked.ok and [f["check"] for f in checked.flags] == ["all_null"]
    assert checked.flags[0]["data_from"] < checked.flags[0]["data_to"]


def test_a_row_policy_is_applied(catalog, warehouse) -> None:
    policy = RowPolicy(
        conditions=[PolicyCondition(column="dwh.dim_client.segment", values=["B2B"])]
    )
    sql = "SELECT COUNT(*) FROM dwh.fact_payment"
    opts = RunOptions(10, policy=policy, checks=False)
    policed = run_checked(sql, catalog, warehouse, opts)
    whole = run_checked(sql, catalog, warehouse, RunOptions(10, checks=False))
    assert policed.ok and whole.ok and "B2B" in policed.sql
    assert policed.result.rows[0][0] < whole.result.rows[0][0]


def test_a_partial_compared_period_is_flagged_by_the_result_checks(catalog, warehouse) -> None:
    """One rule for every job that runs a plan of two periods (decision 189): the demo data end
    on 30.11.2026, so 2026 against 2025 is flagged, in the question's language; month by
    month, each month of 2026 meets the same month of 2025 on one row."""
    year = PeriodRef(start=date(2026, 1, 1), end=date(2026, 12, 31), label_ru="2026 год",
                     label_en="2026")  # fmt: skip
    plan = _plan(catalog, period=year, grain="month").model_copy(update={"compared": YEAR})
    checked = run_checked(plan, catalog, warehouse, RunOptions(row_cap=1000), lang="ru")
    assert checked.ok and checked.result is not None
    flags = [f for f in checked.flags if f["check"] == "partial_period"]
    assert (
        len(flags) == 1
        and "2026 год" in flags[0]["message"]
        and "30.11.2026" in flags[0]["message"]
    )
    rows = checked.result.rows
    months = [r[0] for r in rows]
    assert len(rows) == 12 and months[0].year == 2026 and months[-1].month == 12
    dec = rows[-1]
    ((want,),) = warehouse.execute(
        "SELECT SUM(fee_rub) FROM dwh.fact_payment WHERE status = 'success' "
        "AND payment_date BETWEEN '2025-12-01' AND '2025-12-31'"
    ).rows
    assert dec[1] is None and dec[2] == want, "December 2025 sits on the December 2026 row"
    plain = run_checked(_plan(catalog, period=year), catalog, warehouse, RunOptions(1000))
    assert not [f for f in plain.flags if f["check"] == "partial_period"], "one period: no flag"
