"""How much model one turn may use: seconds, tokens, and max_tokens per request.

A turn (one question, one routing decision, one task interaction, one documented measure)
gets one `TurnBudget`. Every request of the turn draws on it; when it is spent, or the
endpoint failed to answer at all, the turn's remaining model slots return at once and the
rules answer. A hanging endpoint therefore costs a turn at most `seconds`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vitrina.llm.accounting import LLMCall

# Replies are small JSON objects or short texts; a limit well above a good answer and far
# below a rambling one. Users override per task with `[llm.max_tokens]` in vitrina.toml.
DEFAULT_MAX_TOKENS: dict[str, int] = {
    "default": 512,
    # ask
    "rewrite": 160,
    "topic": 96,
    "period": 96,
    "ambiguity": 256,
    "tables": 192,
    "feasibility": 256,
    "sql_generation": 768,
    "semantic_check": 384,
    "answer": 384,
    "chart": 160,
    "dialog_summary": 256,
    # route
    "route_intent": 128,
    "route_plan_score": 384,
    # task
    "task_planner": 768,
    "task_evaluator": 256,
    "task_executor": 1024,
    # docs
    "docs_measure_list": 1024,
    "docs_explain": 384,
    # eval
    "eval_judge": 256,
}
MIN_REPLY_TOKENS = 32  # below this a request is not worth sending
MIN_REQUEST_S = 0.2


def max_tokens_for(task: str, overrides: Mapping[str, int] | None = None) -> int:
    """The reply limit for `task`: the override, the task's default, else the default.

    >>> max_tokens_for("topic"), max_tokens_for("topic", {"topic": 50}), max_tokens_for("x")
    (96, 50, 512)
    """
    table = {**DEFAULT_MAX_TOKENS, **(overrides or {})}
    return int(table.get(task, table["default"]))


@dataclass
class TurnBudget:
    """Seconds and tokens left to one turn; `down` is why the model is off for the rest."""

    seconds: float
    tokens: int
    clock: Callable[[], float] = time.monotonic
    started: float = field(default=-1.0)
    used_tokens: int = 0
    down: str | None = None
    skipped: int = 0  # model slots answered by rules without a request
    calls: list[LLMCall] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.started < 0:
            self.started = self.clock()

    def used_s(self) -> float:
        return self.clock() - self.started

    def remaining_s(self) -> float:
        return self.seconds - (self.clock() - self.started)

    def remaining_tokens(self) -> int:
        return self.tokens - self.used_tokens

    def spend(self, tokens: int) -> None:
        self.used_tokens += max(0, tokens)

    def refusal(self, prompt_tokens: int) -> str | None:
        """Why no request may be sent now, or None."""
        if self.down is not None:
            return f"the model is off for this turn: {self.down}"
        if self.remaining_s() < MIN_REQUEST_S:
            return f"the turn's model time ({self.seconds:g} s) is spent"
        if self.remaining_tokens() - prompt_tokens < MIN_REPLY_TOKENS:
            return (
                f"the turn's model tokens ({self.tokens}) are spent "
                f"({self.used_tokens} used, this prompt ~{prompt_tokens})"
            )
        return None
