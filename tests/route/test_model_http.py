"""The route graph through the REAL model client: ChatOpenAI + LLMClient over HTTP to the
local OpenAI-compatible server (tests/llm/openai_server.py), wired the way production is
(`vitrina route`'s service builder reads the model from the settings)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from llm.openai_server import OpenAIServer, ServerState, serve
from vitrina.route.commands import _service

REPORT = "отчёт: сумма платежей по регионам за 2025 год"


@pytest.fixture
def server():
    with serve(ServerState()) as srv:
        yield srv


@pytest.fixture
def configured(demo_db: Path, monkeypatch: pytest.MonkeyPatch, server: OpenAIServer):
    """The environment of a user who configured a model: VITRINA_LLM_* aimed at the server."""
    monkeypatch.setenv("VITRINA_LLM_PROVIDER", "openai")
    monkeypatch.setenv("VITRINA_LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("VITRINA_LLM_MODEL", "test-model")
    monkeypatch.setenv("VITRINA_LLM_TIMEOUT_S", "5")
    monkeypatch.setenv("VITRINA_LLM_MAX_RETRIES", "0")
    services = []

    def build(no_llm: bool = False):
        service = _service(f"duckdb:///{demo_db}", None, None, None, None, None, None, no_llm)
        services.append(service)
        return service

    yield build
    for service in services:
        service.close()


def _tasks(server: OpenAIServer) -> list[str]:
    """What each chat request asked for, read from its system prompt."""
    out = []
    for request in server.state.chat_requests():
        system = next(m["content"] for m in request.body["messages"] if m["role"] == "system")
        out.append(
            "route_intent"
            if "Classify the analytics request" in system
            else "route_plan_score"
            if "Score each report plan" in system
            else "other"
        )
    return out


def test_the_production_service_takes_the_configured_model(configured):
    service = configured()
    assert service.llm is not None and service.context.llm is service.llm
    assert configured(no_llm=True).llm is None and configured(no_llm=True).context.llm is None


def test_intent_slot_over_http(configured, server: OpenAIServer):
    server.state.replies.append(
        json.dumps({"intent": "metadata", "reason": "asks where the data lives"})
    )
    result = configured().handle("выручка москва")
    assert (result.intent, result.role) == ("metadata", "metadata") and result.nodes[1] == "analyst"
    first = server.state.chat_requests()[0].body
    assert first["model"] == "test-model" and first["response_format"] == {"type": "json_object"}
    assert _tasks(server)[0] == "route_intent"


def test_plan_score_slot_over_http_changes_the_choice_and_the_report_runs(
    configured, server: OpenAIServer
):
    scores = {
        "scores": [
            {"id": "top_n", "score": 1.0, "reason": "leaders matter"},
            {"id": "made_up", "score": 1.0},
        ]
    }
    server.state.replies.append(json.dumps(scores))
    result = configured().handle(REPORT)
    assert _tasks(server)[0] == "route_plan_score"
    by_id = {c["id"]: c for c in result.candidates}
    assert by_id["top_n"]["total"] == by_id["top_n"]["code_score"] + 2.0
    assert result.chosen["id"] == "top_n" and result.status == "answered"
    assert result.report["row_count"] == 10
    assert any(e.kind.value == "rejected" and "unknown plan" in e.message for e in result.trace)


def test_a_model_that_answers_nonsense_leaves_the_rules_choice(configured, server: OpenAIServer):
    server.state.default_reply = "I would pick the second one"
    with_model = configured().handle(REPORT)
    rules = configured(no_llm=True).handle(REPORT)
    assert "route_plan_score" in _tasks(server)
    assert with_model.chosen["id"] == rules.chosen["id"] == "breakdown"
    assert with_model.report["rows"] == rules.report["rows"]
    assert any(
        e.kind.value == "suppressed" and "plan scoring" in e.message for e in with_model.trace
    )


def test_no_llm_sends_nothing(configured, server: OpenAIServer):
    result = configured(no_llm=True).handle("выручка москва")
    assert result.intent == "ask" and not server.state.chat_requests()
