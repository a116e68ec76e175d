"""Deterministic SQL checks (`vitrina.query.run.checks_step`): dictionary values, the
period, GROUP BY, the time grain."""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.state import AskState
from vitrina.query.run import RunOptions, checks_step
from vitrina.trace import Trace


def check_sql(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("check_sql")
    ctx = runtime.context
    if not ctx.options.deterministic_checks:
        trace.branch("deterministic checks switched off for this run")
        return {"trace": trace.events}
    plan = state.get("plan")  # None on the model path: the question's own period and grain apply
    options = RunOptions(
        row_cap=ctx.settings.row_cap,
        period=plan.period if plan else state.get("period"),
        grain=plan.grain if plan else state.get("grain"),
    )
    problems = checks_step(state["sql"] or "", ctx.catalog, ctx.dialect, options, trace)
    if problems:
        return {
            "sql_error": "checks: " + "; ".join(p.message for p in problems),
            "trace": trace.events,
        }
    return {"trace": trace.events}
