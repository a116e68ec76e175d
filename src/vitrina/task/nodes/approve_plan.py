"""approve_plan: the user approves, edits or asks to replan (an interrupt); autonomous mode
approves by itself. Nothing before the interrupt has side effects, so a resume re-runs it
safely."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import interrupt

from vitrina.task.context import TaskContext
from vitrina.task.state import Step, TaskState, renumber
from vitrina.trace import Trace

MAX_ASKS = 3  # invalid answers before the plan question gives up (stop)


def plan_payload(state: TaskState, ctx: TaskContext) -> dict[str, Any]:
    rounds_left = state.get("plan_rounds", 0) < ctx.limits.max_plan_rounds
    return {
        "kind": "plan",
        "plan": [s.model_dump(mode="json") for s in state["plan"]],
        "source": state.get("plan_source"),
        "options": ["approve", "edit", "replan", "stop"] if rounds_left else ["approve", "stop"],
    }


def edited_steps(raw: Any, old: list[Step], limit: int) -> list[Step] | None:
    """The user's steps: titles (strings) or dicts {title, tool, args}; None when unusable."""
    if not isinstance(raw, list) or not raw:
        return None
    by_title = {s.title: s for s in old}
    steps = []
    for item in raw[:limit]:
        if isinstance(item, str) and item.strip():
            kept = by_title.get(item.strip())
            steps.append(kept.model_copy() if kept else Step(n=0, title=item.strip()[:300]))
        elif isinstance(item, dict) and str(item.get("title", "")).strip():
            steps.append(
                Step(
                    n=0,
                    title=str(item["title"]).strip()[:300],
                    tool=item.get("tool") or None,
                    args=item.get("args") or {},
                )
            )
        else:
            return None
    return renumber(steps)


def approve_plan(state: TaskState, runtime: Runtime[TaskContext]) -> dict:
    ctx = runtime.context
    trace = Trace("approve_plan")
    if state.get("mode") == "auto":
        trace.branch("autonomous mode: plan approved by the agent")
        return {"decision": {"action": "approve"}, "status": "running", "trace": trace.events}
    payload = plan_payload(state, ctx)
    for _ in range(MAX_ASKS):
        answer = interrupt(payload)
        action = answer.get("action") if isinstance(answer, dict) else None
        if action not in payload["options"]:
            trace.rejected("plan decision not understood", answer=str(answer)[:200])
            continue
        if action == "edit":
            steps = edited_steps(answer.get("steps"), state["plan"], ctx.limits.max_plan_steps)
            if steps is None:
                trace.rejected("edited plan unusable", answer=str(answer)[:200])
                continue
            trace.branch("plan edited by the user", steps=len(steps))
            return {
                "plan": steps,
                "plan_source": "user",
                "plan_rounds": state.get("plan_rounds", 0) + 1,
                "decision": {"action": "edit"},
                "trace": trace.events,
            }
        if action == "replan":
            trace.branch("replan requested", comment=answer.get("comment"))
            return {
                "plan_comment": str(answer.get("comment") or "")[:2000],
                "decision": {"action": "replan"},
                "trace": trace.events,
            }
        trace.branch(
            f"plan {action}d by the user" if action == "approve" else "task stopped at the plan"
        )
        return {
            "decision": {"action": action},
            "status": "running" if action == "approve" else "stopped",
            "trace": trace.events,
        }
    trace.error("no valid plan decision: task stopped", asks=MAX_ASKS)
    return {"decision": {"action": "stop"}, "status": "stopped", "trace": trace.events}
