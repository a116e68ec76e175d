"""Execution (`vitrina.query.run.execute_step`): read-only connection, statement timeout,
row cap and byte budget (all in the Warehouse)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.state import AskState
from vitrina.present.infer_meta import infer_metas
from vitrina.query.run import RunOptions, execute_step
from vitrina.trace import Trace
from vitrina.warehouse import WarehouseError


def execute(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("execute")
    ctx = runtime.context
    options = RunOptions(row_cap=ctx.settings.row_cap, policy=ctx.policy)
    result = execute_step(state["sql"] or "", ctx.warehouse, options, trace)
    if isinstance(result, WarehouseError):
        return {"sql_error": f"{result.kind}: {result}", "result": None, "trace": trace.events}
    update: dict = {}
    if state.get("mode") == "llm":
        update["columns_meta"] = infer_metas(
            result, ctx.catalog, state.get("llm_tables") or [], state.get("grain")
        )
    return {**update, "result": result, "trace": trace.events}
