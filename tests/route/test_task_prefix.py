"""The supervisor's own prefixes ("Задача:", "Task:", ...) choose the role and are stripped
before the hand-off: a task started through the route graph plans and runs its real steps,
never a step named "Задача". A task whose data steps all fail or are skipped is failed with
the reason, never `done` with "0 of N"."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .conftest import TODAY

REQUEST = (
    "сравни открытия кошельков за 3 квартал 2026 с прошлым годом по регионам, найди где "
    "падение, доли и сделай прогноз на 3 месяца"
)


@pytest.fixture
def route_service(demo_db: Path):
    from vitrina.ask.service import AskService
    from vitrina.config import load_settings
    from vitrina.route import RouteService

    settings = load_settings(db_url=f"duckdb:///{demo_db}")
    service = RouteService(
        ask_service=AskService(settings, today=TODAY, write_files=False),
        today=TODAY,
        write_files=False,
        use_llm=False,
    )
    yield service
    service.close()


def _task_id(answer: str) -> str:
    found = re.search(r"(?:задачи|task) ([0-9a-f]{12})", answer)
    assert found, answer
    return found.group(1)


def _drive(tasks, task_id: str, action) -> object:
    view = tasks.view(task_id)
    for _ in range(30):  # a plan and 8 steps need 9 decisions
        if view.pending is None:
            return view
        view = tasks.decide(task_id, action(view.pending))
    raise AssertionError(f"task {task_id} still waiting: {view.status}")


@pytest.mark.parametrize("prefix", ["Задача: ", "ЗАДАЧА:", "задача : "])
def test_task_prefix_is_stripped_and_every_step_runs(route_service, prefix: str) -> None:
    from vitrina.task.service import auto_decision

    result = route_service.handle(prefix + REQUEST)
    assert (result.role, result.status) == ("task", "awaiting_plan"), result.answer
    assert any("prefix 'задача' stripped" in e.message for e in result.trace)
    tasks = route_service._task_service
    task_id = _task_id(result.answer)
    view = tasks.view(task_id)
    assert view.request == REQUEST
    titles = [s.title for s in view.plan]
    assert len(titles) == 8 and not any("Задача" in t for t in titles), titles
    first = view.plan[0].args
    assert first["question"] == "Открытия кошельков за 3 квартал 2026 по регионам"
    # step 1 is the request's plan (task.plan.template.first_step_plan), not the words
    assert [d["column"] for d in first["plan"]["dimensions"]] == ["region_name"]
    assert (first["plan"]["period"]["start"], first["plan"]["period"]["end"]) == (
        "2026-07-01",
        "2026-09-30",
    )

    done = _drive(tasks, task_id, auto_decision)
    assert done.status == "done", done.summary
    assert [s.status for s in done.plan] == ["done"] * 8, [(s.n, s.error) for s in done.plan]
    assert "Выполнено шагов: 8 из 8" in done.summary


def test_english_prefix_without_space(route_service) -> None:
    request = "TASK:compare wallet openings in Q3 2026 with last year by region"
    result = route_service.handle(request)
    assert result.role == "task", result.answer
    view = route_service._task_service.view(_task_id(result.answer))
    assert view.request.startswith("compare wallet openings")
    assert not any(s.title.lower().startswith("get the data: task") for s in view.plan)
    assert view.plan[0].args["question"].lower().startswith("wallet openings")


def test_a_task_with_no_step_run_is_failed_not_done(route_service) -> None:
    result = route_service.handle("Задача: " + REQUEST)
    tasks = route_service._task_service
    task_id = _task_id(result.answer)

    def skip_all(pending: dict) -> dict:
        return {"action": "approve"} if pending["kind"] == "plan" else {"action": "skip"}

    view = _drive(tasks, task_id, skip_all)
    assert view.status == "failed", view.summary
    assert "ни один шаг с данными не выполнен" in view.summary
    assert "Выполнено шагов: 0 из 8" in view.summary
    assert any(e.kind == "error" and "no data step ran" in e.message for e in view.trace), (
        "the failure is in the decision trace"
    )


def test_the_model_planner_gets_the_task_without_the_prefix(demo_db: Path) -> None:
    from vitrina.ask.service import AskService
    from vitrina.config import load_settings
    from vitrina.llm import LLMClient
    from vitrina.llm.fake import ScriptedChatModel
    from vitrina.route import RouteService

    steps = [{"title": f"Шаг {n}", "tool": "ask", "args": {"question": "x"}} for n in range(7)]
    model = ScriptedChatModel({"task_planner": [{"steps": steps}]})
    llm = LLMClient(model, timeout_s=5, max_retries=0, sleep=lambda s: None)
    settings = load_settings(db_url=f"duckdb:///{demo_db}")
    ask = AskService(settings, today=TODAY, write_files=False, use_llm=False)
    service = RouteService(ask_service=ask, today=TODAY, write_files=False, llm=llm)
    try:
        result = service.handle("Задача: " + REQUEST)
        assert (result.role, result.status) == ("task", "awaiting_plan"), result.answer
        (prompt,) = model.prompts_for("task_planner")
        assert REQUEST in prompt.text and "Задача" not in prompt.text
        view = service._task_service.view(_task_id(result.answer))
        assert len(view.plan) == 7 and view.plan_source == "llm"
    finally:
        service.close()
