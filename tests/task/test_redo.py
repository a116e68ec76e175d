"""Redo comments in rules mode: read into argument changes, or refused with what the step
can take (the step is never rerun as it was); the step numbers stay what they were."""

from __future__ import annotations

import pytest

from vitrina.task.redo import parse_redo
from vitrina.task.state import Step

TODAY = __import__("datetime").date(2026, 11, 30)
PLAN = {
    "topic": "payments",
    "base_table": "dwh.fact_payment",
    "metrics": ["payment_amount"],
    "dimensions": [{"table": "dwh.dim_region", "column": "region_name"}],
    "order": "desc",
}


@pytest.mark.parametrize(
    ("step", "comment", "args", "changes"),
    [
        (
            Step(
                n=1,
                title="t",
                tool="ask",
                args={"question": "Сумма платежей по регионам за 2025 год"},
            ),
            "за 2024 год",
            {"question": "Сумма платежей по регионам за 2024 год"},
            ["2024 год"],
        ),
        (  # the plan the step ran loses its breakdown and gets the grain; no word is cut
            Step(
                n=1,
                title="t",
                tool="ask",
                args={"question": "Сумма платежей по регионам за 2025 год", "plan": PLAN},
            ),
            "без разбивки, по месяцам",
            {
                "question": "Сумма платежей по регионам за 2025 год, без разбивки по месяцам",
                "plan": {
                    **PLAN,
                    "dimensions": [],
                    "order": None,
                    "limit": None,
                    "grain": "month",
                    "compared": None,
                },
            },
            ["без разбивки", "по месяцам"],
        ),
        (
            Step(n=1, title="t", tool="ask", args={"question": "Payments in 2025"}),
            "by region",
            {"question": "Payments in 2025 by region"},
            ["by region"],
        ),
        (
            Step(n=2, title="t", tool="ask", args={"shift_from_step": 1, "unit": "year"}),
            "сравни лучше с прошлым кварталом",
            {"shift_from_step": 1, "unit": "quarter"},
            ["с прошлым кварталом"],
        ),
        (
            Step(n=5, title="t", tool="ask", args={"series_from_step": 1, "months": 24}),
            "возьми 36 месяцев",
            {"series_from_step": 1, "months": 36},
            ["36 месяцев"],
        ),
        (
            Step(n=6, title="t", tool="analyze", args={"kind": "forecast", "step": 5}),
            "на 6 месяцев, линейный тренд",
            None,
            ["на 6 месяцев", "linear"],
        ),
        (
            Step(n=7, title="t", tool="write_file", args={"format": "excel"}),
            "лучше в csv",
            {"format": "csv"},
            ["csv"],
        ),
    ],
)
def test_comments_become_argument_changes(step, comment, args, changes):
    redo = parse_redo(step, comment, TODAY, "ru")
    assert redo.changes == changes
    if args is not None:
        assert redo.args == args
    else:
        assert redo.args["target"]["months"] == 6 and redo.args["method"] == "linear"


def test_no_breakdown_without_a_plan_is_not_applied_by_cutting_words():
    """A step a model's SQL answered has no plan: "без разбивки" cannot be applied exactly,
    so it is not (the comment is refused), rather than cut out of the question's words."""
    step = Step(
        n=1, title="t", tool="ask", args={"question": "Сумма платежей по платёжным системам"}
    )
    assert parse_redo(step, "без разбивки", TODAY, "ru").changes == []


def test_a_comment_about_nothing_the_step_takes_changes_nothing():
    step = Step(n=6, title="t", tool="analyze", args={"kind": "forecast", "step": 5})
    assert parse_redo(step, "сделай красивее", TODAY, "ru").changes == []


REQUEST = "Сравни открытия кошельков за 3 квартал 2026 с прошлым годом по регионам"


def test_redo_applies_the_period_and_keeps_step_numbers(make_task):
    service = make_task()
    view = service.start(REQUEST)
    view = service.decide(view.task_id, {"action": "approve"})
    view = service.decide(view.task_id, {"action": "redo", "comment": "за 2 квартал 2026"})
    step = view.plan[0]
    assert view.pending["step"]["n"] == 1 and step.attempts == 1
    assert step.args["question"] == "Открытия кошельков по регионам за 2 квартал 2026"
    assert step.outputs[0].meta["start"] == "2026-04-01" and step.report.startswith(
        "Повтор с изменениями"
    )
    view = service.decide(view.task_id, {"action": "approve"})
    assert view.pending["step"]["n"] == 2 and view.plan[1].outputs[0].meta["start"] == "2025-04-01"
    assert [s.n for s in view.plan] == [1, 2, 3, 4], "no renumbering after a redo"


def test_a_comment_not_understood_is_refused_and_asked_again(make_task):
    service = make_task()
    view = service.start(REQUEST)
    view = service.decide(view.task_id, {"action": "approve"})
    before = view.plan[0].model_dump()
    view = service.decide(view.task_id, {"action": "redo", "comment": "сделай красивее"})
    assert view.status == "awaiting_step" and view.pending["step"]["n"] == 1
    assert view.pending["notice"].startswith("Комментарий не понят без модели: «сделай красивее»")
    assert "период («за 2025 год»)" in view.pending["notice"]
    assert view.plan[0].model_dump() == before, "nothing was rerun"
    view = service.decide(view.task_id, {"action": "approve"})
    assert view.pending["step"]["n"] == 2
