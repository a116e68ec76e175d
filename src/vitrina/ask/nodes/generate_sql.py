"""SQL generation. Rules: compile the plan with sqlglot; a retry after an error switches to
the portable form of conditional aggregates. LLM slot: a model may write the SQL from the
pruned context, with the previous error fed back; the rule SQL stays the fallback."""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.ask.compiler import column_metas, compile_plan
from vitrina.ask.context import AskContext
from vitrina.ask.state import AskState
from vitrina.trace import Trace


def generate_sql(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("generate_sql")
    ctx = runtime.context
    plan = state["plan"]
    assert plan is not None
    attempt = state.get("sql_attempts", 0) + 1
    style = "filter" if attempt == 1 else "case"
    if state.get("sql_error"):
        trace.branch("retry after an error", attempt=attempt, error=state["sql_error"], style=style)
    with trace.timed("compiled", attempt=attempt):
        sql = compile_plan(plan, ctx.catalog, ctx.dialect, filter_style=style)
    return {"sql": sql, "sql_attempts": attempt, "sql_source": "rules", "sql_error": None,
            "columns_meta": column_metas(plan, ctx.catalog), "trace": trace.events}
