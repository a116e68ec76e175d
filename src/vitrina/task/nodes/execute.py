"""execute: one bounded iteration of the current step.

With a model: one request with the tools; tool calls run (at most N per reply) and the loop
continues; a text reply is the step's report; a reply announcing calls without any gets one
corrective message. Without a model: the step's own tool runs once. The per-step iteration
limit ends the step with a clear error (the user then redoes, skips or stops).

Every tool output goes through the result checks (`vitrina.task.checks`) before the step
can end: an output that fails one becomes a failed output with the reason, so a step with
an empty comparison, a short series or a forecast of the wrong months cannot be approved.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.runtime import Runtime

from vitrina.task.checks import check_output
from vitrina.task.context import TaskContext
from vitrina.task.horizon import read_horizon
from vitrina.task.messages import text
from vitrina.task.state import Step, TaskState, ToolOutput, replace_step
from vitrina.task.tools import ToolEnv
from vitrina.trace import Trace

TOOL_RESULT_CHARS = 4_000


def _env(state: TaskState, ctx: TaskContext, step: Step, trace: Trace, seq: int) -> ToolEnv:
    folder = Path(state["out_dir"]) / f"step-{step.n}"
    folder.mkdir(parents=True, exist_ok=True)
    return ToolEnv(
        ctx=ctx,
        plan=state["plan"],
        step=step,
        folder=folder,
        lang=state.get("lang", "ru"),
        trace=trace,
        seq=seq,
    )


def _run_tool(
    state: TaskState,
    ctx: TaskContext,
    step: Step,
    name: str | None,
    args: dict,
    trace: Trace,
    seq: int,
) -> ToolOutput:
    lang = state.get("lang", "ru")
    if not name:
        return ToolOutput(
            tool="none", ok=False, error=text("no_tool", lang), summary=text("no_tool", lang)
        )
    tool = ctx.tools.get(name)
    if tool is None:
        trace.rejected("unknown tool requested", tool=name)
        return ToolOutput(
            tool=name,
            ok=False,
            error=text("unknown_tool", lang, tool=name),
            summary=text("unknown_tool", lang, tool=name),
        )
    out = _asked(tool.call(_env(state, ctx, step, trace, seq), args), state, ctx, step)
    problem = check_output(out, lang)
    if problem:
        trace.rejected("step result failed a check", step=step.n, tool=name, problem=problem)
        return out.model_copy(update={"ok": False, "error": problem})
    return out


def _asked(out: ToolOutput, state: TaskState, ctx: TaskContext, step: Step) -> ToolOutput:
    """A forecast is judged against the asked horizon: the step's planned one, else the
    request's words, whatever horizon the call itself passed."""
    if out.tool != "analyze" or out.meta.get("kind") != "forecast" or out.meta.get("asked"):
        return out
    asked = step.args.get("target")
    if asked is None:
        horizon = read_horizon(state.get("request", ""), ctx.today)
        asked = horizon.model_dump(mode="json") if horizon.words else None
    return out.model_copy(update={"meta": {**out.meta, "asked": asked}}) if asked else out


def _report(step: Step, outputs: list[ToolOutput], lang: str) -> str:
    done = [o for o in outputs if o.ok]
    what = "; ".join(o.summary.strip().rstrip(".") for o in done if o.summary)[:1500] or ", ".join(
        o.tool for o in done
    )
    return text("step_ok", lang, n=step.n, what=what)


def _rules(state: TaskState, ctx: TaskContext, index: int, trace: Trace) -> dict:
    step = state["plan"][index]
    name, args = step.tool, dict(step.args)
    if not name:  # a step the user typed: the ask pipeline answers its title
        name, args = "ask", {"question": step.title, **args}  # a clarification's choice kept
        trace.branch("step without a tool: asked as a question", step=step.n)
    out = _run_tool(state, ctx, step, name, args, trace, 1)
    error = None if out.ok else out.error
    report = _report(step, [out], state.get("lang", "ru")) if out.ok else None
    if report and step.note:
        report = f"{step.note} {report}"
    plan = replace_step(
        state["plan"], index, outputs=[*step.outputs, out], report=report, error=error
    )
    return {
        "plan": plan,
        "step_done": True,
        "iterations": state.get("iterations", 0) + 1,
        "total_iterations": state.get("total_iterations", 0) + 1,
        "files": out.files,
        "trace": trace.events,
    }


