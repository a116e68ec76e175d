"""Model path, plan feasibility: can the chosen tables answer at all? If not, the notes go
back to table selection (bounded); after that an honest refusal with what is missing."""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.llm import tasks
from vitrina.ask.state import AskState
from vitrina.trace import Trace

MAX_FEASIBILITY_ROUNDS = 2


def check_feasibility(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("check_feasibility")
    ctx = runtime.context
    assert ctx.llm is not None
    verdict = tasks.check_feasibility(
        ctx.llm, trace, question=state["rewritten"], schema=state["context"]["full_schema_text"]
    )
    rounds = state.get("feasibility_attempts", 0) + 1
    if verdict is None or verdict.feasible:
        return {"feasibility_attempts": rounds, "table_notes": None, "trace": trace.events}
    if rounds < MAX_FEASIBILITY_ROUNDS:
        trace.branch(
            "tables cannot answer: back to table selection", missing=verdict.missing, round=rounds
        )
        return {
            "feasibility_attempts": rounds,
            "table_notes": verdict.missing,
            "trace": trace.events,
        }
    trace.branch("still not answerable after the bound: refusing", missing=verdict.missing)
    reason = (
        f"В хранилище не нашлось данных, чтобы ответить: {verdict.missing}"
        if state["lang"] == "ru"
        else f"The warehouse holds no data to answer this: {verdict.missing}"
    )
    return {
        "feasibility_attempts": rounds,
        "status": "refused",
        "reason": reason,
        "trace": trace.events,
    }
