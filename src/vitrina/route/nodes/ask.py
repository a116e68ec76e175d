"""The ask role: a data question goes to the ask job (AskService) as it is."""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.route.context import RouteContext
from vitrina.route.state import RouteState
from vitrina.trace import Trace


def ask(state: RouteState, runtime: Runtime[RouteContext]) -> dict:
    trace = Trace("ask")
    ctx = runtime.context
    if ctx.ask is None:
        trace.error("no ask service configured")
        return {
            "role": "ask",
            "status": "failed",
            "answer": "ask service is not configured",
            "trace": trace.events,
        }
    result = ctx.ask(state.get("request", ""), state.get("thread_id"))
    trace.branch("answered by the ask job", status=result.status, run_id=result.run_id)
    return {
        "role": "ask",
        "status": result.status,
        "answer": result.answer,
        "ask": result.model_dump(mode="json"),
        "trace": trace.events,
    }
