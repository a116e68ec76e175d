"""planner: a plan from the model (typed, one repair) or from the rule templates: with no
model, and when the model fails, the same template plan (`--no-llm` gives). Plans are
capped in length; the source is recorded."""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.task.context import TaskContext
from vitrina.task.messages import text
from vitrina.task.plan import template_plan
from vitrina.task.plan.template import first_step_plan
from vitrina.task.state import PlanDraft, Step, TaskState
from vitrina.trace import Trace


def _from_rules(state: TaskState, ctx: TaskContext, trace: Trace) -> list[Step]:
    comment = state.get("plan_comment")
    wording = f"{state['request']}. {comment}" if comment else state["request"]
    lang = state.get("lang", "ru")
    steps = template_plan(wording, ctx.limits.max_plan_steps, lang, ctx.today)
    if ctx.run_plan is None:  # nothing here runs a plan: step 1 is asked as its words
        trace.branch("step 1 asked as its words: no plan runner (run_plan) in this context")
        return steps
    return first_step_plan(steps, wording, ctx.catalog, ctx.today, lang, trace)


def _from_model(
    state: TaskState, ctx: TaskContext, trace: Trace
) -> tuple[list[Step], str, list[dict]]:
    prompt = ctx.prompts.get("planner", trace)
    tools = [{"name": t.name, "description": t.description} for t in ctx.tools.values()]
    system = prompt.render(
        max_steps=ctx.limits.max_plan_steps,
        tools=tools,
        lang=state.get("lang", "ru"),
        comment=state.get("plan_comment"),
        previous=state.get("plan") or [],
    )
    reply = ctx.llm.structured(
        "task_planner", [("system", system), ("human", state["request"])], PlanDraft, trace=trace
    )
    if reply.value is None:
        trace.suppressed("planner model failed: the rule template plan", error=reply.error)
        return _from_rules(state, ctx, trace), "template", [prompt.record()]
    steps = [
        Step(n=i, title=d.title, tool=d.tool if d.tool in ctx.tools else None, args=d.args)
        for i, d in enumerate(reply.value.steps, start=1)
    ]
    return steps, "llm_repaired" if reply.repaired else "llm", [prompt.record()]


def planner(state: TaskState, runtime: Runtime[TaskContext]) -> dict:
    ctx = runtime.context
    trace = Trace("planner")
    if ctx.llm is not None:
        steps, source, prompts = _from_model(state, ctx, trace)
    else:
        steps, source, prompts = _from_rules(state, ctx, trace), "template", []
        trace.branch("no model: plan from the rule templates", steps=len(steps))
    limit = ctx.limits.max_plan_steps
    if len(steps) > limit:
        trace.rejected(
            text("plan_capped", "en", limit=limit), dropped=[s.title for s in steps[limit:]]
        )
        steps = steps[:limit]
    trace.branch("plan made", source=source, steps=len(steps))
    return {
        "plan": steps,
        "plan_source": source,
        "status": "awaiting_plan",
        "current": None,
        "plan_rounds": state.get("plan_rounds", 0) + (1 if state.get("plan") else 0),
        "prompts": prompts,
        "trace": trace.events,
    }
