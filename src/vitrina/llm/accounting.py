"""Token and latency accounting: one record per model request, totals per task.

Tokens come from the reply's usage metadata when the server sends it; otherwise they are
estimated (UTF-8 bytes / 4, which tracks real tokenizers for both English and Russian
within a factor of about 1.5) and the record says so.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, BaseMessage

if TYPE_CHECKING:
    from vitrina.llm.budget import TurnBudget


@dataclass(frozen=True, slots=True)
class LLMCall:
    """One request to the model: what it cost and how it ended."""

    task: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    latency_ms: float
    attempt: int  # 1-based, counts retries and the repair request of one logical call
    ok: bool
    error: str | None = None
    estimated: bool = False  # tokens estimated, the server sent no usage
    repair: bool = False  # this request asked the model to fix its previous output
    max_tokens: int | None = None  # the reply limit sent
    cut: bool = False  # the reply stopped at max_tokens (finish_reason "length")
    early_stop: bool = False  # the stream was closed once the JSON object was complete


@dataclass(frozen=True, slots=True)
class TaskTotals:
    """Sums over the calls of one task."""

    calls: int = 0
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def totals_by_task(calls: Iterable[LLMCall]) -> dict[str, TaskTotals]:
    """Sum calls per task, in the order tasks first appear."""
    out: dict[str, TaskTotals] = {}
    for call in calls:
        t = out.get(call.task, TaskTotals())
        out[call.task] = TaskTotals(
            calls=t.calls + 1,
            failures=t.failures + (not call.ok),
            prompt_tokens=t.prompt_tokens + call.prompt_tokens,
            completion_tokens=t.completion_tokens + call.completion_tokens,
            latency_ms=t.latency_ms + call.latency_ms,
        )
    return out


def estimate_tokens(text: str) -> int:
    """A tokenizer-free estimate: no download, no model-specific vocabulary.

    >>> estimate_tokens("")
    0
    >>> estimate_tokens("hello world!")
    3
    """
    return math.ceil(len(text.encode("utf-8")) / 4)


def message_text(message: BaseMessage) -> str:
    """The text a message carries, tool-call arguments included (they cost tokens too)."""
    content = message.content
    if isinstance(content, str):
        text = content
    else:
        text = "".join(
            part if isinstance(part, str) else str(part.get("text", "")) for part in content
        )
    if isinstance(message, AIMessage) and message.tool_calls:
        text += "".join(f"{call['name']}{call['args']}" for call in message.tool_calls)
    return text


def usage_of(messages: Sequence[BaseMessage], reply: AIMessage | None) -> tuple[int, int, bool]:
    """(prompt_tokens, completion_tokens, estimated) for one request."""
    usage = reply.usage_metadata if reply is not None else None
    if usage and (usage.get("input_tokens") or usage.get("output_tokens")):
        return int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0)), False
    prompt = sum(estimate_tokens(message_text(m)) for m in messages)
    completion = estimate_tokens(message_text(reply)) if reply is not None else 0
    return prompt, completion, True


def calls_summary(calls: Sequence[LLMCall]) -> dict[str, Any]:
    """Counts and sums over some calls: the common part of every job's `llm_usage`."""
    return {
        "calls": len(calls),
        "prompt_tokens": sum(c.prompt_tokens for c in calls),
        "completion_tokens": sum(c.completion_tokens for c in calls),
        "latency_ms": round(sum(c.latency_ms for c in calls), 1),
        "failures": sum(not c.ok for c in calls),
        "repairs": sum(c.repair for c in calls),
        "cut": sum(c.cut for c in calls),
        "early_stops": sum(c.early_stop for c in calls),
        "by_task": {t: asdict(totals) for t, totals in totals_by_task(calls).items()},
    }


def usage_summary(budget: TurnBudget) -> dict[str, Any]:
    """One turn's `llm_usage`: its calls, the slots answered without a request, the budget."""
    return {
        **calls_summary(budget.calls),
        "skipped": budget.skipped,
        "budget": {
            "seconds": budget.seconds,
            "tokens": budget.tokens,
            "used_s": round(budget.used_s(), 3),
            "used_tokens": budget.used_tokens,
        },
        "down": budget.down,
    }
