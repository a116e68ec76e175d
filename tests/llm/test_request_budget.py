"""One budget per user request and every failure said (decision 175), through the REAL
client: ChatOpenAI + LLMClient over HTTP to the local OpenAI-compatible server
(tests/llm/openai_server.py), built from settings the way production builds it."""

from __future__ import annotations

import json
import time
from datetime import date
from pathlib import Path

import pytest

from vitrina.ask.service import AskService, model_notice
from vitrina.config import load_settings
from vitrina.llm.breaker import Breaker
from vitrina.llm.factory import BREAKER_FILE, build_client, endpoint_key
from vitrina.query.messages import text

from .openai_server import OpenAIServer

TODAY = date(2026, 11, 30)
# "пенсионеров" is no word of the demo catalog: the model path is wanted
NEEDS_MODEL = {"ru": "Средний чек клиентов-пенсионеров в мае 2025", "en": None}


def service_for(server: OpenAIServer, demo_db: Path, home: Path, **changes: object) -> AskService:
    values: dict[str, object] = {
        "db_url": f"duckdb:///{demo_db}",
        "llm_provider": "openai",
        "llm_base_url": server.base_url,
        "llm_model": "test-model",
        "llm_timeout_s": 1.0,
        "llm_max_retries": 2,
        "llm_backoff_s": 0.01,
        "llm_breaker_failures": 3,
    }
    values.update(changes)
    settings = load_settings(**values).model_copy(update={"home": home})  # its own breaker
    client = build_client(settings)
    assert client is not None and type(client.model).__name__ == "CompatibleChatOpenAI"
    return AskService(settings, today=TODAY, write_files=False, llm=client)


def ask(service: AskService, question: str):
    try:
        return service.ask(question)
    finally:
        service.close()


# mode of every chat request -> the notice's kind, and the most requests one turn may send
FAULTS = {
    "hang": ("timeout", 1),  # never answers: not retried, the turn is off
    "500": ("server_error", 3),  # three 5xx open the breaker: not 15 requests
    "malformed": ("invalid_reply", 3),  # first try, repair, next slot: the breaker opens
}


@pytest.mark.parametrize("mode", sorted(FAULTS))
def test_each_fault_is_said_and_bounded(
    mode: str, server: OpenAIServer, demo_db: Path, tmp_path: Path
) -> None:
    server.state.default_mode = mode
    server.state.hang_s = 5
    kind, most = FAULTS[mode]
    result = ask(service_for(server, demo_db, tmp_path), NEEDS_MODEL["ru"])
    sent = len(server.state.chat_requests())
    assert 1 <= sent <= most, sent
    # the model path was wanted and failed: the rules refuse, naming the word, and say why
    assert result.status == "refused" and "«пенсионеров»" in (result.answer or "")
    assert result.model_unavailable is not None
    assert result.model_unavailable["notice"] == model_notice(kind, False, "ru")
    assert result.answer.endswith(result.model_unavailable["notice"])
    assert text("model_not_used", "ru", why=text(f"model_why_{kind}", "ru")) in result.answer
    if mode != "hang":  # the breaker counted these too, and is open for the next turn
        assert Breaker(tmp_path / BREAKER_FILE, server.base_url).state().failures >= 3


def test_an_open_breaker_sends_nothing_and_says_so(
    server: OpenAIServer, demo_db: Path, tmp_path: Path
) -> None:
    service = service_for(server, demo_db, tmp_path)
    breaker = Breaker(tmp_path / BREAKER_FILE, endpoint_key(service.settings))
    for _ in range(3):
        breaker.record(False, "HTTP 500")
    result = ask(service, NEEDS_MODEL["ru"])
    assert server.state.chat_requests() == []
    assert result.model_unavailable["notice"] == model_notice("breaker_open", False, "ru")
    assert "circuit breaker open" in result.model_unavailable["reason"]


def test_the_notice_speaks_the_question_language(
    server: OpenAIServer, demo_db: Path, tmp_path: Path
) -> None:
    """A question the rules read fully asks the model only with llm_always; then a 500 is
    said in English after the rules' answer."""
    server.state.default_mode = "500"
    service = service_for(server, demo_db, tmp_path, llm_always=True)
    result = ask(service, "Total payments by region in 2025")
    assert result.status == "answered" and result.rows
    notice = model_notice("server_error", True, "en")
    assert notice.startswith("The model was not used: the model server answered with an error.")
    assert result.answer.endswith(notice)


def test_a_fully_read_question_with_a_dead_model_says_nothing(
    server: OpenAIServer, demo_db: Path, tmp_path: Path
) -> None:
    server.state.default_mode = "500"
    result = ask(service_for(server, demo_db, tmp_path), "Total payments by region in 2025")
    assert result.status == "answered" and server.state.chat_requests() == []
    assert result.model_unavailable is None


