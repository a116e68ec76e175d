"""LLMClient: typed, bounded, accounted calls to a chat model, for graph nodes.

The client never raises a model failure into its caller: a node gets a result whose
`value` (or `text`) is None with an `error`, writes a trace event and takes the rule
path. Per request: `max_tokens` (per task), a hard deadline, the reply streamed (stopped as
soon as its JSON object is complete, closed when abandoned), retries with backoff on
transient errors only (tenacity; never a timeout), one repair request for invalid or
cut-off output, the circuit breaker, and an `LLMCall` record. Per turn: a `TurnBudget`
of seconds and tokens (`client.turn()`), after which the turn goes on by rules.

How a task reaches the model: every request is invoked with
`config={"metadata": {"vitrina_task": task}, ...}`; callbacks, tracers and the scripted
fake read it from there. The client holds its model, its settings and its own call log;
the breaker's state is shared through `$VITRINA_HOME` (see `vitrina.llm.breaker`).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    convert_to_messages,
    message_chunk_to_message,
)
from langchain_core.runnables import RunnableConfig
from pydantic import BaseModel
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt, stop_any
from tenacity.stop import stop_base

from vitrina.llm.accounting import (
    LLMCall,
    TaskTotals,
    estimate_tokens,
    message_text,
    totals_by_task,
    usage_of,
    usage_summary,
)
from vitrina.llm.breaker import Breaker
from vitrina.llm.budget import MIN_REQUEST_S, TurnBudget, max_tokens_for, shared_budget
from vitrina.llm.jsonout import ObjectCloser, OutputError, parse_into
from vitrina.llm.prompts import render
from vitrina.llm.transport import (
    cut_text,
    describe,
    is_endpoint_failure,
    is_retryable,
    is_unreachable,
    miss_kind,
    rejects_json_mode,
    retry_after_s,
    stream_with_deadline,
)
from vitrina.trace import Trace

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)

TASK_KEY = "vitrina_task"  # the invoke-config metadata key that names the task
JSON_OBJECT = {"type": "json_object"}
LENGTH = "length"

Messages = str | Sequence[BaseMessage | tuple[str, str] | dict[str, Any] | str]
Check = Callable[[AIMessage], str | None]


@dataclass(frozen=True)
class Structured(Generic[T]):
    """A typed reply: `value` is None when the model failed; `error` says why."""

    value: T | None
    error: str | None = None
    raw: str | None = None  # the last text the model sent, for the trace
    repaired: bool = False  # the value came from the repair request
    calls: tuple[LLMCall, ...] = ()
    skipped: bool = False  # no request was sent: the turn's budget, or the breaker

    @property
    def ok(self) -> bool:
        return self.value is not None


@dataclass(frozen=True)
class TextReply:
    """A free-text (or tool-calling) reply; `error` is set when there is nothing usable."""

    text: str
    message: AIMessage | None = None
    error: str | None = None
    calls: tuple[LLMCall, ...] = ()
    cut: bool = False  # the text stopped at max_tokens
    skipped: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        return [dict(c) for c in self.message.tool_calls] if self.message is not None else []


@dataclass
class _Outcome:
    reply: AIMessage | None
    error: str | None
    attempt: int
    calls: list[LLMCall] = field(default_factory=list)
    skipped: bool = False
    kind: str | None = None  # budget.MISS_KINDS: why it failed, when it did

    @property
    def cut(self) -> bool:
        return self.reply is not None and finish_reason(self.reply) == LENGTH


class _Partial(Exception):
    """A stream that failed after text was shown: not retried, the text is kept."""

    def __init__(self, cause: BaseException, text: str) -> None:
        super().__init__(describe(cause))
        self.cause, self.text = cause, text


def to_messages(messages: Messages) -> list[BaseMessage]:
    """A plain string is one user message; anything else goes through LangChain's converter."""
    if isinstance(messages, str):
        return [HumanMessage(messages)]
    return convert_to_messages(messages)


