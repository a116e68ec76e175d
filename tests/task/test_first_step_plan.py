"""Task step 1 is the request read once into a plan (`vitrina.query.request`) without its
comparison, handed to ask as a plan (`run_plan`) like the derived steps; its question is only
the step's displayed words. Where the rules cannot read the request, step 1 keeps its words
and the planner's trace says why. Rules mode, demo warehouse, "today" 30.11.2026; numbers
checked against SQL written apart from the planner."""

from __future__ import annotations

from decimal import Decimal

import pytest

from vitrina.task.tables import load_table

pytestmark = pytest.mark.usefixtures("sandbox_required")


def _step(view, n):
    return next(s for s in view.plan if s.n == n)


def _cents(rows) -> dict:
    return {k: Decimal(str(v)).quantize(Decimal("0.01")) for k, v in rows}


def _planner_events(view) -> list[dict]:
    return [e.message for e in view.trace if e.node == "planner"]


def test_step_one_is_the_plan_with_its_breakdown(make_task, sql):
    view = make_task().run(
        "Сравни сумму платежей по платёжным системам за октябрь 2026 с прошлым годом"
    )
    first = _step(view, 1)
    plan = first.args["plan"]
    assert [d["column"] for d in plan["dimensions"]] == ["payment_system"]
    assert plan["compared"] is None and plan["period"]["start"] == "2026-10-01"
    assert "платёжным системам" in first.args["question"]  # the displayed words, not cut
    assert [s.status for s in view.plan] == ["done"] * 4
    assert "step 1 is the request's plan without its comparison" in _planner_events(view)

    def by_system(start: str, end: str) -> dict:
        return _cents(
            sql(
                "SELECT c.payment_system, SUM(p.amount_rub) FROM dwh.fact_payment p "
                "JOIN dwh.dim_card c USING (card_id) WHERE p.status = 'success' AND "
                f"p.payment_date BETWEEN '{start}' AND '{end}' GROUP BY 1"
            )
        )

    now = load_table(_step(view, 1).last_table().data)
    assert now.columns == ["payment_system", "payment_amount"]
    assert _cents(now.rows) == by_system("2026-10-01", "2026-10-31")
    before = load_table(_step(view, 2).last_table().data)
    assert _cents(before.rows) == by_system("2025-10-01", "2025-10-31")


def test_step_one_keeps_the_segment_filter(make_task, sql):
    view = make_task().run("Сумма платежей b2b клиентов за октябрь 2026 к прошлому году")
    plan = _step(view, 1).args["plan"]
    assert [(f["column"], f["values"]) for f in plan["filters"]] == [("segment", ["B2B"])]
    assert [s.status for s in view.plan] == ["done"] * 4
    [(total,)] = sql(
        "SELECT SUM(p.amount_rub) FROM dwh.fact_payment p JOIN dwh.dim_client c "
        "USING (client_id) WHERE p.status = 'success' AND c.segment = 'B2B' AND "
        "p.payment_date BETWEEN '2026-10-01' AND '2026-10-31'"
    )
    [[answered]] = load_table(_step(view, 1).last_table().data).rows
    assert _cents([(0, answered)]) == _cents([(0, total)])


def test_step_one_keeps_a_named_region(make_task, sql):
    view = make_task().run("Сумма платежей в Москве за октябрь 2026 к прошлому году")
    plan = _step(view, 1).args["plan"]
    assert [(f["column"], f["values"]) for f in plan["filters"]] == [("region_name", ["Москва"])]
    assert _step(view, 1).status == "done"


def test_step_one_keeps_an_exclusion(make_task, sql):
    """ "без Москвы": a filter that keeps every other region (and payments with none), never
    the opposite "в Москве"; both periods of the comparison keep it."""
    view = make_task().run("Сумма платежей без Москвы за октябрь 2026 к прошлому году")
    plan = _step(view, 1).args["plan"]
    assert [(f["column"], f["values"], f["exclude"]) for f in plan["filters"]] == [
        ("region_name", ["Москва"], True)
    ]
    assert [s.status for s in view.plan] == ["done"] * 4
    ran = _step(view, 1).last_table()

    def total(start: str, end: str):
        """Every region's payments less Moscow's (written apart from the planner's NOT)."""
        [(all_regions, moscow)] = sql(
            "SELECT SUM(p.amount_rub), SUM(p.amount_rub) FILTER (r.region_name = 'Москва') "
            "FROM dwh.fact_payment p JOIN dwh.dim_client c USING (client_id) "
            "JOIN dwh.dim_region r USING (region_id) WHERE p.status = 'success' AND "
            f"p.payment_date BETWEEN '{start}' AND '{end}'"
        )
        assert moscow > 0  # the exclusion takes something away
        return all_regions - moscow

    [[now]] = load_table(ran.data).rows
    [[before]] = load_table(_step(view, 2).last_table().data).rows
    assert _cents([(0, now)]) == _cents([(0, total("2026-10-01", "2026-10-31"))])
    assert _cents([(0, before)]) == _cents([(0, total("2025-10-01", "2025-10-31"))])


@pytest.mark.parametrize(
    "request_text, words",
    [
        # an exclusion of no value the rules read: never planned as its opposite
        ("Сумма платежей без учёта возвратов за октябрь 2026 к прошлому году", "без учёта"),
        # a condition the rules do not read: a plan without it would answer a wider question
        ("Сумма платежей клиентов старше 60 лет за октябрь 2026 к прошлому году", "старше 60"),
    ],
)
def test_a_request_the_rules_cannot_plan_keeps_its_words_and_says_so(
    make_task, request_text, words
):
    """Step 1 keeps its words (today's behaviour: ask reads them, and refuses what it cannot
    carry) and the planner's trace names the reason."""
    view = make_task().start(request_text)
    first = _step(view, 1)
    assert "plan" not in first.args and words in first.args["question"]
    assert "step 1 asked as its words: the rules read no plan" in _planner_events(view)
