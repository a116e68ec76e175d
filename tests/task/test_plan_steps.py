"""Task steps derived from an earlier step are that step's plan, changed, and handed to ask as
a plan (`run_plan`), never a sentence edited; comparisons read by the shared comparison rules;
a redo comment that rules cannot apply is refused with the reason. Rules mode, demo warehouse,
"today" 30.11.2026 (November is not over: October is the last whole month); every number
checked against SQL written apart from the planner."""

from __future__ import annotations

from decimal import Decimal

import pytest

from vitrina.task.tables import load_table

pytestmark = pytest.mark.usefixtures("sandbox_required")


def _table(view, n):
    return load_table(next(s for s in view.plan if s.n == n).last_table().data)


def _meta(view, n):
    return next(s for s in view.plan if s.n == n).last_table().meta


def _cents(value) -> Decimal:
    return Decimal(str(value)).quantize(Decimal("0.01"))


def test_a_series_drops_a_two_word_breakdown_by_plan(make_task, sql):
    """ "по платёжным системам" was cut to "системам" by a regular expression: the series is
    now step 1's plan without its breakdown (and without the card join, which would drop
    wallet payments)."""
    view = make_task().run("Сделай прогноз суммы платежей по платёжным системам на следующий месяц")
    assert [s.status for s in view.plan] == ["done"] * 4
    assert _table(view, 1).columns == ["payment_system", "payment_amount"]
    series = _table(view, 2)
    assert series.columns == ["month", "payment_amount"] and len(series.rows) == 24
    want = dict(
        sql(
            "SELECT CAST(date_trunc('month', payment_date) AS DATE), SUM(amount_rub) "
            "FROM dwh.fact_payment WHERE status = 'success' AND payment_date BETWEEN "
            "'2024-11-01' AND '2026-10-31' GROUP BY 1"
        )
    )
    assert {m: _cents(v) for m, v in series.rows} == {m: _cents(v) for m, v in want.items()}
    plan = _meta(view, 2)["plan"]
    assert plan["dimensions"] == [] and plan["joins"] == [] and plan["grain"] == "month"
    assert "системам" not in (_meta(view, 2)["question"] or "").replace("платёжным системам", "")


def test_a_month_by_month_year_over_year_compare_finds_its_pairs(make_task, sql):
    view = make_task().run("Сравни сумму платежей по месяцам за 2026 год с прошлым годом")
    assert [s.status for s in view.plan] == ["done"] * 4
    previous = _meta(view, 2)
    assert (previous["start"], previous["end"]) == ("2025-01-01", "2025-12-31")
    compared = _table(view, 3)
    assert compared.columns[:3] == ["month", "payment_amount", "payment_amount_prev"]

    def monthly(year: int) -> dict[int, object]:
        return dict(
            sql(
                f"SELECT month(payment_date), SUM(amount_rub) FROM dwh.fact_payment WHERE "
                f"status = 'success' AND year(payment_date) = {year} GROUP BY 1"
            )
        )

    now, before = monthly(2026), monthly(2025)
    assert len(compared.rows) == 10, "January to October 2026: November is partial"
    for month, cur, prev, *_ in compared.rows:
        assert (_cents(cur), _cents(prev)) == (
            _cents(now[month.month]),
            _cents(before[month.month]),
        )
    assert _meta(view, 3)["matched"] == 10


@pytest.mark.parametrize(
    "request_text",
    [
        "Сравни выпуск карт за октябрь 2026 с октябрём прошлого года",
        "Сравни выпуск карт за октябрь 2026 к октябрю прошлого года",
        "Compare cards issued in October 2026 with October last year",
    ],
)
def test_a_named_month_of_last_year_is_a_year_back(make_task, sql, request_text):
    view = make_task().run(request_text)
    assert [s.status for s in view.plan] == ["done"] * 4, view.summary
    assert "прошлого года" not in _meta(view, 1)["question"]
    assert (_meta(view, 2)["start"], _meta(view, 2)["end"]) == ("2025-10-01", "2025-10-31")
    ((now, before),) = sql(
        "SELECT COUNT(*) FILTER (WHERE issue_date BETWEEN '2026-10-01' AND '2026-10-31'), "
        "COUNT(*) FILTER (WHERE issue_date BETWEEN '2025-10-01' AND '2025-10-31') "
        "FROM dwh.fact_card_issue"
    )
    ((cur, prev, change, _pct),) = _table(view, 3).rows
    assert (cur, prev, change) == (now, before, now - before)


def test_a_redo_comment_on_a_comparison_is_refused_with_the_reason(make_task):
    service = make_task()
    view = service.start("Сравни выпуск карт за октябрь 2026 с прошлым годом")
    view = service.decide(view.task_id, {"action": "approve"})  # the plan
    for _ in range(2):  # steps 1 and 2
        view = service.decide(view.task_id, {"action": "approve"})
    assert view.pending["step"]["n"] == 3
    before = view.plan[2].model_dump()
    view = service.decide(view.task_id, {"action": "redo", "comment": "покажи в процентах"})
    assert view.status == "awaiting_step" and view.pending["step"]["n"] == 3
    notice = view.pending["notice"]
    assert notice.startswith("Комментарий «покажи в процентах» к шагу «Сравнить") and (
        "по таблицам шагов 1, 2" in notice and "не перезапущен" in notice
    ), notice
    assert view.plan[2].model_dump() == before, "nothing was rerun"


def test_a_redo_refusal_is_in_the_request_language(make_task):
    service = make_task()
    view = service.start("Compare cards issued in October 2026 with last year")
    view = service.decide(view.task_id, {"action": "approve"})
    for _ in range(2):
        view = service.decide(view.task_id, {"action": "approve"})
    view = service.decide(view.task_id, {"action": "redo", "comment": "make it prettier"})
    assert view.pending["notice"].startswith('The comment "make it prettier" cannot be applied')
    assert "steps 1, 2" in view.pending["notice"]


def test_a_redo_without_the_breakdown_changes_the_plan_not_the_words(make_task, sql):
    """ "без разбивки" on "... по платёжным системам": the plan loses its breakdown (and the
    card join), the question keeps every word and says what changed."""
    service = make_task()
    view = service.start("Сумма платежей по платёжным системам за октябрь 2026")
    view = service.decide(view.task_id, {"action": "approve"})
    assert _table(view, 1).columns == ["payment_system", "payment_amount"]
    view = service.decide(view.task_id, {"action": "redo", "comment": "без разбивки"})
    step = view.plan[0]
    assert step.args["question"].startswith("Сумма платежей по платёжным системам за октябрь 2026")
    assert step.args["question"].endswith("без разбивки")
    ((total,),) = sql(
        "SELECT SUM(amount_rub) FROM dwh.fact_payment WHERE status = 'success' "
        "AND payment_date BETWEEN '2026-10-01' AND '2026-10-31'"
    )
    table = _table(view, 1)
    assert table.columns == ["payment_amount"] and _cents(table.rows[0][0]) == _cents(total)
