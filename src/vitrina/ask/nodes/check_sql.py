"""Deterministic SQL checks: dictionary values, the period, GROUP BY, the time grain."""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.state import AskState
from vitrina.sql.checks import run_checks
from vitrina.trace import Trace


def check_sql(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("check_sql")
    if not runtime.context.options.deterministic_checks:
        trace.branch("deterministic checks switched off for this run")
        return {"trace": trace.events}
    plan = state.get("plan")  # None on the model path: the question's own period and grain apply
    period = plan.period if plan else state.get("period")
    grain = plan.grain if plan else state.get("grain")
    problems = run_checks(
        state["sql"] or "",
        runtime.context.dialect,
        runtime.context.catalog,
        period_start=period.start if period and not period.open_start else None,
        period_end=period.end if period else None,
        grain=grain,
    )
    if problems:
        for p in problems:
            trace.rejected(p.message, check=p.check)
        return {
            "sql_error": "checks: " + "; ".join(p.message for p in problems),
            "trace": trace.events,
        }
    trace.branch("all deterministic checks passed")
    return {"trace": trace.events}
