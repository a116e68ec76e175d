"""The build graph: gate -> pre-wake -> coordinator | role -> post-comment guard -> pre-wake.

    gate ──questions──> END (the build is blocked with them)
     └──passed──> prewake ──wake──> worker ──> post_comment_guard ──reask/continue──> worker
       │  └─other──> coordinator ──> prewake             └─coordinator──> prewake
       └─done/blocked/limit──> END

State is small (the build id, the step, the retry counters): the board is the durable
state (docs/decisions/050-board-is-the-state.md), so the graph runs without a checkpointer
and a restarted run reads where it stands from the board.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from vitrina.team.context import BuildContext
from vitrina.team.gate import MAX_ROUNDS, check_brief, warehouse_span
from vitrina.team.messages import text
from vitrina.team.prewake import NextStep, plan_next_step
from vitrina.team.steps import execute
from vitrina.team.worker import post_comment_guard, wake
from vitrina.trace import Trace, TraceEvent


class BuildState(TypedDict, total=False):
    build_id: int
    step: dict[str, Any] | None  # the NextStep of this round
    steps: int  # pre-wake rounds in this run (bounded by Limits.max_steps)
    attempt: int  # block retries of the current comment (bounded by Limits.max_block_retries)
    turns: int  # IN-PROGRESS turns that kept control (bounded by Limits.max_turns_per_task)
    comment_id: int | None
    reminder: str | None
    route: str
    status: str  # running, done, blocked, limit
    trace: Annotated[list[TraceEvent], operator.add]


def gate(state: BuildState, runtime: Runtime[BuildContext]) -> dict[str, Any]:
    """The manager gate (gate.py) once per build, before the coordinator opens any task."""
    ctx = runtime.context
    build = ctx.refresh()
    if build.status in ("done", "blocked") or build.result.get("gate", {}).get("passed"):
        return {"status": build.status}
    if ctx.store.tasks(build.id):  # started before the gate existed, or resumed: let it run
        return {"status": "running"}
    trace = Trace("gate")
    span = warehouse_span(ctx.warehouse, trace)
    result = check_brief(ctx.brief, ctx.catalog, ctx.lang, today=ctx.today, span=span)
    if result.passed:
        ctx.store.update_build(
            build.id, result={**build.result, "gate": {"passed": True, "notes": result.notes}}
        )
        trace.branch("gate passed: the cycle starts", notes=len(result.notes))
        return {"status": "running", "trace": trace.events}
    earlier = [
        b
        for b in ctx.store.builds(limit=1000)
        if b.id != build.id
        and b.brief_path == build.brief_path
        and b.result.get("gate", {}).get("questions")
    ]
    rounds = len(earlier) + 1
    questions = result.questions
    if rounds > MAX_ROUNDS:
        trace.error(
            "[GATE-005] still unclear after the gate's rounds of questions", rounds=MAX_ROUNDS
        )
        reason = text("gate_person", ctx.lang, rounds=MAX_ROUNDS)
    else:
        trace.branch("gate: questions for the requester", questions=len(questions), round=rounds)
        reason = text("gate_questions", ctx.lang, count=len(questions))
    ctx.store.update_build(
        build.id,
        status="blocked",
        result={
            **build.result,
            "gate": {"passed": False, "round": rounds, "questions": questions},
            "blocked": {
                "task": None,
                "reason": reason,
                "questions": "\n".join(questions),
                "person": rounds > MAX_ROUNDS,  # handed to a person: the CLI says so
            },
        },
    )
    ctx.emit("gate", questions=questions, round=rounds)
    return {"status": "blocked", "trace": trace.events}


def after_gate(state: BuildState) -> Literal["prewake", "__end__"]:
    return "__end__" if state.get("status") in ("done", "blocked") else "prewake"


def prewake(state: BuildState, runtime: Runtime[BuildContext]) -> dict[str, Any]:
    ctx = runtime.context
    build = ctx.refresh()
    steps = state.get("steps", 0) + 1
    trace = Trace("prewake")
    if build.status in ("done", "blocked"):
        return {"status": build.status, "steps": steps}
    if steps > ctx.limits.max_steps:
        trace.error("step limit reached: the build stops", max_steps=ctx.limits.max_steps)
        ctx.store.update_build(
            build.id,
            status="blocked",
            result={
                **build.result,
                "blocked": {
                    "reason": f"more than {ctx.limits.max_steps} steps in one run",
                    "task": None,
                    "questions": "",
                },
            },
        )
        return {"status": "limit", "steps": steps, "trace": trace.events}
    step = plan_next_step(ctx.prims, build)
    trace.branch(f"next step: {step.action}", role=step.role, task=step.task_id, reason=step.reason)
    ctx.emit("step", step=step.model_dump(mode="json"))
    return {
        "step": step.model_dump(mode="json"),
        "steps": steps,
        "attempt": 0,
        "turns": 0,
        "reminder": None,
        "status": "running",
        "trace": trace.events,
    }


def coordinator(state: BuildState, runtime: Runtime[BuildContext]) -> dict[str, Any]:
    ctx = runtime.context
    status = execute(ctx, NextStep.model_validate(state["step"]))
    events, ctx.events[:] = list(ctx.events), []
    return {"status": status, "trace": events}


def worker(state: BuildState, runtime: Runtime[BuildContext]) -> dict[str, Any]:
    ctx = runtime.context
    step = NextStep.model_validate(state["step"])
    comment = wake(
        ctx,
        step,
        attempt=state.get("attempt", 0),
        turn=state.get("turns", 0),
        reminder=state.get("reminder"),
    )
    events, ctx.events[:] = list(ctx.events), []
    return {"comment_id": comment.id, "trace": events}


def guard(state: BuildState, runtime: Runtime[BuildContext]) -> dict[str, Any]:
    ctx = runtime.context
    step = NextStep.model_validate(state["step"])
    comment = next(c for c in ctx.store.comments(step.task_id or 0) if c.id == state["comment_id"])
    attempt, turns = state.get("attempt", 0), state.get("turns", 0)
    outcome = post_comment_guard(ctx, step, comment, attempt=attempt)
    update: dict[str, Any] = {"route": outcome.route, "reminder": outcome.reminder}
    if outcome.route == "reask":
        update["attempt"] = attempt + 1
    elif outcome.route == "continue":
        if turns + 1 >= ctx.limits.max_turns_per_task:
            ctx.prims.open_blocker(
                "coordinator",
                step.task_id or 0,
                text(
                    "c_agent_failed",
                    ctx.lang,
                    role=step.role,
                    error=f"still IN-PROGRESS after {ctx.limits.max_turns_per_task} turns",
                ),
            )
            update["route"] = "coordinator"
        else:
            update.update(turns=turns + 1, attempt=0)
    events, ctx.events[:] = list(ctx.events), []
    return {**update, "trace": events}


def after_prewake(state: BuildState) -> Literal["coordinator", "worker", "__end__"]:
    if state.get("status") in ("done", "blocked", "limit"):
        return "__end__"
    return "worker" if (state.get("step") or {}).get("action") == "wake" else "coordinator"


def after_coordinator(state: BuildState) -> Literal["prewake", "__end__"]:
    return "prewake" if state.get("status") == "running" else "__end__"


def after_guard(state: BuildState) -> Literal["worker", "prewake"]:
    return "worker" if state.get("route") in ("reask", "continue") else "prewake"


def build_graph() -> CompiledStateGraph[BuildState, BuildContext, BuildState, BuildState]:
    builder = StateGraph(BuildState, context_schema=BuildContext)
    builder.add_node("gate", gate)
    builder.add_node("prewake", prewake)
    builder.add_node("coordinator", coordinator)
    builder.add_node("worker", worker)
    builder.add_node("post_comment_guard", guard)
    builder.add_edge(START, "gate")
    builder.add_conditional_edges("gate", after_gate)
    builder.add_conditional_edges("prewake", after_prewake)
    builder.add_conditional_edges("coordinator", after_coordinator)
    builder.add_edge("worker", "post_comment_guard")
    builder.add_conditional_edges("post_comment_guard", after_guard)
    return builder.compile()


def recursion_limit(max_steps: int) -> int:
    """Above every loop bound: each step is at most prewake + worker + guard, plus retries."""
    return max_steps * 8 + 20
