"""approve_step: the user approves, redoes (with a comment), skips the step or stops the task.
A failed step cannot be approved. Pure before the interrupt: a resume re-runs it safely."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import interrupt

from vitrina.task.context import TaskContext
from vitrina.task.state import TaskState
from vitrina.trace import Trace

MAX_ASKS = 3


def step_options(state: TaskState, ctx: TaskContext) -> list[str]:
    step = state["plan"][state["current"]]  # type: ignore[index]
    options = [] if step.error else ["approve"]
    if step.attempts < ctx.limits.max_redos:
        options.append("redo")
    return [*options, "skip", "stop"]


def step_payload(state: TaskState, ctx: TaskContext) -> dict[str, Any]:
    step = state["plan"][state["current"]]  # type: ignore[index]
    return {"kind": "step", "step": step.model_dump(mode="json"), "error": step.error,
            "options": step_options(state, ctx)}


def approve_step(state: TaskState, runtime: Runtime[TaskContext]) -> dict:
    trace = Trace("approve_step")
    payload = step_payload(state, runtime.context)
    for _ in range(MAX_ASKS):
        answer = interrupt(payload)
        action = answer.get("action") if isinstance(answer, dict) else None
        if action in payload["options"]:
            trace.branch(f"step decision: {action}", step=payload["step"]["n"])
            return {"decision": {"action": action, "comment": str(answer.get("comment") or "")[:2000],
                                 "by": "user"}, "trace": trace.events}
        trace.rejected("step decision not understood", answer=str(answer)[:200])
    trace.error("no valid step decision: task stopped", asks=MAX_ASKS)
    return {"decision": {"action": "stop", "by": "user"}, "trace": trace.events}