def model_name(model: BaseChatModel) -> str:
    """The model's configured name for accounting, else its class name."""
    for attr in ("model_name", "model", "model_id"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    return type(model).__name__


def finish_reason(reply: AIMessage) -> str | None:
    return reply.response_metadata.get("finish_reason")


def with_instruction(messages: list[BaseMessage], instruction: str) -> list[BaseMessage]:
    """Append `instruction` to the first system message, or add one at the top.

    One system message only: several chat templates (Mistral, some llama.cpp ones) reject
    a second system turn or one that is not first.
    """
    if messages and isinstance(messages[0], SystemMessage) and isinstance(messages[0].content, str):
        head = SystemMessage(f"{messages[0].content}\n\n{instruction}")
        return [head, *messages[1:]]
    return [SystemMessage(instruction), *messages]


CUT_TEXT = "the reply was cut at the length limit (max_tokens) before it ended"


def check_text(reply: AIMessage) -> str | None:
    """Bad output for a text request: nothing said, no tool called, or cut off mid-reply."""
    if reply.tool_calls:
        return None
    if finish_reason(reply) == "tool_calls":
        return "the model stopped for tool calls but sent none"
    if not reply.text.strip():
        return "the model sent an empty reply"
    if finish_reason(reply) == LENGTH:
        return CUT_TEXT  # a half sentence is not an answer: one shorter try, then the rules
    return None


class ModelTurn:
    """One turn's access to the model: the client's calls drawn on one `TurnBudget`.

    Graph nodes hold a ModelTurn (or an LLMClient: the same three methods) and never see
    the budget; once it is spent, or the endpoint gave nothing, every slot returns at once
    with `skipped=True` and the node takes its rule path.
    """

    def __init__(self, client: LLMClient, budget: TurnBudget) -> None:
        self.client = client
        self.budget = budget

    def structured(
        self, task: str, messages: Messages, schema: type[T], *, trace: Trace | None = None
    ) -> Structured[T]:
        return self.client.structured(task, messages, schema, trace=trace, budget=self.budget)

    def text(
        self,
        task: str,
        messages: Messages,
        *,
        tools: Sequence[Any] | None = None,
        trace: Trace | None = None,
    ) -> TextReply:
        return self.client.text(task, messages, tools=tools, trace=trace, budget=self.budget)

    def stream(
        self,
        task: str,
        messages: Messages,
        *,
        on_chunk: Callable[[str], None] | None = None,
        trace: Trace | None = None,
    ) -> TextReply:
        return self.client.stream(
            task, messages, on_chunk=on_chunk, trace=trace, budget=self.budget
        )

    @property
    def calls(self) -> list[LLMCall]:
        return list(self.budget.calls)

    @property
    def down(self) -> bool:
        """True when no more requests go out this turn (budget spent, endpoint gave nothing)."""
        return self.budget.refusal(0) is not None

    def usage(self) -> dict[str, Any]:
        """This turn's `llm_usage` for a job's JSON."""
        return usage_summary(self.budget)


class LLMClient:
    """Typed calls to one chat model with deadlines, retries, repair, budgets and accounting."""

    def __init__(
        self,
        model: BaseChatModel,
        *,
        timeout_s: float,
        max_retries: int = 2,
        backoff_s: float = 0.5,
        tracer: Callable[[LLMCall], None] | None = None,
        json_mode: bool = True,
        sleep: Callable[[float], None] = time.sleep,
        max_tokens: Mapping[str, int] | None = None,
        turn_seconds: float = 60.0,
        turn_tokens: int = 24_000,
        breaker: Breaker | None = None,
    ) -> None:
        """`max_retries` counts retries after the first try; `tracer` sees every LLMCall;
        `json_mode` sends response_format json_object (turned off by itself when the server
        rejects it); `sleep` is replaceable so tests do not wait for the backoff;
        `max_tokens` overrides the per-task reply limits; `turn_*` size `turn()` budgets."""
        if timeout_s <= 0:
            raise ValueError(f"timeout_s must be positive, got {timeout_s}")
        self.model = model
        self.model_name = model_name(model)
        self.timeout_s = timeout_s
        self.max_retries = max(0, max_retries)
        self.backoff_s = backoff_s
        self.tracer = tracer
        self.json_mode = json_mode
        self.max_tokens = dict(max_tokens or {})
        self.turn_seconds = turn_seconds
        self.turn_tokens = turn_tokens
        self.breaker = breaker
        self.calls: list[LLMCall] = []
        self._sleep = sleep

    # --- public API -------------------------------------------------------------------

    def turn(self, *, seconds: float | None = None, tokens: int | None = None) -> ModelTurn:
        """A ModelTurn with a fresh budget (the client's turn defaults unless given); inside
        a user request that opened one (`budget.sharing`), that request's budget."""
        shared = shared_budget()
        if shared is not None and seconds is None and tokens is None:
            return ModelTurn(self, shared)
        return ModelTurn(
            self,
            TurnBudget(
                seconds if seconds is not None else self.turn_seconds,
                tokens if tokens is not None else self.turn_tokens,
            ),
        )

    def structured(
        self,
        task: str,
        messages: Messages,
        schema: type[T],
        *,
        trace: Trace | None = None,
        budget: TurnBudget | None = None,
    ) -> Structured[T]:
        """Ask for one JSON object and validate it into `schema`.

        Invalid output gets exactly one repair request quoting the error, and a reply cut
        at max_tokens one asking for a shorter answer; if that fails too, `value` is None
        with the error. Transient transport errors are retried, then returned.
        """
        budget = budget or self._call_budget()
        schema_text = json.dumps(schema.model_json_schema(), ensure_ascii=False)
        sent = with_instruction(
            to_messages(messages), render("json_instruction", schema=schema_text)
        )
        parsed: dict[str, T] = {}

        def check(reply: AIMessage) -> str | None:
            try:
                parsed["value"] = parse_into(schema, reply.text)
            except OutputError as exc:
                if finish_reason(reply) == LENGTH:
                    return (
                        "the reply was cut at the length limit before its JSON was complete "
                        f"({exc})"
                    )
                return str(exc)
            return None

        first = self._request(task, sent, check=check, json_reply=True, trace=trace, budget=budget)
        if first.reply is None or first.error is None:
            _settle(budget, first)
            return Structured(
                parsed.get("value"),
                first.error,
                _raw(first.reply),
                calls=tuple(first.calls),
                skipped=first.skipped,
            )
        if first.cut:
            why = "llm reply cut at max_tokens, one request for a shorter answer"
            repair = [
                *sent,
                HumanMessage(
                    render(
                        "json_repair_short",
                        schema=schema_text,
                        limit=max_tokens_for(task, self.max_tokens),
                    )
                ),
            ]
        else:
            why = "llm output invalid, one repair request"
            repair = [
                *sent,
                AIMessage(_raw(first.reply) or "(empty reply)"),
                HumanMessage(render("json_repair", error=first.error, schema=schema_text)),
            ]
        if trace is not None:
            trace.branch(why, task=task, error=first.error)
        second = self._request(
            task,
            repair,
            check=check,
            json_reply=True,
            trace=trace,
            budget=budget,
            attempt=first.attempt + 1,
            repair=True,
        )
        calls = tuple(first.calls + second.calls)
        _settle(budget, second)
        if second.error is not None:
            error = f"invalid output after one repair request: {second.error}"
            if trace is not None:
                trace.suppressed(
                    "llm output still invalid after repair; using the rule path",
                    task=task,
                    error=second.error,
                )
            return Structured(
                None,
                error,
                _raw(second.reply) or _raw(first.reply),
                calls=calls,
                skipped=second.skipped,
            )
        return Structured(parsed["value"], None, _raw(second.reply), repaired=True, calls=calls)

    def text(
        self,
        task: str,
        messages: Messages,
        *,
        tools: Sequence[Any] | None = None,
        trace: Trace | None = None,
        budget: TurnBudget | None = None,
    ) -> TextReply:
        """A free-text reply, or tool calls when `tools` are given (bound with bind_tools)."""
        runnable: Any = self.model
        if tools:
            try:
                runnable = self.model.bind_tools(list(tools))
            except NotImplementedError:
                return TextReply(
                    "", error=f"{type(self.model).__name__} does not support tool calling"
                )
        budget = budget or self._call_budget()
        sent = to_messages(messages)
        out = self._request(
            task, sent, check=check_text, trace=trace, runnable=runnable, budget=budget
        )
        calls = list(out.calls)
        if out.cut:  # read the raw text; ask once for a shorter reply; else it is an error
            if trace is not None:
                trace.branch(
                    "llm text cut at max_tokens, one request for a shorter reply", task=task
                )
            limit = max_tokens_for(task, self.max_tokens)
            shorter = [*sent, HumanMessage(render("text_repair_short", limit=limit))]
            out = self._request(
                task,
                shorter,
                check=check_text,
                trace=trace,
                runnable=runnable,
                budget=budget,
                attempt=out.attempt + 1,
                repair=True,
            )
            calls += out.calls
        _settle(budget, out)
        if out.reply is None:
            return TextReply("", None, out.error, tuple(calls), skipped=out.skipped)
        self._note_cut(task, out, trace)
        return TextReply(out.reply.text, out.reply, out.error, tuple(calls), cut=out.cut)

    def stream(
        self,
        task: str,
        messages: Messages,
        *,
        on_chunk: Callable[[str], None] | None = None,
        trace: Trace | None = None,
        budget: TurnBudget | None = None,
    ) -> TextReply:
        """Stream a text reply, calling `on_chunk` with each piece in the caller's thread.

        Retried like `text` only while nothing has been shown; after the first piece a
        failure returns the partial text with the error.
        """
        budget = budget or self._call_budget()
        out = self._request(
            task,
            to_messages(messages),
            check=check_text,
            trace=trace,
            budget=budget,
            on_chunk=on_chunk,
        )
        _settle(budget, out)
        if out.reply is None:
            return TextReply("", None, out.error, tuple(out.calls), skipped=out.skipped)
        self._note_cut(task, out, trace)
        return TextReply(out.reply.text, out.reply, out.error, tuple(out.calls), cut=out.cut)

    def totals(self) -> dict[str, TaskTotals]:
        """Calls, failures, tokens and milliseconds per task, over this client's life."""
        return totals_by_task(self.calls)

    # --- one logical request ----------------------------------------------------------

    def _call_budget(self) -> TurnBudget:
        """A caller without a turn gets the user request's shared budget, else one request's
        worth: the client's turn defaults."""
        return shared_budget() or TurnBudget(self.turn_seconds, self.turn_tokens)

    def _config(self, task: str) -> RunnableConfig:
        return {
            "metadata": {TASK_KEY: task},
            "tags": ["vitrina.llm", f"task:{task}"],
            "run_name": f"llm:{task}",
        }

    def _refusal(self, budget: TurnBudget, prompt_tokens: int) -> str | None:
        refusal = budget.refusal(prompt_tokens)
        if refusal is None and self.breaker is not None:
            refusal = self.breaker.allow()
            if refusal is not None:
                budget.go_down("breaker_open", f"circuit breaker open: {refusal}")
                refusal = budget.down
        return refusal

    def _request(
        self,
        task: str,
        messages: list[BaseMessage],
        *,
        check: Check,
        trace: Trace | None,
        budget: TurnBudget,
        json_reply: bool = False,
        attempt: int = 1,
        repair: bool = False,
        runnable: Any = None,
        on_chunk: Callable[[str], None] | None = None,
    ) -> _Outcome:
        """Send until a reply arrives, the retries or the budget are spent; judge it with
        `check`."""
        runnable = runnable if runnable is not None else self.model
        calls: list[LLMCall] = []
        prompt_tokens = sum(estimate_tokens(message_text(m)) for m in messages)
        refusal = self._refusal(budget, prompt_tokens)
        if refusal is not None:
            budget.skipped += 1
            if trace is not None:
                trace.branch("model not asked: rule path", task=task, reason=refusal)
            kind = budget.refusal_kind(prompt_tokens)
            return _Outcome(None, refusal, attempt, calls, skipped=True, kind=kind)
        limit = min(
            max_tokens_for(task, self.max_tokens), budget.remaining_tokens() - prompt_tokens
        )
        counter = {"attempt": attempt}

        def send() -> AIMessage:
            deadline = max(0.1, min(self.timeout_s, budget.remaining_s()))
            kwargs: dict[str, Any] = {"max_tokens": limit, "timeout": deadline}
            if json_reply and self.json_mode:
                kwargs["response_format"] = JSON_OBJECT

            def once() -> AIMessage:
                try:
                    return self._send(
                        task,
                        runnable,
                        messages,
                        kwargs,
                        deadline,
                        calls,
                        budget,
                        counter["attempt"],
                        repair,
                        json_reply,
                        on_chunk,
                    )
                except AssertionError:
                    raise
                except Exception as exc:  # every failed attempt counts, retried or not
                    if is_endpoint_failure(exc):
                        self._endpoint_failed(budget, miss_kind(exc), describe(exc))
                    raise

            try:
                return once()
            except Exception as exc:
                if "response_format" in kwargs and rejects_json_mode(exc):
                    self.json_mode = False  # this server has no JSON mode: the prompt alone asks
                    if trace is not None:
                        trace.branch("server rejected JSON mode; asking by prompt only", task=task)
                    counter["attempt"] += 1
                    kwargs.pop("response_format")
                    return once()
                raise

        def before_sleep(state: RetryCallState) -> None:
            exc = state.outcome.exception() if state.outcome else None
            counter["attempt"] += 1
            if trace is not None and exc is not None:
                trace.suppressed(
                    "llm call failed, retrying",
                    task=task,
                    attempt=counter["attempt"] - 1,
                    error=describe(exc),
                    delay_s=round(state.upcoming_sleep, 3),
                )

        retrying = Retrying(
            stop=stop_any(stop_after_attempt(self.max_retries + 1), _BudgetStop(budget)),
            wait=lambda state: min(self._wait(state), max(0.0, budget.remaining_s() - 1.0)),
            retry=retry_if_exception(is_retryable),
            sleep=self._sleep,
            before_sleep=before_sleep,
            reraise=True,
        )
        try:
            reply = retrying(send)
        except AssertionError:
            raise  # a broken test script or a bug, not a model failure
        except _Partial as exc:
            self._give_up(task, describe(exc.cause), trace)
            return _Outcome(
                AIMessage(exc.text),
                describe(exc.cause),
                counter["attempt"],
                calls,
                kind=miss_kind(exc.cause),
            )
        except Exception as exc:
            error = describe(exc)
            if is_unreachable(exc):  # the endpoint gave nothing: no more waiting this turn
                budget.go_down(miss_kind(exc), error)
            self._give_up(task, error, trace)
            return _Outcome(None, error, counter["attempt"], calls, kind=miss_kind(exc))
        problem = check(reply)
        if problem is None:
            if self.breaker is not None:
                self.breaker.record(True)
            return _Outcome(reply, None, counter["attempt"], calls)
        # the request itself went through; its output did not: that counts too (decision 175)
        calls[-1] = _failed(calls[-1], problem)
        self.calls[-1] = calls[-1]
        budget.calls[-1] = calls[-1]
        self._endpoint_failed(budget, "invalid_reply", f"invalid reply: {problem}")
        return _Outcome(reply, problem, counter["attempt"], calls, kind="invalid_reply")

    def _endpoint_failed(self, budget: TurnBudget, kind: str, error: str) -> None:
        """One failure toward the breaker; once it opens, the turn asks no more (and says
        why: the kind of the failure that opened it)."""
        if self.breaker is None:
            return
        self.breaker.record(False, error)
        state = self.breaker.state()
        if state.is_open(self.breaker.clock()):
            budget.go_down(
                kind, f"circuit breaker opened after {state.failures} failures in a row: {error}"
            )

    def _send(
        self,
        task: str,
        runnable: Any,
        messages: list[BaseMessage],
        kwargs: dict[str, Any],
        deadline: float,
        calls: list[LLMCall],
        budget: TurnBudget,
        attempt: int,
        repair: bool,
        json_reply: bool,
        on_chunk: Callable[[str], None] | None,
    ) -> AIMessage:
        """One streamed request; stops at the end of the JSON object for a typed reply."""
        start = time.perf_counter()
        closer = ObjectCloser() if json_reply else None
        merged: Any = None
        pieces: list[str] = []
        early = False
        source = stream_with_deadline(
            lambda: runnable.stream(messages, config=self._config(task), **kwargs), deadline
        )
        try:
            for chunk in source:
                if closer is not None and closer.closed and chunk.text.strip():
                    early = True  # more words after the complete object: a rambling model
                    break
                merged = chunk if merged is None else merged + chunk
                if chunk.text:
                    pieces.append(chunk.text)
                    if on_chunk is not None:
                        on_chunk(chunk.text)
                    if closer is not None:
                        closer.feed(chunk.text)  # once closed, only the final chunks are read
        except AssertionError:
            raise
        except Exception as exc:
            raw = cut_text(exc)
            if raw is None:
                partial = "".join(pieces)
                self._log(
                    calls,
                    budget,
                    task,
                    messages,
                    None,
                    start,
                    attempt,
                    describe(exc),
                    repair=repair,
                    partial=partial,
                    max_tokens=kwargs["max_tokens"],
                )
                if on_chunk is not None and pieces:
                    raise _Partial(exc, partial) from exc
                raise
            # the OpenAI SDK refused to parse a reply that hit max_tokens: keep its text
            merged = AIMessage(
                max(raw, "".join(pieces), key=len), response_metadata={"finish_reason": LENGTH}
            )
        finally:
            source.close()  # stops the reader thread, which closes the HTTP stream
        reply = message_chunk_to_message(merged) if merged is not None else AIMessage("")
        if not isinstance(reply, AIMessage):  # pragma: no cover - chat models stream AI chunks
            reply = AIMessage(message_text(reply))
        if early:
            reply = reply.model_copy(
                update={
                    "response_metadata": {
                        **reply.response_metadata,
                        "finish_reason": "stop",
                        "vitrina_early_stop": True,
                    }
                }
            )
        self._log(
            calls,
            budget,
            task,
            messages,
            reply,
            start,
            attempt,
            None,
            repair=repair,
            max_tokens=kwargs["max_tokens"],
            early=early,
        )
        return reply

    def _wait(self, state: RetryCallState) -> float:
        """Exponential backoff, or the server's Retry-After when it sent one."""
        exc = state.outcome.exception() if state.outcome else None
        after = retry_after_s(exc) if exc is not None else None
        return after if after is not None else self.backoff_s * (2 ** (state.attempt_number - 1))

    def _note_cut(self, task: str, out: _Outcome, trace: Trace | None) -> None:
        if out.cut and trace is not None:
            trace.suppressed(
                "llm text cut at max_tokens; the caller takes its rule path",
                task=task,
                max_tokens=max_tokens_for(task, self.max_tokens),
            )

    def _give_up(self, task: str, error: str, trace: Trace | None) -> None:
        if trace is not None:
            trace.suppressed("llm call failed; using the rule path", task=task, error=error)

    def _log(
        self,
        calls: list[LLMCall],
        budget: TurnBudget,
        task: str,
        messages: Sequence[BaseMessage],
        reply: AIMessage | None,
        start: float,
        attempt: int,
        error: str | None,
        *,
        repair: bool = False,
        partial: str = "",
        max_tokens: int | None = None,
        early: bool = False,
    ) -> None:
        prompt, completion, estimated = usage_of(messages, reply)
        if reply is None and partial:
            completion = estimate_tokens(partial)
        call = LLMCall(
            task=task,
            model=self.model_name,
            prompt_tokens=prompt,
            completion_tokens=completion,
            latency_ms=round((time.perf_counter() - start) * 1000, 1),
            attempt=attempt,
            ok=error is None,
            error=error,
            estimated=estimated,
            repair=repair,
            max_tokens=max_tokens,
            cut=reply is not None and finish_reason(reply) == LENGTH,
            early_stop=early,
        )
        calls.append(call)
        self.calls.append(call)
        budget.calls.append(call)
        budget.spend(prompt + completion)
        if self.tracer is not None:
            try:
                self.tracer(call)
            except Exception:  # telemetry must never break a run
                log.exception("LLM call tracer failed")


class _BudgetStop(stop_base):
    """Stop retrying when the turn could not wait for the backoff and another try."""

    def __init__(self, budget: TurnBudget) -> None:
        self.budget = budget

    def __call__(self, retry_state: RetryCallState) -> bool:
        return self.budget.down is not None or self.budget.remaining_s() <= MIN_REQUEST_S


def _settle(budget: TurnBudget, out: _Outcome) -> None:
    """Count a finished slot: served by the model, or missed and why (the user's notice)."""
    if out.error is None and out.reply is not None:
        budget.served += 1
    else:
        budget.miss(out.kind or "error", out.error or "no reply")


def _failed(call: LLMCall, error: str) -> LLMCall:
    return replace(call, ok=False, error=error)


def _raw(reply: AIMessage | None) -> str | None:
    return reply.text if reply is not None else None
