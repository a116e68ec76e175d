"""LLMClient over the scripted fake: repair once, retries with backoff (never of a timeout),
deadlines, accounting."""

from __future__ import annotations

import httpx
import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from vitrina.llm import LLMCall, LLMClient, TaskTotals
from vitrina.llm.fake import (
    FakeScriptError,
    Malformed,
    NoToolCalls,
    ScriptedChatModel,
    Slow,
    calling,
)
from vitrina.llm.jsonout import parse_into
from vitrina.trace import EventKind, Trace


class SqlDraft(BaseModel):
    sql: str
    explanation: str = ""
    confidence: float = Field(ge=0, le=1)


GOOD = '{"sql": "SELECT 1", "explanation": "one", "confidence": 0.8}'


def make(scripts: dict, **kwargs: object) -> tuple[LLMClient, ScriptedChatModel, list[float]]:
    model = ScriptedChatModel(scripts)
    sleeps: list[float] = []
    options: dict = {"timeout_s": 2.0, "sleep": sleeps.append, **kwargs}
    return LLMClient(model, **options), model, sleeps


def test_structured_first_try() -> None:
    client, model, _ = make({"sql_generation": [f"Here you go:\n```json\n{GOOD}\n```"]})
    reply = client.structured(
        "sql_generation", [SystemMessage("You write SQL."), HumanMessage("q")], SqlDraft
    )
    assert reply.ok and reply.value == SqlDraft(sql="SELECT 1", explanation="one", confidence=0.8)
    assert not reply.repaired and reply.error is None
    (prompt,) = model.prompts
    assert prompt.kwargs["response_format"] == {"type": "json_object"}
    assert prompt.max_tokens == 768, "sql_generation's own reply limit is always sent"
    assert len(prompt.messages) == 2, "the JSON instruction joins the one system message"
    assert (
        prompt.messages[0].content.startswith("You write SQL.")
        and '"confidence"' in prompt.messages[0].content
    )


def test_invalid_output_is_repaired_once_quoting_the_error() -> None:
    client, model, sleeps = make({"sql_generation": [Malformed(), GOOD]})
    trace = Trace("sql_generation")
    reply = client.structured("sql_generation", "q", SqlDraft, trace=trace)
    assert reply.ok and reply.repaired
    repair = model.prompts[1]
    assert repair.messages[-2].content == Malformed().text, "the bad reply is shown back"
    assert "invalid JSON" in repair.messages[-1].content and '"sql"' in repair.messages[-1].content
    assert [c.repair for c in client.calls] == [False, True] and [
        c.attempt for c in client.calls
    ] == [1, 2]
    assert not client.calls[0].ok and client.calls[1].ok
    assert sleeps == [], "bad output is not a transport error: no backoff"
    assert [e.kind for e in trace.events] == [EventKind.BRANCH]


def test_still_invalid_after_repair_gives_none_never_raises() -> None:
    client, model, _ = make(
        {"sql_generation": ['{"sql": "SELECT 1", "confidence": 7}', "no json at all"]}
    )
    trace = Trace("sql_generation")
    reply = client.structured("sql_generation", "q", SqlDraft, trace=trace)
    assert reply.value is None and not reply.ok
    assert (
        reply.error == "invalid output after one repair request: no JSON object found in the reply"
    )
    assert (
        "confidence: Input should be less than or equal to 1"
        in model.prompts[1].messages[-1].content
    )
    assert len(model.prompts) == 2, "exactly one repair request"
    assert trace.events[-1].kind == EventKind.SUPPRESSED
    assert reply.raw == "no json at all"


@pytest.mark.parametrize(
    "failure", [httpx.ConnectError("refused"), httpx.RemoteProtocolError("dropped")]
)
def test_transport_errors_are_retried_with_exponential_backoff(failure: Exception) -> None:
    client, _, sleeps = make({"t": [failure, failure, GOOD]}, backoff_s=0.25)
    reply = client.structured("t", "q", SqlDraft)
    assert reply.ok and not reply.repaired
    assert sleeps == [0.25, 0.5]
    assert [(c.attempt, c.ok) for c in client.calls] == [(1, False), (2, False), (3, True)]
    assert client.calls[0].error and type(failure).__name__ in client.calls[0].error


def test_retries_spent_returns_the_error() -> None:
    client, model, sleeps = make({"t": [httpx.ConnectError("refused")] * 3}, max_retries=2)
    trace = Trace("t")
    reply = client.text("t", "q", trace=trace)
    assert not reply.ok and reply.error == "ConnectError: refused" and reply.text == ""
    assert len(sleeps) == 2 and model.remaining() == {}
    assert [e.kind for e in trace.events] == [EventKind.SUPPRESSED] * 3


def test_non_transient_errors_are_not_retried() -> None:
    client, _, sleeps = make({"t": [ValueError("bad request"), "unused"]})
    reply = client.text("t", "q")
    assert reply.error == "ValueError: bad request" and sleeps == [] and len(client.calls) == 1


