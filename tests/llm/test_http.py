"""ChatOpenAI + LLMClient against a real OpenAI-compatible server on 127.0.0.1.

The wire protocol, JSON mode, SSE streaming, timeouts and HTTP errors are real here;
only the server's replies are scripted.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from pydantic import BaseModel

from vitrina.llm import LLMClient, build_chat_model
from vitrina.llm.client import JSON_OBJECT
from vitrina.trace import Trace

from .conftest import settings_for
from .openai_server import OpenAIServer, free_port


class Topic(BaseModel):
    topic: str
    confidence: float


GOOD = '{"topic": "payments", "confidence": 0.9}'


def client_for(
    base_url: str, tmp: Path, *, timeout_s: float = 1.0, **kwargs: object
) -> tuple[LLMClient, list[float]]:
    model = build_chat_model(settings_for(base_url, tmp, llm_timeout_s=timeout_s))
    assert model is not None
    sleeps: list[float] = []
    options: dict = {
        "timeout_s": timeout_s + 0.5,
        "sleep": sleeps.append,
        "backoff_s": 0.1,
        **kwargs,
    }
    return LLMClient(model, **options), sleeps


def test_structured_output_in_json_mode(server: OpenAIServer, tmp_path: Path) -> None:
    server.state.replies.append(GOOD)
    client, _ = client_for(server.base_url, tmp_path)
    reply = client.structured(
        "topic", [("system", "Classify the question."), ("human", "Сумма платежей?")], Topic
    )
    assert reply.value == Topic(topic="payments", confidence=0.9)
    (request,) = server.state.chat_requests()
    body = request.body
    assert (
        body is not None
        and body["model"] == "test-model"
        and body["response_format"] == JSON_OBJECT
    )
    assert body["temperature"] == 0.0 and body["stream"] is True, "every reply is streamed"
    assert body["max_tokens"] == 96 and "max_completion_tokens" not in body, (
        "as local servers know it"
    )
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert (
        "JSON" in body["messages"][0]["content"]
        and body["messages"][1]["content"] == "Сумма платежей?"
    )
    assert request.headers["authorization"] == "Bearer not-needed"
    (call,) = client.calls
    assert (
        call.ok and not call.estimated and call.completion_tokens == 4
    )  # the server's usage, 4 words
    assert call.model == "test-model"


def test_malformed_content_repaired_once(server: OpenAIServer, tmp_path: Path) -> None:
    server.state.modes.extend(["malformed", "ok"])
    server.state.replies.append(GOOD)
    client, sleeps = client_for(server.base_url, tmp_path)
    reply = client.structured("topic", "q", Topic)
    assert reply.ok and reply.repaired and sleeps == []
    repair = server.state.chat_requests()[1].body
    assert repair is not None and [m["role"] for m in repair["messages"]] == [
        "system",
        "user",
        "assistant",
        "user",
    ]
    assert "Unterminated string" in repair["messages"][-1]["content"]


def test_malformed_twice_gives_none(server: OpenAIServer, tmp_path: Path) -> None:
    server.state.default_mode = "malformed"
    client, _ = client_for(server.base_url, tmp_path)
    reply = client.structured("topic", "q", Topic)
    assert (
        reply.value is None
        and reply.error
        and reply.error.startswith("invalid output after one repair")
    )
    assert len(server.state.chat_requests()) == 2


def test_server_errors_are_retried_with_backoff(server: OpenAIServer, tmp_path: Path) -> None:
    server.state.modes.extend(["500", "503", "ok"])
    server.state.replies.append(GOOD)
    client, sleeps = client_for(server.base_url, tmp_path)
    assert client.structured("topic", "q", Topic).ok
    assert sleeps == [0.1, 0.2]
    # the exception's class is the client library's (InternalServerError, or langchain-openai's
    # OpenAIAPIError since 1.x): what matters is the HTTP status each failed call names
    heads = [c.error.split(":")[0] if c.error else "" for c in client.calls][:2]
    assert [h.split(" ", 1)[1] for h in heads] == ["(HTTP 500)", "(HTTP 503)"], heads


def test_a_slow_reply_times_out_and_is_not_retried(server: OpenAIServer, tmp_path: Path) -> None:
    server.state.modes.extend(["slow", "ok"])
    server.state.replies.append("fine")
    client, sleeps = client_for(server.base_url, tmp_path, timeout_s=0.5)
    reply = client.text("answer", "q")
    assert reply.text == "" and sleeps == [] and len(server.state.chat_requests()) == 1
    assert "Timeout" in (client.calls[0].error or "")


def test_unauthorized_and_unknown_model_are_not_retried(
    server: OpenAIServer, tmp_path: Path
) -> None:
    server.state.api_key = "sk-right"
    client, sleeps = client_for(server.base_url, tmp_path)
    reply = client.text("answer", "q")
    assert not reply.ok and "HTTP 401" in (reply.error or "") and sleeps == []
    model = build_chat_model(
        settings_for(server.base_url, tmp_path, llm_model="other", llm_api_key="sk-right")
    )
    assert model is not None
    other = LLMClient(model, timeout_s=2, sleep=sleeps.append)
    missing = other.text("answer", "q")
    assert (
        "HTTP 404" in (missing.error or "")
        and "not found" in (missing.error or "")
        and sleeps == []
    )


def test_server_without_json_mode_is_asked_by_prompt(server: OpenAIServer, tmp_path: Path) -> None:
    server.state.default_mode = "no_json_mode"
    server.state.replies.extend([GOOD, GOOD])
    client, sleeps = client_for(server.base_url, tmp_path)
    assert client.structured("topic", "q", Topic).ok
    assert client.structured("topic", "q", Topic).ok
    bodies = [r.body or {} for r in server.state.chat_requests()]
    assert ["response_format" in b for b in bodies] == [True, False, False]
    assert client.json_mode is False and sleeps == []


def test_garbage_body_is_an_error_not_a_crash(server: OpenAIServer, tmp_path: Path) -> None:
    server.state.modes.append("garbage")
    client, _ = client_for(server.base_url, tmp_path)
    reply = client.structured("topic", "q", Topic)
    assert reply.value is None and reply.error


def test_connection_refused_is_retried_then_reported(tmp_path: Path) -> None:
    client, sleeps = client_for(f"http://127.0.0.1:{free_port()}/v1", tmp_path)
    reply = client.text("answer", "q")
    assert not reply.ok and "Connection" in (reply.error or "") and sleeps == [0.1, 0.2]


def test_streaming_over_sse(server: OpenAIServer, tmp_path: Path) -> None:
    server.state.replies.append("Платежей стало больше в мае")
    client, _ = client_for(server.base_url, tmp_path)
    pieces: list[str] = []
    reply = client.stream("answer", "q", on_chunk=pieces.append)
    assert reply.text == "Платежей стало больше в мае" and len(pieces) == 5
    body = server.state.chat_requests()[0].body
    assert body is not None and body["stream"] is True
    assert not client.calls[0].estimated, "usage from the last chunk (stream_options include_usage)"


def test_streaming_usage_when_enabled(server: OpenAIServer, tmp_path: Path) -> None:
    server.state.replies.append("one two three")
    model = build_chat_model(settings_for(server.base_url, tmp_path), stream_usage=True)
    assert model is not None
    client = LLMClient(model, timeout_s=2)
    assert client.stream("answer", "q").text == "one two three"
    call = client.calls[0]
    assert not call.estimated and call.completion_tokens == 3


def test_streaming_timeout(server: OpenAIServer, tmp_path: Path) -> None:
    server.state.default_mode = "slow"
    client, _ = client_for(server.base_url, tmp_path, timeout_s=0.3, max_retries=0)
    reply = client.stream("answer", "q")
    assert not reply.ok and "Timeout" in (reply.error or "")


def test_tool_calls_over_the_wire(server: OpenAIServer, tmp_path: Path) -> None:
    server.state.replies.append({"tool_calls": [("Topic", {"topic": "cards", "confidence": 1})]})
    client, _ = client_for(server.base_url, tmp_path)
    reply = client.text("agent", "q", tools=[Topic])
    assert reply.ok and reply.tool_calls[0]["name"] == "Topic"
    assert reply.tool_calls[0]["args"] == {"topic": "cards", "confidence": 1}
    body = server.state.chat_requests()[0].body
    assert body is not None and body["tools"][0]["function"]["name"] == "Topic"


# --- bounds over the wire: length cut, hang, rambling, the breaker --------------------


def test_max_tokens_reach_a_server_that_only_reads_max_tokens(
    server: OpenAIServer, tmp_path: Path
) -> None:
    """llama-cpp-python ignores max_completion_tokens: the body must say max_tokens."""
    server.state.ignore_completion_tokens = True
    server.state.replies.extend(['{"topic": "' + "very " * 300 + '"}', GOOD])
    client, _ = client_for(server.base_url, tmp_path)
    reply = client.structured("topic", "q", Topic)
    assert reply.value == Topic(topic="payments", confidence=0.9) and reply.repaired
    first, second = client.calls
    assert first.cut and second.repair and second.ok
    bodies = [r.body for r in server.state.chat_requests()]
    assert all(b is not None and b["max_tokens"] == 96 for b in bodies)


def test_a_hanging_server_costs_one_deadline_and_the_stream_is_closed(
    server: OpenAIServer, tmp_path: Path
) -> None:
    server.state.default_mode = "hang"
    client, sleeps = client_for(server.base_url, tmp_path, timeout_s=0.5)
    turn = client.turn(seconds=3)
    replies = [turn.structured("topic", "q", Topic) for _ in range(4)]
    assert len(server.state.chat_requests()) == 1 and sleeps == []
    assert [r.skipped for r in replies] == [False, True, True, True]
    deadline = time.monotonic() + 3
    while not server.state.disconnects and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.state.disconnects == 1, "the abandoned request's connection was closed"


def test_a_rambling_model_is_stopped_at_the_end_of_its_object(
    server: OpenAIServer, tmp_path: Path
) -> None:
    """JSON first, then words without end: the client closes the stream; the server stops."""
    server.state.modes.append("ramble")
    server.state.replies.append(GOOD)
    server.state.token_s = 0.02
    client, _ = client_for(server.base_url, tmp_path)
    reply = client.structured("topic", "q", Topic)
    assert reply.value == Topic(topic="payments", confidence=0.9)
    assert client.calls[0].early_stop
    deadline = time.monotonic() + 3
    while not server.state.disconnects and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.state.disconnects == 1 and server.state.generated < 40, "generation stopped"


def test_a_rambling_model_inside_its_object_is_cut_then_falls_back(
    server: OpenAIServer, tmp_path: Path
) -> None:
    """A small model in JSON mode that keeps adding text until max_tokens, twice."""
    server.state.default_mode = "ramble"
    server.state.default_reply = '{"topic": "'
    server.state.token_s = 0.0
    client, _ = client_for(server.base_url, tmp_path)
    trace = Trace("t")
    reply = client.structured("topic", "q", Topic, trace=trace)
    assert reply.value is None and not reply.skipped and len(client.calls) == 2
    assert all(c.cut for c in client.calls) and "cut at the length limit" in (reply.error or "")


def test_the_breaker_keeps_a_timing_out_endpoint_away(server: OpenAIServer, tmp_path: Path) -> None:
    from vitrina.llm import build_client

    server.state.default_mode = "slow"
    server.state.slow_s = 5
    settings = settings_for(server.base_url, tmp_path, llm_timeout_s=0.3, llm_breaker_failures=2)
    for _ in range(2):
        client = build_client(settings)
        assert client is not None and client.turn().structured("topic", "q", Topic).value is None
    client = build_client(settings)  # a new process would read the same state file
    assert client is not None
    reply = client.turn().structured("topic", "q", Topic)
    assert reply.skipped
    assert len(server.state.chat_requests()) == 2, "the third turn sent nothing"


@pytest.mark.parametrize(
    "script", [["cut"], ["cut", "good"], ["malformed", "good"], ["good"], ["ramble"]]
)
def test_the_fake_and_the_real_stack_give_the_same_outcome(
    server: OpenAIServer, tmp_path: Path, script: list[str]
) -> None:
    """One contract: the scripted fake behind LLMClient ends where ChatOpenAI over HTTP ends."""
    from vitrina.llm.fake import Cut, Malformed, ScriptedChatModel

    long_json = '{"topic": "' + "very " * 400 + '"}'
    fake_replies = {
        "cut": Cut('{"topic": "ver'),
        "good": GOOD,
        "malformed": Malformed(),
        "ramble": long_json,
    }
    server_modes = {
        "cut": ("ok", long_json),
        "good": ("ok", GOOD),
        "malformed": ("malformed", GOOD),
        "ramble": ("ok", long_json),
    }
    script = (
        script + ["cut"] * (2 - len(script))
        if script[0] in ("cut", "ramble") and len(script) == 1
        else script
    )
    fake = LLMClient(ScriptedChatModel({"topic": [fake_replies[s] for s in script]}), timeout_s=2)
    for step in script:
        mode, content = server_modes[step]
        server.state.modes.append(mode)
        server.state.replies.append(content)
    real, _ = client_for(server.base_url, tmp_path)
    one, two = fake.structured("topic", "q", Topic), real.structured("topic", "q", Topic)
    assert (one.ok, one.repaired, one.skipped) == (two.ok, two.repaired, two.skipped)
    assert [(c.cut, c.ok, c.repair) for c in fake.calls] == [
        (c.cut, c.ok, c.repair) for c in real.calls
    ]
