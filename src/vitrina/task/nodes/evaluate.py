"""evaluate (autonomous mode): the agent judges the step instead of the user, with the same
bounds. A model says accept / redo / skip; without one (or when it fails) the rules do: a
step with a result is accepted, a failed one is redone while redos remain, then skipped. A
step whose result failed a check (`vitrina.task.checks`) is never accepted, and by rules it
is skipped at once: the same arguments would give the same result."""

from __future__ import annotations

from typing import Literal

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from vitrina.task.context import TaskContext
from vitrina.task.state import TaskState
from vitrina.trace import Trace


class Verdict(BaseModel):
    verdict: Literal["accept", "redo", "skip"]
    comment: str = Field("", max_length=1000)


def evaluate(state: TaskState, runtime: Runtime[TaskContext]) -> dict:
    ctx = runtime.context
    trace = Trace("evaluate")
    step = state["plan"][state["current"]]  # type: ignore[index]
    checked = any(not o.ok and o.data for o in step.outputs)  # a result that failed a check
    can_redo = step.attempts < ctx.limits.max_redos
    action = "approve" if not step.error else ("redo" if can_redo and not checked else "skip")
    comment, prompts = step.error or "", []
    if ctx.llm is not None:
        prompt = ctx.prompts.get("evaluator", trace)
        prompts = [prompt.record()]
        reply = ctx.llm.structured(
            "task_evaluator",
            [("system", prompt.render(step=step)), ("human", step.title)],
            Verdict,
            trace=trace,
        )
        if reply.value is None:
            trace.suppressed(
                "evaluator output unusable: rule verdict", error=reply.error, verdict=action
            )
        else:
            wanted = {"accept": "approve", "redo": "redo", "skip": "skip"}[reply.value.verdict]
            if wanted == "approve" and step.error:
                trace.rejected(
                    "evaluator accepted a failed step: rule verdict instead", verdict=action
                )
            elif wanted == "redo" and not can_redo:
                trace.rejected(
                    "evaluator asked for a redo beyond the limit: skipped",
                    limit=ctx.limits.max_redos,
                )
                action = "skip"
            else:
                action, comment = wanted, reply.value.comment
    trace.branch(f"evaluator: {action}", step=step.n, comment=comment[:300])
    return {
        "decision": {"action": action, "comment": comment, "by": "evaluator"},
        "prompts": prompts,
        "trace": trace.events,
    }
