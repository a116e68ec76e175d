"""The task graph with the scripted fake model: approvals, edits, replans, redo, skip, the
loop guard, the corrective message, a crash and resume, the planner fallback, autonomy."""

from __future__ import annotations

from pathlib import Path

import pytest

from vitrina.llm.fake import Cut, Malformed, NoToolCalls, ScriptedChatModel, calling
from vitrina.task.service import InvalidDecision

Q = "Сумма платежей по регионам за 3 квартал 2026"
PLAN = {
    "steps": [
        {"title": "Платежи по регионам", "tool": "ask", "args": {"question": Q}},
        {"title": "Сохранить в Excel", "tool": "write_file", "args": {"format": "excel"}},
    ]
}
REQUEST = "Посмотри платежи по регионам за 3 квартал 2026. Сохрани в Excel."


def model(**scripts):
    return ScriptedChatModel({"task_planner": [PLAN], **scripts})


def two_steps(extra_first=()):
    return [
        *extra_first,
        calling("ask", {"question": Q}),
        "Платежи по регионам получены.",
        calling("write_file", {"format": "excel", "name": "итоги"}),
        "Файл сохранён.",
    ]


def test_approve_plan_and_every_step(make_task):
    fake = model(task_executor=two_steps())
    service = make_task(fake)
    view = service.start(REQUEST)
    assert view.status == "awaiting_plan" and view.plan_source == "llm"
    assert [s.title for s in view.plan] == ["Платежи по регионам", "Сохранить в Excel"]
    view = service.decide(view.task_id, {"action": "approve"})
    assert view.status == "awaiting_step" and view.pending["step"]["n"] == 1
    assert view.plan[0].status == "in_progress" and view.plan[0].outputs[0].row_count == 12
    view = service.decide(view.task_id, {"action": "approve"})
    view = service.decide(view.task_id, {"action": "approve"})
    assert view.status == "done"
    assert [s.status for s in view.plan] == ["done", "done"]
    assert (
        any(f.endswith("итоги.xlsx") for f in view.files)
        and Path(view.out_dir, "summary.md").is_file()
    )
    assert "Платежи по регионам получены." in view.summary
    assert {p["name"] for p in view.prompts} == {"planner", "executor"}
    assert all(p["version"] == 1 and p["source"] == "file" for p in view.prompts)
    assert fake.remaining() == {}
    executor = fake.prompts_for("task_executor")[
        2
    ]  # the second step sees step 1 compressed, not its messages
    assert "Платежи по регионам получены." in executor.text and "Сохранить в Excel" in executor.text
    assert not any(m.type == "tool" for m in executor.messages)


def test_edit_then_approve(make_task):
    fake = model(task_executor=[calling("ask", {"question": Q}), "Готово."])
    service = make_task(fake)
    view = service.start(REQUEST)
    view = service.decide(view.task_id, {"action": "edit", "steps": [Q]})
    assert view.status == "awaiting_plan" and view.plan_source == "user" and len(view.plan) == 1
    view = service.decide(view.task_id, {"action": "approve"})
    view = service.decide(view.task_id, {"action": "approve"})
    assert view.status == "done" and view.plan[0].title == Q


def test_replan_with_comment(make_task):
    fake = ScriptedChatModel(
        {
            "task_planner": [
                PLAN,
                {"steps": [{"title": "Только Excel", "tool": "ask", "args": {"question": Q}}]},
            ]
        }
    )
    service = make_task(fake)
    view = service.start(REQUEST)
    view = service.decide(
        view.task_id, {"action": "replan", "comment": "без отдельного шага сохранения"}
    )
    assert [s.title for s in view.plan] == ["Только Excel"]
    assert "без отдельного шага сохранения" in fake.prompts_for("task_planner")[1].text
    with pytest.raises(InvalidDecision):
        service.decide(view.task_id, {"action": "redo"})


def test_redo_one_step_with_comment(make_task):
    fake = model(
        task_executor=[
            calling("ask", {"question": Q}),
            "Первый вариант.",
            calling("ask", {"question": Q + " по месяцам"}),
            "Второй вариант.",
            calling("write_file", {"format": "csv"}),
            "CSV готов.",
        ]
    )
    service = make_task(fake)
    view = service.start(REQUEST)
    view = service.decide(view.task_id, {"action": "approve"})
    view = service.decide(view.task_id, {"action": "redo", "comment": "разбей по месяцам"})
    assert view.pending["step"]["n"] == 1 and view.plan[0].attempts == 1
    assert "разбей по месяцам" in fake.prompts_for("task_executor")[2].text
    view = service.decide(view.task_id, {"action": "approve"})
    view = service.decide(view.task_id, {"action": "approve"})
    assert view.status == "done" and view.plan[0].report == "Второй вариант."
    assert [h["n"] for h in view.history] == [1, 2]  # the redone step is recorded once


def test_skip_a_step(make_task):
    fake = model(
        task_executor=[
            calling("ask", {"question": Q}),
            "Первый.",
            calling("write_file", {"format": "csv"}),
            "Второй.",
        ]
    )
    service = make_task(fake)
    view = service.start(REQUEST)
    view = service.decide(view.task_id, {"action": "approve"})
    view = service.decide(view.task_id, {"action": "skip"})
    view = service.decide(view.task_id, {"action": "approve"})
    assert [s.status for s in view.plan] == ["skipped", "done"]
    assert "пропущен" in view.summary