@pytest.mark.parametrize(
    "failure", [Slow("late", 5), TimeoutError("slow"), httpx.ReadTimeout("read")]
)
def test_a_timeout_is_not_retried_and_the_turn_goes_on_by_rules(failure: object) -> None:
    client, model, sleeps = make({"t": [failure, "never asked"]}, timeout_s=0.3)
    turn = client.turn()
    reply = turn.text("t", "q")
    assert not reply.ok and reply.text == "" and sleeps == [] and len(client.calls) == 1
    first = client.calls[0]
    assert not first.ok and first.error  # how long it took: benchmarks/bench_bounds.py
    later = turn.text("t", "q")
    assert later.skipped and not later.ok, (
        "the endpoint gave nothing: the rest of the turn skips it"
    )
    assert model.remaining() == {"t": 1} and turn.usage()["skipped"] == 1


def test_script_bugs_are_not_swallowed() -> None:
    client, _, _ = make({"t": ["x"]})
    with pytest.raises(FakeScriptError):
        client.text("missing", "q")


def test_text_tool_calls_and_empty_tool_call_reply() -> None:
    client, model, _ = make({"agent": [calling("search", {"q": "cards"}), NoToolCalls(), ""]})
    reply = client.text("agent", "find cards", tools=[SqlDraft])
    assert (
        reply.ok
        and reply.tool_calls[0]["name"] == "search"
        and model.prompts[0].tool_names == ["SqlDraft"]
    )
    bad = client.text("agent", "again", tools=[SqlDraft])
    assert bad.error == "the model stopped for tool calls but sent none"
    assert client.text("agent", "q").error == "the model sent an empty reply"


def test_stream_calls_back_and_counts() -> None:
    client, _, _ = make({"answer": [httpx.ConnectError("down"), "Выручка выросла на 5%"]})
    pieces: list[str] = []
    reply = client.stream("answer", "q", on_chunk=pieces.append)
    assert reply.ok and "".join(pieces) == reply.text == "Выручка выросла на 5%"
    assert [c.ok for c in client.calls] == [False, True]


def test_stream_deadline() -> None:
    client, _, _ = make({"answer": [Slow("late", 5)]}, timeout_s=0.3, max_retries=0)
    reply = client.stream("answer", "q")
    assert not reply.ok and reply.error and "CallTimeout" in reply.error


def test_accounting_usage_estimates_totals_and_tracer() -> None:
    seen: list[LLMCall] = []
    model = ScriptedChatModel(
        {"topic": ['{"sql": "x", "confidence": 1}'], "answer": ["hello"]}, report_usage=False
    )
    client = LLMClient(model, timeout_s=2, tracer=seen.append)
    client.structured("topic", "Какая тема?", SqlDraft)
    client.text("answer", "q")
    assert seen == client.calls and all(c.estimated and c.model == "scripted" for c in seen)
    assert all(c.prompt_tokens > 0 and c.completion_tokens > 0 and c.latency_ms >= 0 for c in seen)
    totals = client.totals()
    assert list(totals) == ["topic", "answer"]
    assert totals["answer"] == TaskTotals(
        calls=1,
        failures=0,
        prompt_tokens=seen[1].prompt_tokens,
        completion_tokens=seen[1].completion_tokens,
        latency_ms=seen[1].latency_ms,
    )


def test_usage_from_metadata_and_a_failing_tracer_does_not_break_the_call() -> None:
    def broken(call: LLMCall) -> None:
        raise RuntimeError("telemetry down")

    client = LLMClient(ScriptedChatModel({"t": ["hi"]}), timeout_s=2, tracer=broken)
    reply = client.text("t", "q")
    assert reply.ok and not client.calls[0].estimated


def test_clients_do_not_share_state() -> None:
    model = ScriptedChatModel({"t": ["a", "b"]})
    one, two = LLMClient(model, timeout_s=1), LLMClient(model, timeout_s=1)
    one.text("t", "q")
    assert len(one.calls) == 1 and two.calls == []


@pytest.mark.parametrize(
    "text, error",
    [
        ('{"sql": "s", "confidence": 0.5}', None),
        ('<think>{"sql": "nope"}</think>{"sql": "s", "confidence": 0.5}', None),
        ('```\n{"sql": "s", "confidence": 0.5}\n```', None),
        ('prefix {"sql": "s", "confidence": 0.5} suffix {"other": 1}', None),
        ("", "the reply is empty; expected one JSON object"),
        ("[1, 2]", "no JSON object found in the reply"),
        (
            '{"sql": "s",',
            "invalid JSON: Expecting property name enclosed in double quotes (line 1, column 13)",
        ),
        ('{"sql": "s"}', "the JSON does not match the schema SqlDraft: confidence: Field required"),
    ],
)
def test_parse_into(text: str, error: str | None) -> None:
    if error is None:
        assert parse_into(SqlDraft, text).sql == "s"
    else:
        with pytest.raises(ValueError) as info:
            parse_into(SqlDraft, text)
        assert str(info.value) == error
