"""approve_step: the user approves, redoes (with a comment), skips the step or stops the task.
A failed step cannot be approved. Pure before the interrupt: a resume re-runs it safely.

Without a model a redo comment is read into argument changes (`vitrina.task.redo`); one it
cannot read is refused with what the step can take, and the question is asked again."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import interrupt

from vitrina.task.context import TaskContext
from vitrina.task.messages import text
from vitrina.task.redo import parse_redo, what_changes
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
    return {
        "kind": "step",
        "step": step.model_dump(mode="json"),
        "error": step.error,
        "options": step_options(state, ctx),
    }


def rules_redo(
    state: TaskState, ctx: TaskContext, comment: str
) -> tuple[dict[str, Any] | None, str | None]:
    """(the decision's changes, None) or (None, the refusal) for a redo comment without a model."""
    step = state["plan"][state["current"]]  # type: ignore[index]
    lang = state.get("lang", "ru")
    redo = parse_redo(step, comment, ctx.today, lang)
    if redo.changes:
        return {
            "args": redo.args,
            "applied": text("redo_applied", lang, changes=", ".join(redo.changes)),
        }, None
    what = what_changes(step, lang)
    if what is None:  # no comment can change this step's arguments: refused, never rerun as is
        return None, fixed_step_refusal(step, comment, lang)
    return None, text("redo_refused", lang, comment=comment[:200], what=what[0], example=what[1])


def fixed_step_refusal(step: Any, comment: str, lang: str) -> str:
    """Why a comment cannot change this step (an analysis of earlier steps' tables, a file of
    them, user code): the step is not rerun; the user redoes it plainly or changes its source."""
    sources = [n for n in (step.args.get("step"), step.args.get("other_step")) if n is not None]
    why = (
        text("redo_fixed_sources", lang, steps=", ".join(str(n) for n in sources))
        if sources
        else text("redo_fixed_args", lang)
    )
    return text("redo_fixed", lang, comment=comment[:200], title=step.title, why=why)


def approve_step(state: TaskState, runtime: Runtime[TaskContext]) -> dict:
    trace = Trace("approve_step")
    ctx = runtime.context
    payload = step_payload(state, ctx)
    for _ in range(MAX_ASKS):
        answer = interrupt(payload)
        action = answer.get("action") if isinstance(answer, dict) else None
        if action in payload["options"]:
            comment = str(answer.get("comment") or "")[:2000]
            decision: dict[str, Any] = {"action": action, "comment": comment, "by": "user"}
            if action == "redo" and comment.strip() and ctx.llm is None:
                changes, refusal = rules_redo(state, ctx, comment)
                if refusal is not None:
                    trace.rejected(
                        "redo comment not understood without a model", comment=comment[:200]
                    )
                    payload = {**payload, "notice": refusal}
                    continue
                decision.update(changes or {})
            trace.branch(
                f"step decision: {action}",
                step=payload["step"]["n"],
                applied=decision.get("applied"),
            )
            return {"decision": decision, "trace": trace.events}
        trace.rejected("step decision not understood", answer=str(answer)[:200])
    trace.error("no valid step decision: task stopped", asks=MAX_ASKS)
    return {"decision": {"action": "stop", "by": "user"}, "trace": trace.events}
