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
from vitrina.task.state import Step, TaskState
from vitrina.trace import Trace

MAX_ASKS = 3


def clarification(step: Step) -> dict[str, Any] | None:
    """The clarification the step's last output waits for (its question could not be read
    without a choice of subject or segment), or None."""
    last = step.outputs[-1] if step.outputs else None
    found = last.meta.get("clarification") if last is not None and not last.ok else None
    return found if isinstance(found, dict) and found.get("options") else None


def step_options(state: TaskState, ctx: TaskContext) -> list[str]:
    step = state["plan"][state["current"]]  # type: ignore[index]
    options = [] if step.error else ["approve"]
    if step.attempts < ctx.limits.max_redos:
        if clarification(step) is not None:
            options.append("clarify")  # answered with one of its options: the step reruns
        options.append("redo")
    return [*options, "skip", "stop"]


def step_payload(state: TaskState, ctx: TaskContext) -> dict[str, Any]:
    step = state["plan"][state["current"]]  # type: ignore[index]
    options = step_options(state, ctx)
    payload: dict[str, Any] = {
        "kind": "step",
        "step": step.model_dump(mode="json"),
        "error": step.error,
        "options": options,
    }
    found = clarification(step)
    if found is not None and "clarify" in options:
        payload["clarification"] = found
    return payload


def clarified(step: Step, choice: Any, lang: str) -> dict[str, Any] | None:
    """The redo a clarification's answer makes: the step's arguments with the chosen subject
    (or segment) added, or None when `choice` is not one of its options."""
    found = clarification(step)
    options = {str(o.get("id")): o for o in (found or {}).get("options") or []}
    option = options.get(str(choice))
    if found is None or option is None:
        return None
    key = "segment" if found.get("kind") == "segment" else "topic"
    args = {**step.args, key: option["id"]}
    if step.tool in (None, "ask") and not args.get("question") and not _derived(args):
        args["question"] = (step.outputs[-1].meta.get("question") or step.title)[:2000]
    label = str(option.get("label") or option["id"])
    return {"args": args, "applied": text("clarify_applied", lang, choice=label), "choice": label}


def _derived(args: dict[str, Any]) -> bool:
    return args.get("shift_from_step") is not None or args.get("series_from_step") is not None


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
        if action == "clarify" and action in payload["options"]:
            step = state["plan"][state["current"]]  # type: ignore[index]
            redo = clarified(step, answer.get("choice"), state.get("lang", "ru"))
            if redo is None:
                trace.rejected(
                    "clarification choice not among the options", answer=str(answer)[:200]
                )
                continue
            trace.branch("step clarified: rerun", step=step.n, args=redo["args"])
            return {"decision": {"action": "redo", "by": "user", **redo}, "trace": trace.events}
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
