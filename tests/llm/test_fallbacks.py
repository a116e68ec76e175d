"""Never worse than rules: with a model that always fails, every job gives what `--no-llm` gives.

A failing model is any of: a timeout (the turn then skips the model), an empty reply,
output that is not JSON, a reply cut at max_tokens (each slot then spends its one repair).
For every job the result with that model is compared with the result without one.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from vitrina.llm import LLMClient
from vitrina.llm.fake import Cut, Malformed, ScriptedChatModel

TODAY = date(2026, 11, 30)
FAILURES = {
    "empty": "",
    "timeout": TimeoutError("scripted timeout"),
    "not_json": Malformed("I think the answer is"),
    "cut": Cut('{"sql": "SELECT'),
}
# written before reading the code that handles them; the demo warehouse's domain
QUESTIONS = [
    "Сумма платежей по картам в мае 2025",
    "Сколько клиентов в каждом регионе?",
    "Средний платёж за 2025 год по месяцам",
    "Total payments by region in 2025",
    "Какая доля платежей приходится на Москву?",
    "Сколько стоит биткоин?",
]


def failing(kind: str) -> tuple[LLMClient, ScriptedChatModel]:
    fake = ScriptedChatModel(every=FAILURES[kind])
    return LLMClient(fake, timeout_s=2, max_retries=1, sleep=lambda _s: None), fake


def answer_of(result) -> tuple:
    """What the user gets, less the note that says the model was down (checked apart)."""
    answer = result.answer
    notice = (getattr(result, "model_unavailable", None) or {}).get("notice")
    if notice:
        assert answer.endswith(notice), answer
        answer = answer[: -len(notice)].rstrip()
    return (
        result.status,
        result.sql,
        answer or None,
        result.columns,
        result.rows,
        (result.clarification or {}).get("question"),
    )


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_ask_with_a_failing_model_answers_as_the_rules(
    kind: str, demo_db: Path, tmp_path: Path
) -> None:
    from vitrina.ask import AskService
    from vitrina.config import load_settings

    settings = load_settings(db_url=f"duckdb:///{demo_db}")
    rules = AskService(settings, today=TODAY, write_files=False, use_llm=False)
    client, fake = failing(kind)
    model = AskService(settings, today=TODAY, write_files=False, llm=client)
    try:
        for n, question in enumerate(QUESTIONS):
            expected = rules.ask(question, thread_id=f"r{n}")
            got = model.ask(question, thread_id=f"m{n}")
            assert answer_of(got) == answer_of(expected), question
            asked = got.llm_usage["calls"] + got.llm_usage["skipped"]
            # a question the rules read fully asks no model (decision 174)
            assert asked >= 1 or got.sql_source == "rules", question
            if kind == "timeout" and asked:  # a model that never answers: the user is told
                assert got.model_unavailable and got.model_unavailable["notice"] in got.answer
    finally:
        rules.close()
        model.close()
    assert fake.prompts, "the model was asked"


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_route_with_a_failing_model_routes_as_the_rules(kind: str, make_service) -> None:
    from vitrina.route import RouteService

    requests = ["выручка москва", "отчёт: сумма платежей по регионам за 2025", "привет"]
    client, _ = failing(kind)
    rules = RouteService(ask_service=make_service(), today=TODAY, write_files=False)
    model = RouteService(ask_service=make_service(), today=TODAY, write_files=False, llm=client)
    for request in requests:
        expected, got = rules.handle(request), model.handle(request)
        assert (got.intent, got.role, got.status, got.answer) == (
            expected.intent,
            expected.role,
            expected.status,
            expected.answer,
        ), request
        assert [c["id"] for c in got.candidates] == [c["id"] for c in expected.candidates]
        assert (got.chosen or {}).get("id") == (expected.chosen or {}).get("id")


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_task_with_a_failing_model_plans_and_runs_as_the_rules(
    kind: str, make_service, tmp_path: Path
) -> None:
    from vitrina.checkpoint import sqlite_checkpointer
    from vitrina.task import TaskService

    def run(llm: LLMClient | None, name: str):
        asker = make_service(write_files=True)
        service = TaskService(
            asker.settings,
            catalog=asker.catalog,
            warehouse=asker.warehouse,
            ask=asker.ask,
            run_plan=asker.run_plan,  # step 1 and the derived steps are plans
            llm=llm,
            use_llm=llm is not None,
            today=TODAY,
            checkpointer=sqlite_checkpointer(tmp_path / f"{name}.sqlite"),
        )
        try:
            return service.run(request, mode="auto")
        finally:
            service.close()

    request = "Сравни сумму платежей по регионам за 2025 с прошлым годом и найди, где падение"
    rules, model = run(None, "rules"), run(failing(kind)[0], "model")
    assert model.plan_source == rules.plan_source == "template"
    assert [(s.title, s.tool, s.args) for s in model.plan] == [
        (s.title, s.tool, s.args) for s in rules.plan
    ]
    assert [s.status for s in model.plan] == [s.status for s in rules.plan]
    assert [bool(s.report) for s in model.plan] == [bool(s.report) for s in rules.plan]
    assert model.status == rules.status


# "not_json" is a valid (if bad) text for the wording slot, judged by the docs job's own check
@pytest.mark.parametrize("kind", ["cut", "empty", "timeout"])
def test_docs_with_a_failing_model_writes_the_rules_documents(kind: str, tmp_path: Path) -> None:
    from vitrina.config import Settings
    from vitrina.docs import make_request, run_docs
    from vitrina.docs.llm import measure_list_llm, wording_explainer

    fixtures = Path(__file__).parents[1] / "docs" / "fixtures"
    listing = tmp_path / "measures.md"
    listing.write_text(
        "Sales: Total Amount and [Average Price]\n# Stock\n## [Total Quantity]\n", encoding="utf-8"
    )
    outputs = {}
    for name, llm in (("rules", None), ("model", failing(kind)[0])):
        out = tmp_path / name
        request = make_request(
            fixtures / "small.bim", [fixtures / "sql"], measures_file=listing, out=out
        )
        slots = (
            {"explain": wording_explainer(llm), "list_llm": measure_list_llm(llm)} if llm else {}
        )
        run_docs(request, settings=Settings(home=tmp_path / f"home-{name}"), **slots)
        outputs[name] = {
            p.relative_to(out).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(out.rglob("*.md"))
        }
        assert bool(llm and llm.calls) == (llm is not None), "the model was asked"
    assert outputs["model"] == outputs["rules"] and outputs["rules"]
