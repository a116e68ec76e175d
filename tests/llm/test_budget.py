"""Bounds of the model layer over the scripted fake: max_tokens per task, cut replies, the
early stop at the end of a JSON object, the turn budget, the circuit breaker."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from pydantic import BaseModel

from vitrina.llm import LLMClient
from vitrina.llm.breaker import Breaker
from vitrina.llm.budget import DEFAULT_MAX_TOKENS, TurnBudget
from vitrina.llm.fake import Cut, ScriptedChatModel, Slow
from vitrina.trace import EventKind, Trace


class Topic(BaseModel):
    topic: str


GOOD = '{"topic": "payments"}'


def make(scripts: dict, **kwargs: object) -> tuple[LLMClient, ScriptedChatModel]:
    fake = ScriptedChatModel(scripts)
    return LLMClient(fake, **{"timeout_s": 2.0, "sleep": lambda _s: None, **kwargs}), fake


def test_every_request_sends_its_task_max_tokens_and_overrides_win() -> None:
    client, fake = make(
        {"topic": [GOOD], "sql_generation": [GOOD], "other": ["x"]},
        max_tokens={"sql_generation": 300},
    )
    client.structured("topic", "q", Topic)
    client.structured("sql_generation", "q", Topic)
    client.text("other", "q")
    assert [p.max_tokens for p in fake.prompts] == [
        DEFAULT_MAX_TOKENS["topic"],
        300,
        DEFAULT_MAX_TOKENS["default"],
    ]
    assert all(
        c.max_tokens == p.max_tokens for c, p in zip(client.calls, fake.prompts, strict=True)
    )


def test_a_cut_reply_gets_one_request_for_a_shorter_answer() -> None:
    client, fake = make({"topic": [Cut('{"topic": "a very long'), GOOD]})
    trace = Trace("t")
    reply = client.structured("topic", "q", Topic, trace=trace)
    assert reply.value == Topic(topic="payments") and reply.repaired
    first, second = client.calls
    assert first.cut and not first.ok and second.repair and second.ok
    repair = fake.prompts[1].messages[-1].text
    assert "cut off" in repair and str(DEFAULT_MAX_TOKENS["topic"]) in repair, (
        "asks for a shorter answer"
    )


def test_a_reply_cut_twice_falls_back_with_the_raw_text() -> None:
    client, _ = make({"topic": [Cut('{"topic": "one'), Cut('{"topic": "two')]})
    trace = Trace("t")
    reply = client.structured("topic", "q", Topic, trace=trace)
    assert reply.value is None and not reply.skipped
    assert "cut at the length limit" in (reply.error or "") and reply.raw == '{"topic": "two'
    assert [c.cut for c in client.calls] == [True, True]
    assert trace.events[-1].kind == EventKind.SUPPRESSED


def test_a_rambling_reply_is_cut_by_max_tokens_like_a_real_server() -> None:
    """The fake honours max_tokens: a reply past it ends with finish_reason length."""
    ramble = '{"topic": "' + "и ещё " * 500 + '"}'
    client, _ = make({"topic": [ramble, GOOD]})
    reply = client.structured("topic", "q", Topic)
    assert reply.value == Topic(topic="payments") and reply.repaired
    assert (
        client.calls[0].cut and client.calls[0].completion_tokens <= DEFAULT_MAX_TOKENS["topic"] + 1
    )


def test_the_stream_stops_when_the_json_object_is_complete() -> None:
    rambling = GOOD + " А ещё я хотел бы рассказать " + "очень " * 300
    client, fake = make({"topic": [Slow(rambling, 0.02, per_chunk=True)]})
    reply = client.structured("topic", "q", Topic)
    assert reply.value == Topic(topic="payments") and not reply.repaired
    (call,) = client.calls
    assert call.early_stop and not call.cut
    assert fake.prompts[0].delivered <= 6, "the stream was closed right after the object"


def test_a_hanging_model_costs_the_turn_at_most_its_budget() -> None:
    """A model that never finishes: the whole turn, however many slots it has, stays within
    the budget, and the slots after the first failure do not wait at all."""
    slots = 6
    client, fake = make({"topic": [Slow(GOOD, 30)] * slots}, timeout_s=10)
    turn = client.turn(seconds=1.0)
    replies = [turn.structured("topic", "q", Topic) for _ in range(slots)]
    # the wall time of this turn is a figure of benchmarks/bench_bounds.py, not asserted here
    assert all(r.value is None for r in replies) and sum(r.skipped for r in replies) == slots - 1
    assert len(fake.prompts) == 1 and turn.usage()["down"]


def test_a_slow_rambling_model_is_stopped_at_the_deadline() -> None:
    client, fake = make({"topic": [Slow('{"topic": "' + "слово " * 400, 0.01, per_chunk=True)]})
    turn = client.turn(seconds=0.5)
    reply = turn.structured("topic", "q", Topic)
    assert reply.value is None  # its wall time: benchmarks/bench_bounds.py
    assert fake.prompts[0].delivered < 100, "the stream was abandoned, not read to its end"


def test_the_token_budget_ends_the_turn_for_the_model() -> None:
    client, fake = make({"topic": [GOOD] * 5})
    turn = client.turn(tokens=300)
    replies = [turn.structured("topic", "q", Topic) for _ in range(5)]
    asked = [not r.skipped for r in replies]
    assert asked[0] and not asked[-1] and turn.usage()["budget"]["used_tokens"] <= 300
    assert len(fake.prompts) == sum(asked)


def test_retry_after_and_backoff_never_outlast_the_budget() -> None:
    class Busy(Exception):
        status_code = 429
        response = httpx.Response(
            429, headers={"retry-after": "30"}, request=httpx.Request("POST", "http://x")
        )

    sleeps: list[float] = []
    client, _ = make({"topic": [Busy(), GOOD]}, sleep=sleeps.append, max_retries=1)
    reply = client.turn(seconds=5).structured("topic", "q", Topic)
    assert reply.ok and len(sleeps) == 1 and sleeps[0] <= 4.0, "Retry-After 30 s capped by the turn"


def test_json_mode_off_sends_no_response_format() -> None:
    client, fake = make({"topic": [GOOD]}, json_mode=False)
    assert client.structured("topic", "q", Topic).ok
    assert "response_format" not in fake.prompts[0].kwargs


def test_the_breaker_opens_after_timeouts_across_clients_and_processes(tmp_path: Path) -> None:
    """Two clients over one state file stand for two processes (a CLI run after another)."""
    now = [1000.0]
    path = tmp_path / "llm_state.sqlite"

    def client(scripts: dict) -> tuple[LLMClient, ScriptedChatModel]:
        breaker = Breaker(
            path, "http://gpu:8080/v1", failures=2, cooldown_s=60, clock=lambda: now[0]
        )
        return make(scripts, breaker=breaker, timeout_s=0.2)

    first, _ = client({"topic": [TimeoutError("slow")]})
    assert first.turn().structured("topic", "q", Topic).value is None
    second, _ = client({"topic": [httpx.ConnectTimeout("slow")]})
    assert second.turn().structured("topic", "q", Topic).value is None
    third, fake = client({"topic": [GOOD]})
    trace = Trace("t")
    reply = third.turn().structured("topic", "q", Topic, trace=trace)
    assert reply.skipped and "failed 2 times" in (reply.error or "") and fake.prompts == []
    now[0] += 61  # the cooldown is over: one request tries the endpoint (half-open)
    assert third.turn().structured("topic", "q", Topic).ok
    assert Breaker(path, "http://gpu:8080/v1").state().failures == 0, "an answer closes it"


def test_bad_output_counts_toward_the_breaker_and_a_good_reply_clears_it(tmp_path: Path) -> None:
    """A model that sends nothing usable costs every turn its repairs: invalid replies count
    like timeouts (decision 175); one valid reply closes the count again."""
    breaker = Breaker(tmp_path / "s.sqlite", "e", failures=3)
    client, _ = make({"topic": ["no json", "still none", GOOD]}, breaker=breaker)
    assert client.structured("topic", "q", Topic).value is None
    assert breaker.state().failures == 2 and breaker.allow() is None
    assert client.structured("topic", "q", Topic).ok
    assert breaker.state().failures == 0
    bad, _ = make({"topic": ["no json", "still none"]}, breaker=Breaker(None, "e", failures=2))
    turn = bad.turn()
    assert turn.structured("topic", "q", Topic).value is None
    skipped = turn.structured("topic", "q", Topic)
    assert skipped.skipped and "circuit breaker open" in (skipped.error or "")
    assert turn.budget.unused() is not None and turn.budget.unused()[0] == "invalid_reply"


def test_half_open_lets_exactly_one_request_through() -> None:
    now = [0.0]
    breaker = Breaker(None, "e", failures=1, cooldown_s=10, clock=lambda: now[0])
    breaker.record(False, "timeout")
    assert breaker.allow() is not None
    now[0] = 11
    assert breaker.allow() is None and breaker.allow() is not None, "the second waits for the first"


@pytest.mark.parametrize("seconds, tokens", [(0.0, 1000), (10.0, 10)])
def test_a_spent_budget_sends_nothing(seconds: float, tokens: int) -> None:
    client, fake = make({"topic": [GOOD]})
    reply = client.structured("topic", "q", Topic, budget=TurnBudget(seconds, tokens))
    assert reply.skipped and fake.prompts == [] and fake.remaining() == {"topic": 1}


def test_a_cut_text_reply_gets_one_shorter_try_then_is_an_error() -> None:
    """Half a sentence is not an answer: a wording slot must take its rule text."""
    client, fake = make(
        {
            "docs_explain": [Cut("The measure sums the"), "Short and whole."],
            "answer": [Cut("One half"), Cut("Another half")],
        }
    )
    good = client.text("docs_explain", "q")
    assert good.ok and good.text == "Short and whole." and not good.cut
    assert "cut off" in fake.prompts_for("docs_explain")[1].messages[-1].text
    bad = client.text("answer", "q")
    assert (
        not bad.ok
        and bad.cut
        and bad.text == "Another half"
        and "cut at the length limit" in bad.error
    )
    assert [c.repair for c in client.calls[-2:]] == [False, True]
