"""ScriptedChatModel: per-task scripts, exceptions, malformed replies, tool calls, prompts."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import httpx
import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import START, StateGraph
from pydantic import BaseModel

from vitrina.llm.client import TASK_KEY
from vitrina.llm.fake import (
    Cut,
    FakeScriptError,
    Malformed,
    NoToolCalls,
    ScriptedChatModel,
    calling,
    calls,
)


def ask(model: ScriptedChatModel, task: str, text: str = "q", **kwargs: object) -> AIMessage:
    return model.invoke(text, config={"metadata": {TASK_KEY: task}}, **kwargs)  # type: ignore[return-value]


class Answer(BaseModel):
    answer: str


def test_replies_per_task_in_order() -> None:
    model = ScriptedChatModel(
        {"topic": ["payments", "cards"], "sql_generation": [{"sql": "SELECT 1"}]}
    )
    assert ask(model, "topic").content == "payments"
    assert ask(model, "sql_generation").content == '{"sql": "SELECT 1"}'
    assert ask(model, "topic").content == "cards"
    assert model.remaining() == {}


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("text", "text"),
        ({"a": "б"}, '{"a": "б"}'),
        ([1, 2], "[1, 2]"),
        (Answer(answer="x"), '{"answer":"x"}'),
        (Malformed(), '{"answer": "unterminated'),
        (Malformed("{{"), "{{"),
        (lambda messages: f"echo {messages[-1].content}", "echo q"),
    ],
)
def test_reply_kinds(reply: object, expected: str) -> None:
    assert ask(ScriptedChatModel({"t": [reply]}), "t").content == expected


@pytest.mark.parametrize(
    "failure", [TimeoutError("slow"), httpx.ConnectError("refused"), ConnectionError]
)
def test_exceptions_are_raised(failure: object) -> None:
    model = ScriptedChatModel({"t": [failure, "after"]})
    expected = failure if isinstance(failure, type) else type(failure)
    with pytest.raises(expected):  # type: ignore[call-overload]
        ask(model, "t")
    assert ask(model, "t").content == "after"


def test_records_prompts_kwargs_and_usage() -> None:
    model = ScriptedChatModel({"t": ["fine"]})
    reply = ask(model, "t", "Сколько кошельков?", response_format={"type": "json_object"})
    (prompt,) = model.prompts_for("t")
    assert prompt.task == "t" and prompt.text == "Сколько кошельков?"
    assert prompt.kwargs == {"response_format": {"type": "json_object"}}
    assert reply.usage_metadata and reply.usage_metadata["input_tokens"] > 0
    assert reply.response_metadata["finish_reason"] == "stop"
    assert (
        ScriptedChatModel({"t": ["x"]}, report_usage=False)
        .invoke("q", config={"metadata": {TASK_KEY: "t"}})
        .usage_metadata
        is None
    )


@pytest.mark.parametrize(
    "scripts, task, message",
    [
        ({"t": ["x"]}, None, "without a task"),
        ({"t": ["x"]}, "other", "no script for task 'other'"),
        ({"t": []}, "t", "is spent"),
    ],
)
def test_script_errors_are_clear(scripts: dict, task: str | None, message: str) -> None:
    model = ScriptedChatModel(scripts)
    config = {"metadata": {TASK_KEY: task}} if task else None
    with pytest.raises(FakeScriptError, match=message):
        model.invoke("q", config=config)


def test_tool_calls_and_bind_tools() -> None:
    model = ScriptedChatModel(
        {
            "t": [
                calling("search_tables", {"query": "wallets"}),
                calls(("a", {}), ("b", {"x": 1}, "id-b"), content="two"),
                NoToolCalls(),
            ]
        }
    )
    bound = model.bind_tools([Answer], tool_choice="auto")
    first = bound.invoke("q", config={"metadata": {TASK_KEY: "t"}})
    assert first.tool_calls[0]["name"] == "search_tables" and first.tool_calls[0]["args"] == {
        "query": "wallets"
    }
    assert first.tool_calls[0]["id"]
    assert first.response_metadata["finish_reason"] == "tool_calls"
    assert (
        model.prompts[0].tool_names == ["Answer"]
        and model.prompts[0].kwargs["tool_choice"] == "auto"
    )
    second = bound.invoke("q", config={"metadata": {TASK_KEY: "t"}})
    assert [c["name"] for c in second.tool_calls] == ["a", "b"] and second.tool_calls[1][
        "id"
    ] == "id-b"
    empty = bound.invoke("q", config={"metadata": {TASK_KEY: "t"}})
    assert empty.tool_calls == [] and empty.response_metadata["finish_reason"] == "tool_calls"


def test_stream_yields_pieces_with_usage_last() -> None:
    model = ScriptedChatModel({"t": ["one two three"]})
    chunks = list(model.stream("q", config={"metadata": {TASK_KEY: "t"}}))
    assert "".join(c.text for c in chunks) == "one two three"
    assert len([c for c in chunks if c.text]) == 3
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged = merged + chunk
    assert merged.usage_metadata and merged.usage_metadata["output_tokens"] > 0


def test_stream_tool_calls() -> None:
    model = ScriptedChatModel({"t": [calling("f", {"x": 1})]})
    merged = None
    for chunk in model.stream("q", config={"metadata": {TASK_KEY: "t"}}):
        merged = chunk if merged is None else merged + chunk
    assert (
        merged is not None
        and merged.tool_calls[0]["name"] == "f"
        and merged.tool_calls[0]["args"] == {"x": 1}
    )


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def test_inside_a_graph_the_task_or_the_node_name_picks_the_script() -> None:
    """A node may name its task, or be scripted under its node name."""
    model = ScriptedChatModel({"classify": ["by task"], "writer": ["by node"]})

    def classify(state: State) -> dict:
        return {
            "log": [
                model.invoke([HumanMessage("q")], config={"metadata": {TASK_KEY: "classify"}}).text
            ]
        }

    def writer(state: State) -> dict:
        return {"log": [model.invoke([HumanMessage("q")]).text]}

    graph = StateGraph(State)
    graph.add_node("classify", classify)
    graph.add_node("writer", writer)
    graph.add_edge(START, "classify")
    graph.add_edge("classify", "writer")
    assert graph.compile().invoke({"log": []})["log"] == ["by task", "by node"]
    assert [p.task for p in model.prompts] == ["classify", "writer"]


# --- the real stack's contract for replies cut at the length limit ------------------------


def _invoke(model: ScriptedChatModel, task: str, **kwargs: object) -> AIMessage:
    return model.invoke("q", config={"metadata": {TASK_KEY: task}}, **kwargs)


def test_a_cut_reply_with_response_format_raises_the_sdk_length_error() -> None:
    """ChatOpenAI's parse path (response_format) raises LengthFinishReasonError; the fake too,
    with the text in `completion`, on invoke and at the end of a stream."""
    import openai

    model = ScriptedChatModel({"t": [Cut('{"a": "cut'), Cut('{"a": "cut')]})
    with pytest.raises(openai.LengthFinishReasonError) as info:
        _invoke(model, "t", response_format={"type": "json_object"})
    assert info.value.completion.choices[0].message.content == '{"a": "cut'
    chunks: list[str] = []
    with pytest.raises(openai.LengthFinishReasonError):
        for chunk in model.stream(
            "q", config={"metadata": {TASK_KEY: "t"}}, response_format={"type": "json_object"}
        ):
            chunks.append(chunk.text)
    assert "".join(chunks) == '{"a": "cut', "the pieces came before the error, as in the SDK"


def test_a_cut_reply_without_response_format_ends_with_finish_reason_length() -> None:
    model = ScriptedChatModel({"t": [Cut("half a sent"), Cut("half a sent")]})
    assert _invoke(model, "t").response_metadata["finish_reason"] == "length"
    merged = None
    for chunk in model.stream("q", config={"metadata": {TASK_KEY: "t"}}):
        merged = chunk if merged is None else merged + chunk
    assert merged is not None and merged.response_metadata["finish_reason"] == "length"


def test_max_tokens_cuts_a_long_reply_as_a_server_would() -> None:
    model = ScriptedChatModel({"t": ["слово " * 100, "short"]})
    long = _invoke(model, "t", max_tokens=10)
    assert long.response_metadata["finish_reason"] == "length" and len(long.text.encode()) <= 40
    assert _invoke(model, "t", max_tokens=10).response_metadata["finish_reason"] == "stop"
    assert [p.max_tokens for p in model.prompts] == [10, 10]
