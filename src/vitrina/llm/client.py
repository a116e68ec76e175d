"""LLMClient: typed, bounded, accounted calls to a chat model, for graph nodes.

The client never raises a model failure into its caller: a node gets a result whose
`value` (or `text`) is None with an `error`, writes a trace event and takes the rule
path. Per request: a hard deadline, retries with exponential backoff on transient
errors only, one repair request for invalid structured output, and an `LLMCall` record.

How a task reaches the model: every request is invoked with
`config={"metadata": {"vitrina_task": task}, ...}`; callbacks, tracers and the scripted
fake read it from there. Nothing is global: the client holds its model, its settings and
its own call log, so one client per run (or per test) is the unit.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
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

from vitrina.llm.accounting import (
    LLMCall,
    TaskTotals,
    estimate_tokens,
    message_text,
    totals_by_task,
    usage_of,
)
from vitrina.llm.jsonout import OutputError, parse_into
from vitrina.llm.prompts import render
from vitrina.llm.transport import (
    call_with_deadline,
    describe,
    is_retryable,
    rejects_json_mode,
    stream_with_deadline,
)
from vitrina.trace import Trace

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)

TASK_KEY = "vitrina_task"  # the invoke-config metadata key that names the task
JSON_OBJECT = {"type": "json_object"}

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

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        return list(self.message.tool_calls) if self.message is not None else []


@dataclass
class _Outcome:
    reply: AIMessage | None
    error: str | None
    attempt: int
    calls: list[LLMCall] = field(default_factory=list)


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


def with_instruction(messages: list[BaseMessage], instruction: str) -> list[BaseMessage]:
    """Append `instruction` to the first system message, or add one at the top.

    One system message only: several chat templates (Mistral, some llama.cpp ones) reject
    a second system turn or one that is not first.
    """
    if messages and isinstance(messages[0], SystemMessage) and isinstance(messages[0].content, str):
        head = SystemMessage(f"{messages[0].content}\n\n{instruction}")
        return [head, *messages[1:]]
    return [SystemMessage(instruction), *messages]


def check_text(reply: AIMessage) -> str | None:
    """Bad output for a text request: nothing said and no tool called."""
    if reply.tool_calls:
        return None
    if reply.response_metadata.get("finish_reason") == "tool_calls":
        return "the model stopped for tool calls but sent none"
    if not reply.text.strip():
        return "the model sent an empty reply"
    return None


class LLMClient:
    """Typed calls to one chat model with deadlines, retries, repair and accounting."""

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
    ) -> None:
        """`max_retries` counts retries after the first try; `tracer` sees every LLMCall;
        `json_mode` sends response_format json_object (turned off by itself when the server
        rejects it); `sleep` is replaceable so tests do not wait for the backoff."""
        if timeout_s <= 0:
            raise ValueError(f"timeout_s must be positive, got {timeout_s}")
        self.model = model
        self.model_name = model_name(model)
        self.timeout_s = timeout_s
        self.max_retries = max(0, max_retries)
        self.backoff_s = backoff_s
        self.tracer = tracer
        self.json_mode = json_mode
        self.calls: list[LLMCall] = []
        self._sleep = sleep

    # --- public API -------------------------------------------------------------------

    def structured(self, task: str, messages: Messages, schema: type[T], *, trace: Trace | None = None
                   ) -> Structured[T]:
        """Ask for one JSON object and validate it into `schema`.

        Invalid output gets exactly one repair request quoting the error; if that fails
        too, `value` is None with the error. Transport errors are retried, then returned.
        """
        schema_text = json.dumps(schema.model_json_schema(), ensure_ascii=False)
        sent = with_instruction(to_messages(messages), render("json_instruction", schema=schema_text))
        parsed: dict[str, T] = {}

        def check(reply: AIMessage) -> str | None:
            try:
                parsed["value"] = parse_into(schema, reply.text)
            except OutputError as exc:
                return str(exc)
            return None

        first = self._request(task, sent, check=check, json_reply=True, trace=trace)
        if first.reply is None or first.error is None:
            return Structured(parsed.get("value"), first.error, _raw(first.reply), calls=tuple(first.calls))
        if trace is not None:
            trace.branch("llm output invalid, one repair request", task=task, error=first.error)
        repair = [*sent, AIMessage(_raw(first.reply) or "(empty reply)"),
                  HumanMessage(render("json_repair", error=first.error, schema=schema_text))]
        second = self._request(task, repair, check=check, json_reply=True, trace=trace,
                               attempt=first.attempt + 1, repair=True)
        calls = tuple(first.calls + second.calls)
        if second.error is not None:
            error = f"invalid output after one repair request: {second.error}"
            if trace is not None:
                trace.suppressed("llm output still invalid after repair; using the rule path",
                                 task=task, error=second.error)
            return Structured(None, error, _raw(second.reply) or _raw(first.reply), calls=calls)
        return Structured(parsed["value"], None, _raw(second.reply), repaired=True, calls=calls)

    def text(self, task: str, messages: Messages, *, tools: Sequence[Any] | None = None,
             trace: Trace | None = None) -> TextReply:
        """A free-text reply, or tool calls when `tools` are given (bound with bind_tools)."""
        runnable: Any = self.model
        if tools:
            try:
                runnable = self.model.bind_tools(list(tools))
            except NotImplementedError:
                return TextReply("", error=f"{type(self.model).__name__} does not support tool calling")
        out = self._request(task, to_messages(messages), check=check_text, trace=trace, runnable=runnable)
        if out.reply is None:
            return TextReply("", None, out.error, tuple(out.calls))
        return TextReply(out.reply.text, out.reply, out.error, tuple(out.calls))

    def stream(self, task: str, messages: Messages, *, on_chunk: Callable[[str], None] | None = None,
               trace: Trace | None = None) -> TextReply:
        """Stream a text reply, calling `on_chunk` with each piece in the caller's thread.

        Retried like `text` only while nothing has been shown; after the first piece a
        failure returns the partial text with the error.
        """
        sent = to_messages(messages)
        calls: list[LLMCall] = []
        attempt, retries = 1, 0
        while True:
            pieces: list[str] = []
            merged: Any = None
            start = time.perf_counter()
            try:
                source = stream_with_deadline(
                    lambda: self.model.stream(sent, config=self._config(task)), self.timeout_s)
                for chunk in source:
                    merged = chunk if merged is None else merged + chunk
                    if chunk.text:
                        pieces.append(chunk.text)
                        if on_chunk is not None:
                            on_chunk(chunk.text)
            except AssertionError:
                raise
            except Exception as exc:
                latency = _ms(start)
                partial = "".join(pieces)
                self._log(calls, task, sent, None, latency, attempt, describe(exc), partial=partial)
                if not pieces and is_retryable(exc) and retries < self.max_retries:
                    self._backoff(task, exc, retries, attempt, trace)
                    retries, attempt = retries + 1, attempt + 1
                    continue
                self._give_up(task, describe(exc), trace)
                return TextReply(partial, None, describe(exc), tuple(calls))
            reply = message_chunk_to_message(merged) if merged is not None else AIMessage("")
            if not isinstance(reply, AIMessage):  # pragma: no cover - chat models stream AI chunks
                reply = AIMessage(message_text(reply))
            problem = check_text(reply)
            self._log(calls, task, sent, reply, _ms(start), attempt, problem)
            return TextReply(reply.text, reply, problem, tuple(calls))

    def totals(self) -> dict[str, TaskTotals]:
        """Calls, failures, tokens and milliseconds per task, over this client's life."""
        return totals_by_task(self.calls)

    # --- one logical request ----------------------------------------------------------

    def _config(self, task: str) -> RunnableConfig:
        return {"metadata": {TASK_KEY: task}, "tags": ["vitrina.llm", f"task:{task}"],
                "run_name": f"llm:{task}"}

    def _request(self, task: str, messages: list[BaseMessage], *, check: Check, trace: Trace | None,
                 json_reply: bool = False, attempt: int = 1, repair: bool = False, runnable: Any = None
                 ) -> _Outcome:
        """Send until a reply arrives or the retry budget is spent; judge it with `check`."""
        runnable = runnable if runnable is not None else self.model
        calls: list[LLMCall] = []
        retries = 0
        while True:
            kwargs = {"response_format": JSON_OBJECT} if json_reply and self.json_mode else {}
            start = time.perf_counter()
            try:
                reply = call_with_deadline(
                    lambda kw=kwargs: runnable.invoke(messages, config=self._config(task), **kw),
                    self.timeout_s)
            except AssertionError:
                raise  # a broken test script or a bug, not a model failure
            except Exception as exc:
                self._log(calls, task, messages, None, _ms(start), attempt, describe(exc), repair=repair)
                if kwargs and rejects_json_mode(exc):
                    self.json_mode = False  # this server has no JSON mode: the prompt alone asks
                    if trace is not None:
                        trace.branch("server rejected JSON mode; asking by prompt only", task=task)
                    attempt += 1
                    continue
                if is_retryable(exc) and retries < self.max_retries:
                    self._backoff(task, exc, retries, attempt, trace)
                    retries, attempt = retries + 1, attempt + 1
                    continue
                self._give_up(task, describe(exc), trace)
                return _Outcome(None, describe(exc), attempt, calls)
            if not isinstance(reply, AIMessage):  # pragma: no cover - chat models return AIMessage
                reply = AIMessage(message_text(reply))
            problem = check(reply)
            self._log(calls, task, messages, reply, _ms(start), attempt, problem, repair=repair)
            return _Outcome(reply, problem, attempt, calls)

    def _backoff(self, task: str, exc: BaseException, retries: int, attempt: int, trace: Trace | None) -> None:
        delay = self.backoff_s * (2 ** retries)
        if trace is not None:
            trace.suppressed("llm call failed, retrying", task=task, attempt=attempt, error=describe(exc),
                             delay_s=delay)
        self._sleep(delay)

    def _give_up(self, task: str, error: str, trace: Trace | None) -> None:
        if trace is not None:
            trace.suppressed("llm call failed; using the rule path", task=task, error=error)

    def _log(self, calls: list[LLMCall], task: str, messages: Sequence[BaseMessage], reply: AIMessage | None,
             latency_ms: float, attempt: int, error: str | None, *, repair: bool = False, partial: str = ""
             ) -> None:
        prompt, completion, estimated = usage_of(messages, reply)
        if reply is None and partial:
            completion = estimate_tokens(partial)
        call = LLMCall(task=task, model=self.model_name, prompt_tokens=prompt, completion_tokens=completion,
                       latency_ms=round(latency_ms, 1), attempt=attempt, ok=error is None, error=error,
                       estimated=estimated, repair=repair)
        calls.append(call)
        self.calls.append(call)
        if self.tracer is not None:
            try:
                self.tracer(call)
            except Exception:  # telemetry must never break a run
                log.exception("LLM call tracer failed")


def _raw(reply: AIMessage | None) -> str | None:
    return reply.text if reply is not None else None


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000