def _unresolved(step: Step) -> str | None:
    """A failed check that no later successful output of the same tool made good."""
    for n, out in enumerate(step.outputs):
        if (
            not out.ok
            and out.error
            and not any(o.ok and o.tool == out.tool for o in step.outputs[n + 1 :])
        ):
            return out.error if out.data else None  # only checked outputs carry their data
    return None


def _no_calls(reply: Any) -> bool:
    message = reply.message
    return (
        message is not None
        and not message.tool_calls
        and message.response_metadata.get("finish_reason") == "tool_calls"
    )


def _model(state: TaskState, ctx: TaskContext, index: int, trace: Trace) -> dict:
    step = state["plan"][index]
    lang = state.get("lang", "ru")
    scratch = list(state.get("scratch") or [])
    counts = {
        "iterations": state.get("iterations", 0) + 1,
        "total_iterations": state.get("total_iterations", 0) + 1,
    }
    reply = ctx.llm.text(
        "task_executor", scratch, tools=[t.spec() for t in ctx.tools.values()], trace=trace
    )
    if _no_calls(reply):
        if state.get("corrections", 0) < ctx.limits.max_corrections:
            trace.suppressed("tool calls announced but none sent: one corrective message")
            scratch += [AIMessage(reply.text or ""), HumanMessage(text("correction", lang))]
            return {
                "scratch": scratch,
                "corrections": state.get("corrections", 0) + 1,
                **counts,
                "trace": trace.events,
            }
        trace.error("tool calls announced but none sent, again: step failed")
        plan = replace_step(state["plan"], index, error=text("no_calls", lang))
        return {"plan": plan, "step_done": True, **counts, "trace": trace.events}
    if reply.error is not None or reply.message is None:
        # the model failed (down, out of budget, empty): the step runs as it would with --no-llm
        trace.suppressed(
            "executor model failed: the step runs by rules", error=reply.error, step=step.n
        )
        return _rules(state, ctx, index, trace)
    calls = list(reply.message.tool_calls)
    if not calls:
        problem = _unresolved(step)
        plan = replace_step(state["plan"], index, report=reply.text.strip()[:4000], error=problem)
        trace.branch("step report written", step=step.n)
        return {
            "plan": plan,
            "step_done": True,
            "scratch": [*scratch, reply.message],
            **counts,
            "trace": trace.events,
        }
    limit = ctx.limits.max_tool_calls_per_reply
    scratch.append(reply.message)
    outputs, files = list(step.outputs), []
    for n, call in enumerate(calls):
        if n >= limit:
            trace.rejected(
                "tool call beyond the per-reply limit not run", tool=call["name"], limit=limit
            )
            scratch.append(
                ToolMessage(
                    f"not run: at most {limit} tool calls per reply", tool_call_id=call["id"]
                )
            )
            continue
        current = replace_step(state["plan"], index, outputs=outputs)[index]
        out = _run_tool(
            {**state, "plan": replace_step(state["plan"], index, outputs=outputs)},
            ctx,
            current,
            call["name"],
            call.get("args") or {},
            trace,
            len(outputs) + 1,
        )
        outputs.append(out)
        files += out.files
        body = out.model_dump_json(
            include={"ok", "summary", "columns", "row_count", "preview", "error"}
        )
        scratch.append(ToolMessage(body[:TOOL_RESULT_CHARS], tool_call_id=call["id"]))
    plan = replace_step(state["plan"], index, outputs=outputs)
    return {"plan": plan, "scratch": scratch, **counts, "files": files, "trace": trace.events}


def execute(state: TaskState, runtime: Runtime[TaskContext]) -> dict:
    ctx = runtime.context
    trace = Trace("execute")
    index = state["current"]
    assert index is not None, "execute runs only with a current step"
    if state.get("iterations", 0) >= ctx.limits.max_step_iterations:
        limit = ctx.limits.max_step_iterations
        trace.error(
            "loop guard: step iteration limit reached", step=state["plan"][index].n, limit=limit
        )
        plan = replace_step(
            state["plan"], index, error=text("loop_guard", state.get("lang", "ru"), limit=limit)
        )
        return {"plan": plan, "step_done": True, "trace": trace.events}
    update = (
        _rules(state, ctx, index, trace) if ctx.llm is None else _model(state, ctx, index, trace)
    )
    if update.get("total_iterations", 0) >= ctx.limits.max_total_iterations and not update.get(
        "step_done"
    ):
        trace.error("global iteration bound reached", limit=ctx.limits.max_total_iterations)
        update["halt"] = "global_bound"
    return update
