"""inject_step: take the first pending step, mark it in progress and tell the executor about
this step only (the compressed history of earlier steps, never their raw messages)."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from vitrina.task.context import TaskContext
from vitrina.task.state import TaskState, replace_step
from vitrina.trace import Trace


def next_pending(state: TaskState) -> int | None:
    return next(
        (
            i
            for i, s in enumerate(state.get("plan") or [])
            if s.status in ("pending", "in_progress")
        ),
        None,
    )


def executor_messages(
    state: TaskState, ctx: TaskContext, index: int, trace: Trace
) -> tuple[list[Any], list[dict]]:
    if ctx.llm is None:
        return [], []
    prompt = ctx.prompts.get("executor", trace)
    step = state["plan"][index]
    system = prompt.render(
        lang=state.get("lang", "ru"),
        request=state["request"],
        step=step,
        history=state.get("history") or [],
    )
    return [("system", system), ("human", step.title)], [prompt.record()]


def inject_step(state: TaskState, runtime: Runtime[TaskContext]) -> dict:
    trace = Trace("inject_step")
    index = next_pending(state)
    if index is None:  # the router does not send us here without a pending step
        trace.branch("no pending step")
        return {"current": None, "trace": trace.events}
    if state.get("total_iterations", 0) >= runtime.context.limits.max_total_iterations:
        trace.error(
            "global iteration bound reached before the step",
            limit=runtime.context.limits.max_total_iterations,
        )
        return {"halt": "global_bound", "current": None, "trace": trace.events}
    step = state["plan"][index]
    scratch, prompts = executor_messages(state, runtime.context, index, trace)
    trace.branch("step started", step=step.n, title=step.title, attempt=step.attempts + 1)
    plan = replace_step(
        state["plan"], index, status="in_progress", outputs=[], report=None, error=None
    )
    return {
        "plan": plan,
        "current": index,
        "scratch": scratch,
        "iterations": 0,
        "corrections": 0,
        "step_done": False,
        "decision": None,
        "status": "running",
        "prompts": prompts,
        "trace": trace.events,
    }