def test_a_route_to_ask_turn_stays_within_one_budget(
    server: OpenAIServer, demo_db: Path, tmp_path: Path
) -> None:
    """Every request is slow (0.8 s); the request's budget is 2 s. Route's own slot and the
    ask it runs draw on the same budget: the model time of the whole turn stays under it
    (before decision 175 ask opened a fresh budget: up to twice as much)."""
    from vitrina.route import RouteService

    server.state.default_mode = "slow"
    server.state.slow_s = 0.8
    server.state.default_reply = json.dumps({"intent": "ask", "reason": "a number"})
    budget_s = 2.0
    ask_service = service_for(
        server, demo_db, tmp_path, llm_turn_budget_s=budget_s, llm_breaker_failures=100
    )
    route = RouteService(ask_service=ask_service, today=TODAY, write_files=False)
    started = time.monotonic()
    try:
        result = route.handle(NEEDS_MODEL["ru"])
    finally:
        route.close()
    wall = time.monotonic() - started
    calls = ask_service.llm.calls
    model_s = sum(c.latency_ms for c in calls) / 1000
    tasks = {c.task for c in calls}
    assert result.ask is not None, result.nodes  # the request reached ask
    assert tasks - {"route_intent"}, tasks  # ask's own slots were asked, within the budget
    assert model_s <= budget_s + 0.25, (model_s, [(c.task, c.latency_ms) for c in calls])
    assert result.llm_usage["budget"]["seconds"] == budget_s
    assert wall < 2 * budget_s + 5


def test_docs_llm_run_has_one_budget_for_every_measure(
    server: OpenAIServer, tmp_path: Path
) -> None:
    """`vitrina docs --llm` over 11 measures with a slow model (0.5 s a request) and a 1.5 s
    budget: the run sends what the budget holds, then documents by rules (before decision
    175 every measure opened its own budget: 11 requests, 5.5 s)."""
    from typer.testing import CliRunner

    from vitrina.cli import app

    fixtures = Path(__file__).parents[1] / "docs" / "fixtures"
    server.state.default_mode = "slow"
    server.state.slow_s = 0.5
    server.state.default_reply = "Сумма суммы продаж."
    env = {
        "VITRINA_HOME": str(tmp_path / "home"),
        "VITRINA_LLM_PROVIDER": "openai",
        "VITRINA_LLM_BASE_URL": server.base_url,
        "VITRINA_LLM_MODEL": "test-model",
        "VITRINA_LLM_TIMEOUT_S": "5",
        "VITRINA_LLM_TURN_BUDGET_S": "1.5",
        "VITRINA_LLM_BREAKER_FAILURES": "100",
        "COLUMNS": "200",
    }
    out = tmp_path / "out"
    started = time.monotonic()
    res = CliRunner().invoke(
        app,
        [
            "docs",
            "--model",
            str(fixtures / "small.bim"),
            "--sql",
            str(fixtures / "warehouse"),
            "--all",
            "--out",
            str(out),
            "--llm",
        ],
        env=env,
    )
    wall = time.monotonic() - started
    assert res.exit_code == 0, res.output
    assert len(list((out / "measures").glob("*.md"))) == 11  # every measure documented
    sent = len(server.state.chat_requests())
    assert 1 <= sent <= 4, sent  # 1.5 s of 0.5 s requests, not one per measure
    assert wall < 30


def test_a_budget_is_shared_into_graph_nodes_and_the_outermost_wins() -> None:
    """The mechanism: a LangGraph node (run on the graph's own executor) that asks the
    client for a turn gets the request's budget; a nested job's `sharing` keeps the outer."""
    from typing import TypedDict

    from langgraph.graph import END, START, StateGraph

    from vitrina.llm import LLMClient
    from vitrina.llm.budget import TurnBudget, shared_budget, sharing, within
    from vitrina.llm.fake import ScriptedChatModel

    client = LLMClient(ScriptedChatModel({}), timeout_s=1)
    outer = TurnBudget(10.0, 1000)
    seen: list[object] = []

    class S(TypedDict, total=False):
        x: int

    def node(_state: S) -> dict:
        seen.append(client.turn().budget)
        with sharing(TurnBudget(99.0, 99)):  # a nested job opening its own: the outer stays
            seen.append(client.turn().budget)
        return {"x": 1}

    builder = StateGraph(S)
    builder.add_node("n", node)
    builder.add_edge(START, "n")
    builder.add_edge("n", END)
    graph = builder.compile()
    list(within(outer, graph.stream({"x": 0})))
    assert seen == [outer, outer]
    assert shared_budget() is None  # nothing leaks out of the request
    assert client.turn().budget is not outer


def test_a_task_step_asks_within_the_task_budget(make_service, tmp_path: Path) -> None:
    """`vitrina task` in autonomous mode: each ask its steps run draws on the budget of the
    task call that runs it (one budget per call, decision 175), never a fresh one."""
    from vitrina.checkpoint import sqlite_checkpointer
    from vitrina.llm import LLMClient
    from vitrina.llm.budget import shared_budget
    from vitrina.llm.fake import ScriptedChatModel
    from vitrina.task import TaskService

    asker = make_service(write_files=True)
    seen: list[object] = []

    def ask(question: str, policy: object = None):
        seen.append(shared_budget())
        return asker.ask(question)

    client = LLMClient(
        ScriptedChatModel(every=TimeoutError("slow")), timeout_s=1, sleep=lambda _s: None
    )
    service = TaskService(
        asker.settings,
        catalog=asker.catalog,
        warehouse=asker.warehouse,
        ask=ask,
        llm=client,
        use_llm=True,
        today=TODAY,
        checkpointer=sqlite_checkpointer(tmp_path / "task.sqlite"),
    )
    try:
        view = service.start(
            "Сравни сумму платежей по регионам за 2025 с прошлым годом", mode="auto"
        )
    finally:
        service.close()
    assert seen, "the task ran an ask step"
    budget = service.turns[view.task_id].budget
    assert all(b is budget for b in seen)
    # the planner's timeout took the model off for the whole call: the steps asked nothing
    assert budget.down is not None and len(client.calls) == 1
