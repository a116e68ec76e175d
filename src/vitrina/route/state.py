"""The supervisor's state: a TypedDict with reducers; nodes return partial updates.

Everything in it is plain data (str, dict, list, TraceEvent) so any checkpointer can keep it.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

from vitrina.trace import TraceEvent

Intent = Literal["metadata", "report", "ask", "docs", "task", "general"]
Face = Literal["cli", "web", "mcp"]
INTENTS: tuple[str, ...] = ("metadata", "report", "ask", "docs", "task", "general")


class RouteState(TypedDict, total=False):
    # input
    request: str
    face: Face
    thread_id: str
    ask_thread: str | None  # the ask dialog a report's run is kept in (the web chat's own)
    onec_context: dict[str, Any] | None  # the thread's previous 1C plan, for a follow-up
    # supervisor
    lang: str
    target: Literal["warehouse", "onec"]
    intent: Intent
    intent_reason: str
    handoff: bool  # the metadata analyst hands its findings to the report planner
    # metadata analyst (ReAct): one step per node call
    steps: Annotated[list[dict[str, Any]], operator.add]
    facts: dict[str, Any]  # tables, metrics, columns, values, paths, measures found so far
    pending: str | None  # the next action the analyst would take; None when it is done
    stop: str | None  # finished | guard
    # report planner (Tree of Thoughts)
    candidates: list[dict[str, Any]]
    chosen: dict[str, Any] | None
    report: dict[str, Any] | None
    # roles' results
    role: str
    # answered | clarification | refused | failed | found | not_found | unavailable | planned
    status: str
    answer: str | None
    ask: dict[str, Any] | None
    docs: dict[str, Any] | None
    # delivery
    reply: dict[str, Any] | None
    trace: Annotated[list[TraceEvent], operator.add]
