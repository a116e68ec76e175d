"""The task role: multi-step tasks belong to the task job. Until it exists the request gets
a clear "not available yet" answer; `RouteContext.task_runner` is where the job plugs in."""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.route.context import RouteContext
from vitrina.route.messages import text
from vitrina.route.state import RouteState
from vitrina.trace import Trace


def task(state: RouteState, runtime: Runtime[RouteContext]) -> dict:
    trace = Trace("task")
    runner = runtime.context.task_runner
    if runner is None:
        trace.branch("task job not available: general answer")
        return {
            "role": "task",
            "status": "unavailable",
            "answer": text("task_unavailable", state.get("lang", "ru")),
            "trace": trace.events,
        }
    result = runner(state.get("request", ""))
    trace.branch("handed to the task job", status=result.get("status"))
    return {
        "role": "task",
        "status": result.get("status", "answered"),
        "answer": result.get("answer"),
        "trace": trace.events,
    }