def test_stop_at_a_step(make_task):
    fake = model(task_executor=[calling("ask", {"question": Q}), "Первый."])
    service = make_task(fake)
    view = service.start(REQUEST)
    view = service.decide(view.task_id, {"action": "approve"})
    view = service.decide(view.task_id, {"action": "stop"})
    assert view.status == "stopped" and [s.status for s in view.plan] == ["done", "pending"]


def test_loop_guard_fires_and_the_user_chooses(make_task):
    fake = model(
        task_executor=[
            calling("ask", {"question": Q}),
            calling("ask", {"question": Q}),
            calling("write_file", {"format": "csv"}),
            "Готово.",
        ]
    )
    service = make_task(fake, max_step_iterations=2)
    view = service.start(REQUEST)
    view = service.decide(view.task_id, {"action": "approve"})
    step = view.plan[0]
    assert "лимит итераций (2)" in step.error and len(step.outputs) == 2
    assert view.pending["options"] == ["redo", "skip", "stop"]
    with pytest.raises(InvalidDecision):
        service.decide(view.task_id, {"action": "approve"})
    view = service.decide(view.task_id, {"action": "skip"})
    view = service.decide(view.task_id, {"action": "approve"})
    assert [s.status for s in view.plan] == ["skipped", "done"]
    # only the file step ran, over no data: an empty result is failed, never done (decision 173)
    assert view.status == "failed" and "ни один шаг с данными" in view.summary


def test_global_bound_stops_the_task(make_task):
    fake = model(task_executor=[calling("ask", {"question": Q})] * 3)
    service = make_task(fake, max_total_iterations=3, max_step_iterations=10)
    view = service.start(REQUEST, mode="auto")
    assert view.status == "failed" and "общий лимит итераций (3)" in view.summary


def test_announced_calls_without_calls_get_one_correction(make_task):
    fake = model(
        task_executor=[
            NoToolCalls(),
            calling("ask", {"question": Q}),
            "Готово.",
            NoToolCalls(),
            NoToolCalls(),
        ]
    )
    service = make_task(fake)
    view = service.start(REQUEST)
    view = service.decide(view.task_id, {"action": "approve"})
    assert view.plan[0].report == "Готово."
    assert "не передали его" in fake.prompts_for("task_executor")[1].text
    view = service.decide(view.task_id, {"action": "approve"})
    assert "не содержал" in view.plan[1].error and view.pending["options"] == [
        "redo",
        "skip",
        "stop",
    ]
    assert fake.remaining() == {}


@pytest.mark.parametrize(
    "failure", [[Malformed(), Malformed()], [TimeoutError("slow")], [Cut(), Cut()]]
)
def test_a_failing_planner_model_gives_the_no_llm_plan(make_task, failure):
    fake = ScriptedChatModel({"task_planner": failure})
    view = make_task(fake).start(REQUEST)
    rules = make_task(None).start(REQUEST)
    assert view.plan_source == rules.plan_source == "template"
    assert [(s.title, s.tool, s.args) for s in view.plan] == [
        (s.title, s.tool, s.args) for s in rules.plan
    ]
    assert fake.remaining() == {}


def test_plan_capped_in_length(make_task):
    many = {"steps": [{"title": f"Шаг номер {i}"} for i in range(12)]}
    service = make_task(ScriptedChatModel({"task_planner": [many]}), max_plan_steps=4)
    view = service.start(REQUEST)
    assert len(view.plan) == 4 and any(e.kind == "rejected" for e in view.trace)


def test_autonomous_mode_with_the_evaluator(make_task):
    fake = model(
        task_executor=[
            *two_steps()[:2],
            calling("ask", {"question": Q}),
            "Ещё раз.",
            *two_steps()[2:],
        ],
        task_evaluator=[
            {"verdict": "redo", "comment": "проверь ещё раз"},
            {"verdict": "accept"},
            {"verdict": "accept"},
        ],
    )
    service = make_task(fake)
    view = service.start(REQUEST, mode="auto")
    assert view.status == "done" and view.pending is None
    assert view.plan[0].attempts == 1 and [s.status for s in view.plan] == ["done", "done"]
    assert fake.remaining() == {}


def test_crash_between_steps_then_resume_does_not_rerun_finished_steps(
    make_task, make_service, tmp_path
):
    asker = make_service()
    calls: list[str] = []
    crash = {"armed": True}

    def flaky_run_plan(plan, **kwargs):
        """Steps 1 and 2 are plans run through ask (step 1 the request's, step 2 it a year
        back): the second run crashes once."""
        calls.append(plan.period.start.isoformat())
        if len(calls) == 2 and crash["armed"]:
            crash["armed"] = False
            raise RuntimeError("simulated crash inside the executor")
        return asker.run_plan(plan, **kwargs)

    state = tmp_path / "crash.sqlite"
    request = "Сравни открытия кошельков за 3 квартал 2026 с прошлым годом по регионам"
    first = make_task(state_path=state, run_plan=flaky_run_plan)
    with pytest.raises(RuntimeError, match="simulated crash"):
        first.run(request, task_id="crash1")
    assert first.view("crash1").plan[0].status == "done"
    second = make_task(state_path=state, run_plan=flaky_run_plan)  # a new process, same state
    view = second.resume("crash1")
    for _ in range(10):
        if view.pending is None:
            break
        view = second.decide("crash1", {"action": "approve"})
    assert view.status == "done"
    assert len(calls) == 3  # step 1 once, step 2 crashed once and ran once; step 1 never again
    assert calls == ["2026-07-01", "2025-07-01", "2025-07-01"]
