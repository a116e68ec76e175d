"""Model path, semantic check: does the SQL answer the question that was asked (with the
topic's checklist)? A failure goes back to generation, bounded."""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.llm import tasks
from vitrina.ask.state import AskState
from vitrina.trace import Trace

MAX_SEMANTIC_ROUNDS = 2


def semantic_check(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("semantic_check")
    ctx = runtime.context
    assert ctx.llm is not None
    if not ctx.options.semantic_check:
        trace.branch("semantic check switched off for this run")
        return {"trace": trace.events}
    topic = ctx.catalog.topics.get(state.get("topic") or "")
    verdict = tasks.semantic_check(
        ctx.llm,
        trace,
        question=state["rewritten"],
        sql=state["sql"] or "",
        checklist=topic.checklist if topic else [],
    )
    rounds = state.get("semantic_attempts", 0) + 1
    if verdict is None or verdict.answers_question:
        return {"semantic_attempts": rounds, "trace": trace.events}
    if rounds >= MAX_SEMANTIC_ROUNDS:
        trace.warning(
            "semantic check still fails after the bound: answering with a note",
            problem=verdict.problem,
        )
        return {
            "semantic_attempts": rounds,
            "trace": trace.events,
            "checks": [*state.get("checks", []), {"check": "semantic", "message": verdict.problem}],
        }
    trace.rejected("the SQL does not answer the question: regenerating", problem=verdict.problem)
    return {
        "semantic_attempts": rounds,
        "sql_error": f"semantic: {verdict.problem}",
        "trace": trace.events,
    }
