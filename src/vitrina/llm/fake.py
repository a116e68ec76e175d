"""ScriptedChatModel: a chat model for tests that replies from a script per task.

    model = ScriptedChatModel({
        "sql_generation": ['{"sql": "SELEC 1"}', '{"sql": "SELECT 1"}'],
        "topic": [Malformed(), TimeoutError("slow")],
    })

How the task reaches the model: LLMClient invokes it with
`config={"metadata": {"vitrina_task": task}}`; the fake reads the task from its run
metadata, falling back to LangGraph's `langgraph_node` (so a node that calls the model
directly is scripted under its node name). A request with no task, an unscripted task or
a spent script raises FakeScriptError, an AssertionError that LLMClient lets through, so
a broken script fails the test instead of looking like a model outage.

A reply is, per request, in order:
- a string (the reply text), a dict or list (sent as JSON), a Pydantic model (its JSON);
- an AIMessage, e.g. with tool_calls (see `calling`);
- an exception instance or class, raised as the request's failure
  (TimeoutError, httpx.ConnectError, ...);
- `Malformed(text)`: broken JSON; `NoToolCalls()`: finish_reason "tool_calls" and no calls;
- `Cut(text)`: a reply stopped at the length limit (finish_reason "length");
- `Slow(reply, seconds)`: the reply after a delay (for deadlines); `Slow(reply, seconds,
  per_chunk=True)` streams each piece after that delay (a slow, rambling model);
- a callable taking the request's messages and returning any of the above.
`ScriptedChatModel(every=reply)` answers every task that has no script with `reply`, never
spent (a model that always times out, always sends broken JSON, ...).

The fake keeps the real stack's contract (ChatOpenAI over the OpenAI SDK):
- `max_tokens` is honoured: a reply longer than the request's limit (estimated tokens) is
  cut there and ends with finish_reason "length", like any cut reply;
- a cut reply to a request with `response_format` raises the SDK's
  `openai.LengthFinishReasonError` (its `completion` holds the text), on `invoke` and at
  the end of a `stream`, as ChatOpenAI's parse path does; without response_format a cut
  reply is returned (or streamed) with finish_reason "length";
- streamed replies come in word pieces; `Prompt.delivered` counts the pieces the caller
  took, so a test sees that a stream was closed early.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolCall
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import RunnableConfig, ensure_config
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, PrivateAttr

from vitrina.llm.accounting import estimate_tokens, message_text
from vitrina.llm.client import TASK_KEY

NODE_KEY = "langgraph_node"
_TASK_KWARG = "_vitrina_task"


def _task_of(config: RunnableConfig | None) -> str | None:
    """The task named in a run config (merged with the LangGraph one in context)."""
    metadata = ensure_config(config).get("metadata") or {}
    return metadata.get(TASK_KEY) or metadata.get(NODE_KEY)


class FakeScriptError(AssertionError):
    """The script does not cover this request: a test bug, never a model failure."""


@dataclass(frozen=True)
class Malformed:
    """A reply whose JSON is broken (cut off by default, like a model hitting max_tokens)."""

    text: str = '{"answer": "unterminated'


@dataclass(frozen=True)
class NoToolCalls:
    """A reply that says finish_reason "tool_calls" but carries no tool call."""

    text: str = ""


@dataclass(frozen=True)
class Cut:
    """A reply that stopped at the length limit (finish_reason "length")."""

    text: str = '{"answer": "a long answer that never'


@dataclass(frozen=True)
class Slow:
    """`reply` after `seconds` (for deadlines); with `per_chunk`, each streamed piece."""

    reply: Any
    seconds: float
    per_chunk: bool = False


@dataclass
class Prompt:
    """One request the fake received: what a node sent, for assertions."""

    task: str
    messages: list[BaseMessage]
    kwargs: dict[str, Any] = field(default_factory=dict)
    delivered: int = 0  # streamed pieces the caller took

    @property
    def max_tokens(self) -> int | None:
        return _max_tokens(self.kwargs)

    @property
    def text(self) -> str:
        """Every message's text, one per line."""
        return "\n".join(message_text(m) for m in self.messages)

    @property
    def tool_names(self) -> list[str]:
        return [t["function"]["name"] for t in self.kwargs.get("tools", [])]


_ids = itertools.count(1)


def calling(
    name: str, args: Mapping[str, Any] | None = None, *, id: str | None = None, content: str = ""
) -> AIMessage:
    """An AIMessage that calls one tool (chain several with `calls`)."""
    return calls((name, args or {}, id), content=content)


