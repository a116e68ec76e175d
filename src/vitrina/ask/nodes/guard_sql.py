"""SQL guard (cannot be switched off) and the compile check on the real engine (EXPLAIN;
DuckDB: DESCRIBE): the first two steps of `vitrina.query.run`."""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.state import AskState
from vitrina.query.run import UNREACHABLE, RunOptions, compile_step, guard_step
from vitrina.trace import Trace


def guard_sql(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("guard_sql")
    ctx = runtime.context
    options = RunOptions(row_cap=ctx.settings.row_cap, policy=ctx.policy)
    result = guard_step(state["sql"] or "", ctx.catalog, ctx.dialect, options, trace)
    if not result.ok:
        message = "; ".join(v.message_en for v in result.violations)
        return {"sql_error": f"guard: {message}", "trace": trace.events}
    failed = compile_step(result.sql, ctx.warehouse, trace)
    if failed is not None:
        kind = failed.kind if failed.kind in UNREACHABLE else "compile"
        return {"sql_error": f"{kind}: {failed}", "sql": result.sql, "trace": trace.events}
    return {"sql": result.sql, "sql_error": None, "trace": trace.events}
