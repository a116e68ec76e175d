"""Deterministic SQL checks (`vitrina.query.run.checks_step`): dictionary values, the
period, GROUP BY, the time grain; on the model path also the checks of meaning
(`vitrina.query.meaning`): the model's SQL held to the rules' reading of the question."""

from __future__ import annotations

from dataclasses import replace

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.state import AskState
from vitrina.query.meaning import check_meaning
from vitrina.query.run import RunOptions, checks_step
from vitrina.trace import Trace


def check_sql(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("check_sql")
    ctx = runtime.context
    if not ctx.options.deterministic_checks:
        trace.branch("deterministic checks switched off for this run")
        return {"trace": trace.events}
    # the model path: the rules' reading (its period runs to the last complete day), else the
    # question's own period and grain
    plan = state.get("plan") or state.get("reading_plan")
    options = RunOptions(
        row_cap=ctx.settings.row_cap,
        period=plan.period if plan else state.get("period"),
        grain=plan.grain if plan else state.get("grain"),
    )
    problems = checks_step(state["sql"] or "", ctx.catalog, ctx.dialect, options, trace)
    period = options.period
    if problems and state.get("mode") == "llm" and period and period.end > ctx.today:
        # "в 2026 году" asked in November: a model may end the period today (no data after)
        today = replace(options, period=period.model_copy(update={"end": ctx.today}))
        if not checks_step(state["sql"] or "", ctx.catalog, ctx.dialect, today, trace):
            problems = []
    if problems:
        return {
            "sql_error": "checks: " + "; ".join(p.message for p in problems),
            "trace": trace.events,
        }
    if state.get("mode") == "llm" and ctx.options.meaning_checks:
        return _meaning(state, ctx, trace)
    return {"trace": trace.events}


def _meaning(state: AskState, ctx: AskContext, trace: Trace) -> dict:
    """Decided differences refuse the SQL (the model gets them back, bounded; the last
    attempt's refusal names them); undecided ones go to the answer as caveats."""
    problems = check_meaning(
        state["sql"] or "",
        ctx.dialect,
        ctx.catalog,
        state.get("reading_plan"),
        unexplained=state.get("unexplained") or [],
        lang=state["lang"],
        today=ctx.today,
    )
    decided = [p for p in problems if p.decided]
    if decided:
        for p in decided:
            trace.rejected("the model's SQL does not say what the question asks", check=p.check)
        return {
            "sql_error": "meaning: " + "; ".join(p.message for p in decided),
            "trace": trace.events,
        }
    caveats = [{"check": "meaning", "message": p.message} for p in problems]
    for p in problems:
        trace.warning("answered with a caveat the catalog cannot settle", check=p.check)
    if not problems:
        trace.branch("the model's SQL says what the rules read")
        return {"trace": trace.events}
    known = [c for c in state.get("checks", []) if c.get("check") != "meaning"]
    return {"checks": [*known, *caveats], "trace": trace.events}
