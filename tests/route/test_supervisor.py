"""The supervisor: the role chosen for each intent, the single terminal node, faces, roles."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from vitrina.route import build_graph, classify
from vitrina.route.graph import TERMINAL

from .conftest import scripted

CASES = yaml.safe_load(
    (Path(__file__).parent / "data" / "intents.yaml").read_text(encoding="utf-8")
)
ROLE_NODES = {"ask", "plan_report", "analyst", "docs", "task", "general"}


@pytest.mark.parametrize("case", CASES, ids=[c["request"] for c in CASES])
def test_intent_rules(case):
    assert classify(case["request"]).intent == case["intent"]


def test_unsure_is_ask_and_model_slot_decides_only_then():
    assert classify("выручка москва").intent == "ask"
    model, fake = scripted(
        {"route_intent": [{"intent": "metadata", "reason": "asks where data lives"}]}
    )
    decided = classify("выручка москва", llm=model)
    assert (decided.intent, decided.source) == ("metadata", "model")
    assert classify("привет", llm=model).source == "rules" and [p.task for p in fake.prompts] == [
        "route_intent"
    ]


def test_a_model_intent_outside_the_known_ones_is_the_rule_default():
    model, _ = scripted({"route_intent": [{"intent": "delete_everything"}, {"intent": "nonsense"}]})
    decided = classify("выручка москва", llm=model)
    assert (decided.intent, decided.source) == ("ask", "default")


def test_model_failure_falls_back_to_ask():
    from vitrina.trace import Trace

    trace = Trace("classify")
    model, _ = scripted({"route_intent": [TimeoutError("slow")]})
    decided = classify("выручка москва", llm=model, trace=trace)
    assert (decided.intent, decided.source) == ("ask", "default"), "the same as with no model"
    assert trace.events[-1].kind.value == "suppressed"


@pytest.fixture(scope="module")
def route_service(demo_db, tmp_path_factory):
    from vitrina.ask.service import AskService
    from vitrina.config import load_settings
    from vitrina.route import RouteService

    from .conftest import TODAY

    settings = load_settings(db_url=f"duckdb:///{demo_db}")
    ask = AskService(settings, today=TODAY, write_files=False)
    service = RouteService(
        ask_service=ask,
        today=TODAY,
        write_files=False,
        docs_model=Path(__file__).parents[1] / "docs" / "fixtures" / "small.bim",
    )
    yield service
    service.close()


@pytest.mark.parametrize("case", CASES, ids=[c["request"] for c in CASES])
def test_graph_routes_each_intent_to_its_role_and_ends_in_deliver(route_service, case):
    result = route_service.handle(case["request"])
    assert result.intent == case["intent"]
    assert result.nodes[0] == "classify"
    assert result.nodes[1] == case["node"]
    assert result.nodes[-1] == TERMINAL and result.nodes.count(TERMINAL) == 1
    assert result.reply["face"] == "cli" and result.reply["text"]


def test_deliver_is_the_only_node_that_reaches_the_end():
    drawn = build_graph().get_graph()
    into_end = {e.source for e in drawn.edges if e.target == "__end__"}
    assert into_end == {TERMINAL}
    for node in ("ask", "docs", "task", "general", "execute_report", "onec_report"):
        assert {e.target for e in drawn.edges if e.source == node} == {TERMINAL}


def test_faces(route_service):
    web = route_service.handle("Что ты умеешь?", face="web").reply
    assert (
        web["face"] == "web"
        and web["markdown"].startswith("Я Витрина")
        and web["data"]["role"] == "general"
    )
    mcp = route_service.handle("What can you do?", face="mcp").reply
    assert mcp["content"][0]["type"] == "text" and "I am Vitrina" in mcp["content"][0]["text"]
    assert mcp["structuredContent"]["intent"] == "general" and mcp["isError"] is False


def test_task_role_proposes_a_plan_and_plugs_in(route_service):
    result = route_service.handle(
        "Задача: сравни открытия кошельков за 3 квартал 2026 с прошлым годом по регионам"
    )
    assert (result.role, result.status) == ("task", "awaiting_plan")
    assert result.answer.startswith("Предлагаю план задачи") and "vitrina task" in result.answer
    from vitrina.route import RouteService

    no_job = RouteService(
        catalog=route_service.context.catalog, warehouse=object()
    )  # no ask pipeline behind it
    result = no_job.handle("task: investigate churn step by step")
    assert (result.role, result.status) == ("task", "unavailable")

    plugged = RouteService(
        catalog=route_service.context.catalog,
        warehouse=object(),
        task_runner=lambda text: {"status": "answered", "answer": f"plan for: {text}"},
    )
    result = plugged.handle("task: investigate churn step by step")
    assert (
        result.status == "answered"
        and result.answer == "plan for: investigate churn step by step"  # the prefix stripped
    )


def test_ask_role_is_the_ask_job(route_service):
    result = route_service.handle("Сколько кошельков открыли в мае 2025?")
    assert result.role == "ask" and result.status == "answered"
    assert result.ask["sql"] and result.ask["rows"]


def test_docs_role_documents_a_measure_of_the_configured_model(route_service):
    result = route_service.handle("Документация по мере [Total Amount]")
    assert (result.role, result.status) == ("docs", "answered"), result.answer
    assert Path(result.docs["path"]).is_file() and "Total Amount" in result.answer
    missing = route_service.handle("Документация по мере [Нет Такой]")
    assert missing.status == "refused" and "Нет Такой" in missing.answer


def test_docs_role_without_a_model_says_how_to_configure_one(route_service):
    from vitrina.route import RouteService

    bare = RouteService(catalog=route_service.context.catalog, warehouse=object())
    result = bare.handle("Document the measure [Total Amount]")
    assert result.status == "refused" and "No Tabular model" in result.answer


def test_help_quotes_the_loaded_catalog_not_the_demo():
    from pathlib import Path

    from vitrina.catalog import load_catalog
    from vitrina.route.messages import text
    from vitrina.route.nodes.general import help_examples

    chinook = load_catalog(Path(__file__).resolve().parents[2] / "examples" / "chinook" / "catalog")
    for lang in ("ru", "en"):
        words = help_examples(chinook, lang)
        help_text = text("help", lang, **words)
        assert words["topic"] in help_text and words["metric"] in help_text
        assert words["question"] in help_text
        assert "платеж" not in help_text.lower() and "payment" not in help_text.lower()
