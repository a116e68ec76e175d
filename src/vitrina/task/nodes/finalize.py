"""finalize: the summary against the plan, by code (every step with its status and result,
the files), written to summary.md in the task's output folder."""

from __future__ import annotations

from pathlib import Path

from langgraph.runtime import Runtime

from vitrina.task.context import TaskContext
from vitrina.task.messages import text
from vitrina.task.state import TaskState
from vitrina.trace import Trace

MARK = {"done": "✓", "skipped": "–", "pending": "·", "in_progress": "!"}


def summary_markdown(state: TaskState, closing: str | None) -> str:
    lang = state.get("lang", "ru")
    plan = state.get("plan") or []
    history = {h["n"]: h for h in state.get("history") or []}
    counts = {k: sum(1 for s in plan if s.status == k) for k in ("done", "skipped", "pending", "in_progress")}
    lines = [f"# {text('summary_title', lang)}", "", f"**{text('summary_request', lang)}:** {state['request']}", "",
             text("summary_counts", lang, done=counts["done"], total=len(plan), skipped=counts["skipped"],
                  pending=counts["pending"] + counts["in_progress"]), ""]
    if closing:
        lines += [closing, ""]
    lines += [f"## {text('summary_plan', lang)}", ""]
    for step in plan:
        status = text(f"status_{step.status}", lang)
        lines.append(f"{step.n}. {MARK[step.status]} **{step.title}** — {status}")
        record = history.get(step.n) or {}
        detail = record.get("report") or record.get("error") or step.error
        if detail:
            lines.append(f"   {detail}")
    files = sorted({f for f in state.get("files") or [] if Path(f).exists()})
    if files:
        lines += ["", f"## {text('summary_files', lang)}", ""]
        lines += [f"- {f}" for f in files]
    return "\n".join(lines) + "\n"


def finalize(state: TaskState, runtime: Runtime[TaskContext]) -> dict:
    ctx = runtime.context
    trace = Trace("finalize")
    status = state.get("status", "done")
    closing = state.get("summary") if status == "stopped" else None
    if state.get("halt") == "global_bound":
        closing = text("global_bound", state.get("lang", "ru"), limit=ctx.limits.max_total_iterations)
        trace.error("global iteration bound reached: task stopped", limit=ctx.limits.max_total_iterations)
        status = "failed"
    elif status not in ("stopped", "failed"):
        status = "done"
    summary = summary_markdown({**state, "status": status}, closing)
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
