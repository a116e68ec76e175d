"""A step's result is checked before it can be approved: one test per class of wrong result,
each run on the demo warehouse through the real tools (rules mode, or the scripted model
for what only a model would do), each asserting the step fails with its reason and that no
approval, no `--yes` and no evaluator can mark it done. "Today" is 30.11.2026; the demo
data run from 01.01.2023 to 30.11.2026."""

from __future__ import annotations

import pytest

from vitrina.llm.fake import ScriptedChatModel, calling
from vitrina.task.sandbox import isolation
from vitrina.task.service import InvalidDecision

needs_sandbox = pytest.mark.skipif(
    isolation()[0] is None,
    reason="no bubblewrap sandbox on this machine (apt-get install bubblewrap)",
)


def _run_until_failed(service, request, *, edit=None):
    """Approve the plan (edited when asked) and every step until one fails; return the view."""
    view = service.start(request)
    if edit is not None:
        view = service.decide(view.task_id, {"action": "edit", "steps": edit})
    view = service.decide(view.task_id, {"action": "approve"})
    for _ in range(10):
        if view.pending is None or view.pending.get("error"):
            return view
        view = service.decide(view.task_id, {"action": "approve"})
    return view


def _cannot_approve(service, view):
    assert "approve" not in view.pending["options"]
    with pytest.raises(InvalidDecision):
        service.decide(view.task_id, {"action": "approve"})


def test_no_data_for_the_compared_period(make_task):
    service = make_task()
    view = _run_until_failed(
        service, "Сравни сумму платежей по регионам за январь 2023 с прошлым годом"
    )
    step = view.pending["step"]
    assert step["n"] == 2 and "Нет данных" in view.pending["error"]
    assert "данные есть с 01.01.2023 по 30.11.2026" in view.pending["error"]
    _cannot_approve(service, view)


@needs_sandbox
def test_an_empty_comparison_fails(make_task):
    """An edited plan whose second table shares no key with the first: nothing to compare."""
    first = "Открытия кошельков по регионам за 2025 год"
    other = (
        "SELECT dr.region_name || ' (старое название)' AS region_name, COUNT(*) AS wallets_opened "
        "FROM dwh.fact_wallet_opening AS fwo JOIN dwh.dim_region AS dr ON fwo.region_id "
        "= dr.region_id "
        "WHERE fwo.open_date >= DATE '2024-01-01' AND fwo.open_date < DATE '2025-01-01' GROUP BY 1"
    )
    edit = [
        {"title": "Кошельки 2025", "tool": "ask", "args": {"question": first}},
        {"title": "Кошельки 2024", "tool": "run_sql", "args": {"sql": other}},
        {
            "title": "Сравнить",
            "tool": "analyze",
            "args": {"kind": "compare", "step": 1, "other_step": 2},
        },
    ]
    service = make_task()
    view = _run_until_failed(service, "Сравни открытия кошельков по регионам", edit=edit)
    assert view.pending["step"]["n"] == 3
    assert (
        view.pending["error"] == "Сравнение пустое: ни одна строка шага 1 не нашла пары в шаге 2."
    )
    _cannot_approve(service, view)


@needs_sandbox
def test_a_partial_period_compared_with_a_whole_one_fails(make_task):
    service = make_task()
    view = _run_until_failed(
        service, "Сравни открытия кошельков за 4 квартал 2026 с прошлым годом по регионам"
    )
    assert view.pending["step"]["n"] == 3
    assert "IV квартал 2026 неполный: данные по 30.11.2026" in view.pending["error"]
    _cannot_approve(service, view)


def test_a_series_that_does_not_cover_the_asked_months_fails(make_task):
    """48 months back from October 2026 start in November 2022; the data start in 2023."""
    service = make_task()
    view = service.start("Сделай прогноз открытий кошельков на следующий месяц")
    view = service.decide(view.task_id, {"action": "approve"})  # step 1: the data
    view = service.decide(
        view.task_id, {"action": "approve"}
    )  # step 2: the 24-month series, complete
    assert view.pending["step"]["n"] == 2 and view.pending["error"] is None
    view = service.decide(view.task_id, {"action": "redo", "comment": "за 48 месяцев"})
    assert view.plan[1].args["months"] == 48 and "за 48 месяцев" in view.plan[1].note
    assert view.pending["error"] == (
        "Ряд покрывает 46 из 48 мес. (ноябрь 2022 – октябрь 2026); нет месяцев: "
        "ноябрь 2022, декабрь 2022."
    )
    _cannot_approve(service, view)


def test_yes_skips_a_failed_step_and_the_summary_says_why(make_task):
    view = make_task().run("Сравни сумму платежей по регионам за январь 2023 с прошлым годом")
    assert [s.status for s in view.plan][:3] == ["done", "skipped", "skipped"]
    assert (
        "Шаг 2 «Те же данные за соответствующий период прошлого года» не выполнен: Нет данных"
        in view.summary
    )
    assert "## Выводы" in view.summary


FORECAST_PLAN = {
    "steps": [
        {"title": "Ряд открытий кошельков", "tool": "ask"},
        {"title": "Прогноз на следующий месяц", "tool": "analyze"},
    ]
}


def _model_forecast(make_task, series_question, forecast_args, **scripts):
    fake = ScriptedChatModel(
        {
            "task_planner": [FORECAST_PLAN],
            "task_executor": [
                calling("ask", {"question": series_question}),
                "Ряд получен.",
                calling("analyze", {"kind": "forecast", "step": 1, **forecast_args}),
                "Прогноз готов.",
            ],
            **scripts,
        }
    )
    return make_task(fake), fake


@needs_sandbox
def test_a_forecast_of_another_horizon_than_asked_fails(make_task):
    service, _ = _model_forecast(
        make_task, "Открытия кошельков по месяцам с 01.11.2024 по 31.10.2026", {"horizon": 3}
    )
    view = _run_until_failed(service, "Сделай прогноз открытий кошельков на следующий месяц")
    assert view.pending["step"]["n"] == 2
    assert view.pending["error"] == (
        "Прогноз на ноябрь 2026 – январь 2027 (3), а запрошен «следующий месяц» = ноябрь 2026."
    )
    _cannot_approve(service, view)


@needs_sandbox
def test_a_forecast_over_months_with_actuals_fails(make_task):
    """The series stops at September; October is complete, so forecasting it overlaps actuals."""
    service, _ = _model_forecast(
        make_task, "Открытия кошельков по месяцам с 01.01.2025 по 30.09.2026", {"horizon": 1}
    )
    view = _run_until_failed(service, "Сделай прогноз открытий кошельков на следующий месяц")
    assert view.pending["error"] == (
        "Прогноз перекрывает фактические данные: первый месяц прогноза — "
        "октябрь 2026, последний месяц с фактом — октябрь 2026."
    )
    _cannot_approve(service, view)


@needs_sandbox
def test_the_evaluator_cannot_accept_a_failed_step(make_task):
    service, _ = _model_forecast(
        make_task,
        "Открытия кошельков по месяцам с 01.01.2025 по 30.09.2026",
        {"horizon": 1},
        task_evaluator=[{"verdict": "accept"}, {"verdict": "accept"}, {"verdict": "skip"}],
    )
    view = service.start("Сделай прогноз открытий кошельков на следующий месяц", mode="auto")
    assert view.status == "done" and [s.status for s in view.plan] == ["done", "skipped"]
    assert any(
        e.kind.value == "rejected" and "evaluator accepted a failed step" in e.message
        for e in view.trace
    )
    assert "перекрывает фактические данные" in view.summary
