"""The supervisor's report and ask paths with a row policy: the report's rows are Moscow's only
(both the current and the compared period), the same request without one reads every region,
and a policed request starts no task."""

from __future__ import annotations

import duckdb

from vitrina.catalog import load_catalog
from vitrina.sql.policy import RowPolicy, parse_condition

QUESTION = "сумма платежей по регионам за 2025 год"


def _moscow() -> RowPolicy:
    return RowPolicy(conditions=[parse_condition("dim_region.region_name=Москва", load_catalog())])


def test_a_report_reads_through_the_policy(make_route, demo_db):
    route = make_route()
    policed = route.handle(f"отчёт: {QUESTION}", policy=_moscow())
    everyone = route.handle(f"отчёт: {QUESTION}")
    with duckdb.connect(str(demo_db), read_only=True) as conn:
        want = conn.execute(
            "SELECT SUM(p.amount_rub) FROM dwh.fact_payment p JOIN dwh.dim_client c "
            "ON c.client_id = p.client_id JOIN dwh.dim_region r ON r.region_id = c.region_id "
            "WHERE r.region_name = 'Москва' AND p.status = 'success' "
            "AND p.payment_date >= DATE '2025-01-01' AND p.payment_date < DATE '2026-01-01'"
        ).fetchone()[0]
    rows = policed.report["rows"]
    assert [row[0] for row in rows] == ["Москва"]
    assert abs(float(rows[0][1]) - float(want)) < 0.01
    assert len(everyone.report["rows"]) > 1


def test_a_comparison_report_reads_both_periods_through_the_policy(make_route, demo_db):
    request = "Отчёт: сумма платежей за 2025 год по сравнению с прошлым годом"
    route = make_route()
    policed = route.handle(request, policy=_moscow())
    everyone = route.handle(request)
    ((cur, prev, *_),) = policed.report["rows"]
    ((all_cur, all_prev, *_),) = everyone.report["rows"]
    assert 0 < cur < all_cur and 0 < prev < all_prev


def test_a_policed_request_starts_no_task(make_route):
    """A task from the supervisor would run as the local user, outside the policy."""
    request = "Задача: проанализируй платежи за 2025 год по шагам"
    assert make_route().handle(request).status == "awaiting_plan"  # without a policy: a task
    policed = make_route().handle(request, policy=_moscow())
    assert policed.intent == "task" and policed.status == "refused"
    assert "политика доступа" in (policed.answer or "")
