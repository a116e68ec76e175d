"""compress: apply the step decision to the plan and write the step into the compressed
history (report, tool results, tables by file), dropping the step's raw messages."""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.task.context import TaskContext
from vitrina.task.messages import text
from vitrina.task.state import TaskState, replace_step
from vitrina.trace import Trace


def compress(state: TaskState, runtime: Runtime[TaskContext]) -> dict:
    ctx = runtime.context
    trace = Trace("compress")
    index = state["current"]
    assert index is not None, "compress runs only with a current step"
    step = state["plan"][index]
    decision = state.get("decision") or {"action": "stop"}
    action = decision.get("action")
    lang = state.get("lang", "ru")
    if action == "redo" and step.attempts >= ctx.limits.max_redos:
        trace.warning(text("redo_limit", "en", limit=ctx.limits.max_redos), step=step.n)
        action = "skip"
    update: dict = {"scratch": [], "current": None, "decision": None, "step_done": False}
    if action == "redo":
        plan = replace_step(
            state["plan"],
            index,
            status="pending",
            attempts=step.attempts + 1,
            comment=decision.get("comment") or None,
            args=decision.get("args") or step.args,
            note=decision.get("applied"),
        )
        trace.branch(
            "step to be redone",
            step=step.n,
            comment=decision.get("comment"),
            args=decision.get("args"),
        )
        return {**update, "plan": plan, "trace": trace.events}
    status = "done" if action == "approve" else "skipped" if action == "skip" else "in_progress"
    if action == "stop":
        status = "skipped" if step.error else "done" if step.report else "pending"
    plan = replace_step(state["plan"], index, status=status)
    table = step.last_table()
    record = {
        "n": step.n,
        "title": step.title,
        "status": status,
        "report": step.report,
        "error": step.error,
        "tools": [o.tool for o in step.outputs],
        "files": [f for o in step.outputs for f in o.files],
        "data": table.data if table else None,
        "columns": table.columns if table else [],
        "preview": table.preview if table else [],
    }
    trace.measurement(
        "step compressed",
        step=step.n,
        status=status,
        outputs=len(step.outputs),
        messages_dropped=len(state.get("scratch") or []),
    )
    if action == "stop":
        update["status"] = "stopped"
        update["summary"] = text("stopped", lang)
    return {**update, "plan": plan, "history": [record], "trace": trace.events}
