"""finalize: the summary by code (`vitrina.task.summary`: the findings with numbers from the
step tables and the method used, what failed and why, the steps, the files), written to
summary.md in the task's output folder."""

from __future__ import annotations

from pathlib import Path

from langgraph.runtime import Runtime

from vitrina.task.context import TaskContext
from vitrina.task.messages import text
from vitrina.task.state import Step, TaskState
from vitrina.task.summary import summary_markdown
from vitrina.trace import Trace


def _nothing_done(plan: list[Step], lang: str) -> str | None:
    """Why the task cannot be `done` when none of its data steps (every tool but the file
    writer) was done, e.g. all skipped; None when at least one ran."""
    if not plan or any(s.status == "done" and s.tool != "write_file" for s in plan):
        return None
    return text(
        "nothing_done",
        lang,
        skipped=sum(s.status == "skipped" for s in plan),
        pending=sum(s.status in ("pending", "in_progress") for s in plan),
        total=len(plan),
    )


def finalize(state: TaskState, runtime: Runtime[TaskContext]) -> dict:
    ctx = runtime.context
    trace = Trace("finalize")
    status = state.get("status", "done")
    closing = state.get("summary") if status == "stopped" else None
    if state.get("halt") == "global_bound":
        closing = text(
            "global_bound", state.get("lang", "ru"), limit=ctx.limits.max_total_iterations
        )
        trace.error(
            "global iteration bound reached: task stopped", limit=ctx.limits.max_total_iterations
        )
        status = "failed"
    elif status not in ("stopped", "failed"):
        status = "done"
        closing = _nothing_done(state.get("plan") or [], state.get("lang", "ru"))
        if closing is not None:  # a task is never done with no data step run
            trace.error("no data step ran: the task is failed, not done", reason=closing)
            status = "failed"
    summary = summary_markdown({**state, "status": status}, closing, ctx.catalog, trace)
    path = Path(state["out_dir"]) / "summary.md"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(summary, encoding="utf-8")
        files = [str(path)]
    except OSError as exc:
        trace.suppressed("summary.md not written", error=str(exc))
        files = []
    trace.branch("task finished", status=status)
    return {"summary": summary, "status": status, "files": files, "trace": trace.events}
