"""Result checks (`vitrina.query.result_checks`): empty, all NULL, one row where a breakdown
was asked, rows multiplied by a join on an incomplete key, negative values of metrics that
cannot be negative, a compared period the data end inside. The node only says what the query
looked like (rule plan or model)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.state import AskState
from vitrina.query.result_checks import Shape, result_flags
from vitrina.query.run import RunOptions
from vitrina.trace import Trace


def _shape(state: AskState, ctx: AskContext) -> Shape:
    plan = state.get("plan")
    if plan is not None:
        return Shape.of(plan)
    tables = state.get("llm_tables") or []
    base = tables[0] if tables else ""
    table = ctx.catalog.tables.get(base)
    breakdown = bool(state.get("grain")) or any(
        m.role.value in ("dimension", "period") for m in state.get("columns_meta", [])
    )
    return Shape(
        base, table.default_date if table else None, breakdown, state["context"].get("joins", [])
    )


def check_result(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("check_result")
    ctx = runtime.context
    if not ctx.options.result_checks:
        trace.branch("result checks switched off for this run")
        return {"trace": trace.events}
    result = state["result"]
    assert result is not None
    checks = result_flags(
        result,
        state.get("columns_meta", []),
        _shape(state, ctx),
        ctx.warehouse,
        ctx.catalog,
        RunOptions(row_cap=ctx.settings.row_cap, policy=ctx.policy),
        trace,
        conditioned=bool(state.get("plan") and state["plan"].comparisons),
        dialect=ctx.dialect,
        flags=state.get("checks") or [],
        lang=state["lang"],
    )
    return {"checks": checks, "trace": trace.events}
