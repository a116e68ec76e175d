"""How much model one turn may use: seconds, tokens, and max_tokens per request.

A turn (one question, one routing decision, one task interaction, one docs run) gets one
`TurnBudget`. Every request of the turn draws on it; when it is spent, or the endpoint
failed to answer at all, the turn's remaining model slots return at once and the rules
answer. A hanging endpoint therefore costs a turn at most `seconds`.

One user request, one budget (decision 175): a job that runs another (route -> ask, a task's
steps -> ask, docs --llm over many measures) shares its budget with it through `sharing` /
`within`; `LLMClient.turn()` and a call without a turn then draw on the shared budget
instead of opening a fresh one.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

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
# why a wanted request gave nothing usable (TurnBudget.missed, the user's notice)
MISS_KINDS = (
    "timeout",
    "unreachable",
    "server_error",
    "invalid_reply",
    "breaker_open",
    "budget_spent",
    "error",
)
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
    down_kind: str | None = None  # one of MISS_KINDS, with `down`
    missed: list[tuple[str, str]] = field(default_factory=list)  # (kind, detail) per failed slot
    served: int = 0  # slots the model answered usably

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

    def go_down(self, kind: str, why: str) -> None:
        """No more requests this turn: the endpoint gave nothing, or the breaker is open."""
        self.down, self.down_kind = why, kind

    def miss(self, kind: str, detail: str) -> None:
        """A slot wanted the model and got nothing usable (the rules answered it)."""
        self.missed.append((kind, detail))

    def unused(self) -> tuple[str, str] | None:
        """(kind, detail) when the model was wanted and failed this turn: it went down, or
        every slot that asked got nothing usable; None when it served or was not wanted."""
        if self.down is not None:
            return self.down_kind or "error", self.down
        if self.missed and not self.served:
            return self.missed[0]
        return None

    def refusal_kind(self, prompt_tokens: int) -> str:
        """The MISS_KINDS entry of `refusal(prompt_tokens)`."""
        if self.down is not None:
            return self.down_kind or "error"
        return "budget_spent"

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


_SHARED: ContextVar[TurnBudget | None] = ContextVar("vitrina_request_budget", default=None)
Item = TypeVar("Item")


def shared_budget() -> TurnBudget | None:
    """The budget of the user request this code runs inside, if a job opened one."""
    return _SHARED.get()


@contextmanager
def sharing(budget: TurnBudget | None) -> Iterator[TurnBudget | None]:
    """Every model call inside the block (nested jobs included) draws on `budget`."""
    if budget is None or _SHARED.get() is not None:  # the outermost request's budget wins
        yield _SHARED.get() or budget
        return
    token = _SHARED.set(budget)
    try:
        yield budget
    finally:
        _SHARED.reset(token)


def within(budget: TurnBudget | None, items: Iterable[Item]) -> Iterator[Item]:
    """`items` (a graph's stream) consumed with `budget` shared around each step only, so a
    generator that yields to its caller never leaks the budget into the caller's code."""
    source = iter(items)
    while True:
        with sharing(budget):
            try:
                item = next(source)
            except StopIteration:
                return
        yield item
