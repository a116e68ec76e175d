"""The model seam as types. A graph node or an agent calls a model through `ModelSlots`
(structured, text, stream); a job that holds one for a process holds a `ModelClient`, which
also opens a turn with its own budget. `LLMClient` is a ModelClient, `ModelTurn` is
ModelSlots, and so is any test double with the same methods: mypy checks each call against
these instead of `Any`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

if TYPE_CHECKING:
    from vitrina.llm.client import Messages, ModelTurn, Structured, TextReply
    from vitrina.trace import Trace

T = TypeVar("T", bound=BaseModel)


@runtime_checkable
class ModelSlots(Protocol):
    """The three calls a node makes; each returns at once with `skipped` when the turn's
    budget is spent, and the caller takes its rule path."""

    def structured(
        self, task: str, messages: Messages, schema: type[T], *, trace: Trace | None = None
    ) -> Structured[T]: ...

    def text(
        self,
        task: str,
        messages: Messages,
        *,
        tools: Sequence[Any] | None = None,
        trace: Trace | None = None,
    ) -> TextReply: ...

    def stream(
        self,
        task: str,
        messages: Messages,
        *,
        on_chunk: Callable[[str], None] | None = None,
        trace: Trace | None = None,
    ) -> TextReply: ...


@runtime_checkable
class ModelClient(ModelSlots, Protocol):
    """A process's model: the slots, and `turn()` for one turn's budget."""

    def turn(self, *, seconds: float | None = None, tokens: int | None = None) -> ModelTurn: ...