def calls(
    *specs: tuple[str, Mapping[str, Any]] | tuple[str, Mapping[str, Any], str | None],
    content: str = "",
) -> AIMessage:
    """An AIMessage with several tool calls: `calls(("search", {"q": "x"}), ("get", {"id": 1}))`."""
    tool_calls: list[ToolCall] = []
    for spec in specs:
        name, args = spec[0], spec[1]
        call_id = (spec[2] if len(spec) > 2 else None) or f"call_{next(_ids)}"
        tool_calls.append(ToolCall(name=name, args=dict(args), id=call_id, type="tool_call"))
    return AIMessage(content=content, tool_calls=tool_calls)


class ScriptedChatModel(BaseChatModel):
    """Replies from per-task scripts, consumed in order; records every prompt it gets."""

    model_name: str = "scripted"
    report_usage: bool = True  # False: no usage metadata, so callers must estimate
    every: Any = (
        None  # a reply for every task without a script, never spent ("a model that always ...")
    )

    _queues: dict[str, deque[Any]] = PrivateAttr(default_factory=dict)
    _prompts: list[Prompt] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def __init__(self, scripts: Mapping[str, Sequence[Any]] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # a real chat model has loaded the OpenAI SDK when it is built; so does the fake, whose cut
        # replies raise the SDK's error: loading it inside a call would eat the call's deadline
        import openai  # noqa: F401

        for task, replies in (scripts or {}).items():
            self.add(task, *replies)

    @property
    def _llm_type(self) -> str:
        return "vitrina-scripted"

    # --- scripting and inspection -------------------------------------------------------

    def add(self, task: str, *replies: Any) -> ScriptedChatModel:
        """Append replies to a task's script."""
        with self._lock:
            self._queues.setdefault(task, deque()).extend(replies)
        return self

    @property
    def prompts(self) -> list[Prompt]:
        """Every request received, in order."""
        return list(self._prompts)

    def prompts_for(self, task: str) -> list[Prompt]:
        return [p for p in self._prompts if p.task == task]

    def remaining(self) -> dict[str, int]:
        """Replies not yet consumed, per task (empty scripts left out)."""
        return {task: len(q) for task, q in self._queues.items() if q}

    # --- BaseChatModel ------------------------------------------------------------------

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any) -> Any:
        """Bind tools the way ChatOpenAI does: OpenAI tool dicts in the request kwargs."""
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        return self.bind(tools=formatted, **kwargs)

    def stream(
        self,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> Iterator[AIMessageChunk]:
        """BaseChatModel.stream gives _stream no run manager, so the task travels as a kwarg."""
        yield from super().stream(
            input, config, stop=stop, **{_TASK_KWARG: _task_of(config)}, **kwargs
        )

    async def astream(
        self,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[AIMessageChunk]:
        async for chunk in super().astream(
            input, config, stop=stop, **{_TASK_KWARG: _task_of(config)}, **kwargs
        ):
            yield chunk

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        message, _, _ = self._reply(messages, run_manager, kwargs)
        if _is_cut(message) and "response_format" in kwargs:
            raise _length_error(message)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        parse = "response_format" in kwargs
        message, prompt, pace = self._reply(messages, run_manager, kwargs)
        pieces = re.findall(r"\s*\S+", message.text) or [""]
        for i, piece in enumerate(pieces):
            if pace:
                time.sleep(pace)
            last = i == len(pieces) - 1
            chunk = AIMessageChunk(
                content=piece,
                tool_call_chunks=[
                    {
                        "name": c["name"],
                        "args": json.dumps(c["args"]),
                        "id": c["id"],
                        "index": n,
                        "type": "tool_call_chunk",
                    }
                    for n, c in enumerate(message.tool_calls)
                ]
                if last
                else [],
                usage_metadata=message.usage_metadata if last else None,
                response_metadata=message.response_metadata if last else {},
            )
            if run_manager is not None and piece:
                run_manager.on_llm_new_token(piece)
            prompt.delivered += 1
            yield ChatGenerationChunk(message=chunk)
        if parse and _is_cut(message):
            raise _length_error(message)  # the SDK's stream parses the final completion

    # --- replies ------------------------------------------------------------------------

    def _reply(
        self,
        messages: list[BaseMessage],
        run_manager: CallbackManagerForLLMRun | None,
        kwargs: dict[str, Any],
    ) -> tuple[AIMessage, Prompt, float]:
        """The scripted reply (cut at max_tokens), its Prompt record, the per-piece delay."""
        metadata = run_manager.metadata if run_manager is not None else {}
        task = kwargs.pop(_TASK_KWARG, None) or metadata.get(TASK_KEY) or metadata.get(NODE_KEY)
        if not task:
            raise FakeScriptError(
                "ScriptedChatModel got a request without a task: call it through LLMClient or "
                f"invoke with config={{'metadata': {{'{TASK_KEY}': ...}}}}; scripted: "
                f"{sorted(self._queues)}"
            )
        prompt = Prompt(task=task, messages=list(messages), kwargs=dict(kwargs))
        with self._lock:
            self._prompts.append(prompt)
            queue = self._queues.get(task)
            if queue is None and self.every is not None:
                queue = deque([self.every])
            if queue is None:
                raise FakeScriptError(
                    f"no script for task {task!r}; scripted tasks: {sorted(self._queues)}"
                )
            if not queue:
                used = len(self.prompts_for(task)) - 1
                raise FakeScriptError(f"the script for task {task!r} is spent after {used} replies")
            reply = queue.popleft()
        pace = reply.seconds if isinstance(reply, Slow) and reply.per_chunk else 0.0
        if pace:
            reply = reply.reply
        message = _limit(self._resolve(reply, messages), prompt.max_tokens)
        return self._finish(message, messages), prompt, pace

    def _resolve(self, reply: Any, messages: list[BaseMessage]) -> AIMessage:
        if isinstance(reply, Slow):
            time.sleep(reply.seconds)
            return self._resolve(reply.reply, messages)
        if isinstance(reply, Cut):
            return AIMessage(reply.text, response_metadata={"finish_reason": "length"})
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, type) and issubclass(reply, BaseException):
            raise reply(f"scripted {reply.__name__}")
        if isinstance(reply, Malformed):
            return AIMessage(reply.text)
        if isinstance(reply, NoToolCalls):
            return AIMessage(reply.text, response_metadata={"finish_reason": "tool_calls"})
        if isinstance(reply, AIMessage):
            return reply.model_copy(deep=True)
        if isinstance(reply, str):
            return AIMessage(reply)
        if isinstance(reply, BaseModel):
            return AIMessage(reply.model_dump_json())
        if isinstance(reply, dict | list):
            return AIMessage(json.dumps(reply, ensure_ascii=False))
        if callable(reply):
            return self._resolve(reply(messages), messages)
        raise FakeScriptError(f"cannot reply with {type(reply).__name__}: {reply!r}")

    def _finish(self, message: AIMessage, messages: list[BaseMessage]) -> AIMessage:
        """Add what a real server adds: finish_reason, model name and (optionally) usage."""
        metadata = {
            "finish_reason": "tool_calls" if message.tool_calls else "stop",
            "model_name": self.model_name,
            **message.response_metadata,
        }
        usage = message.usage_metadata
        if usage is None and self.report_usage:
            prompt = sum(estimate_tokens(message_text(m)) for m in messages)
            completion = estimate_tokens(message_text(message))
            usage = {
                "input_tokens": prompt,
                "output_tokens": completion,
                "total_tokens": prompt + completion,
            }
        return message.model_copy(update={"response_metadata": metadata, "usage_metadata": usage})


def _max_tokens(kwargs: Mapping[str, Any]) -> int | None:
    """The reply limit of a request, however ChatOpenAI would send it."""
    extra = kwargs.get("extra_body") or {}
    for value in (
        kwargs.get("max_tokens"),
        kwargs.get("max_completion_tokens"),
        extra.get("max_tokens"),
    ):
        if isinstance(value, int):
            return value
    return None


def _is_cut(message: AIMessage) -> bool:
    return message.response_metadata.get("finish_reason") == "length"


def _limit(message: AIMessage, max_tokens: int | None) -> AIMessage:
    """Cut a reply longer than `max_tokens` (estimated like accounting: 4 bytes a token)."""
    if max_tokens is None or message.tool_calls or estimate_tokens(message.text) <= max_tokens:
        return message
    text = message.text.encode("utf-8")[: max_tokens * 4].decode("utf-8", errors="ignore")
    return AIMessage(
        text, response_metadata={**message.response_metadata, "finish_reason": "length"}
    )


def _length_error(message: AIMessage) -> Exception:
    """The error the OpenAI SDK's parse raises for a completion that hit max_tokens."""
    import openai
    from openai.types.chat import ChatCompletion

    usage: Mapping[str, Any] = message.usage_metadata or {}
    completion = ChatCompletion.model_validate(
        {
            "id": "chatcmpl-scripted",
            "object": "chat.completion",
            "created": 0,
            "model": message.response_metadata.get("model_name", "scripted"),
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "length",
                    "message": {"role": "assistant", "content": message.text},
                }
            ],
            "usage": {
                "prompt_tokens": usage.get("input_tokens", 0),
                "completion_tokens": usage.get("output_tokens", 0),
                "total_tokens": usage.get("total_tokens", 0),
            },
        }
    )
    return openai.LengthFinishReasonError(completion=completion)


Reply = (
    str
    | dict[str, Any]
    | list[Any]
    | BaseModel
    | AIMessage
    | BaseException
    | type[BaseException]
    | Malformed
    | NoToolCalls
    | Cut
    | Slow
    | Callable[[list[BaseMessage]], Any]
)
