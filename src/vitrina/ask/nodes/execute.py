"""Execution: read-only connection, statement timeout, row cap (all in the Warehouse)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.state import AskState
from vitrina.present.infer_meta import infer_metas
from vitrina.trace import Trace
from vitrina.warehouse import WarehouseError


def execute(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("execute")
    try:
        result = runtime.context.warehouse.execute(state["sql"] or "")
    except WarehouseError as exc:
        trace.error("query failed", kind=exc.kind, error=str(exc))
        return {"sql_error": f"{exc.kind}: {exc}", "result": None, "trace": trace.events}
    if result.reconnected:
        trace.suppressed("warehouse connection lost; reconnected and the read retried once")
    trace.measurement("query executed", rows=result.row_count, ms=result.elapsed_ms)
    update: dict = {}
    if state.get("mode") == "llm":
        update["columns_meta"] = infer_metas(
            result, runtime.context.catalog, state.get("llm_tables") or [], state.get("grain")
        )
    if result.truncated:
        trace.rejected("rows beyond the row cap dropped", row_cap=runtime.context.settings.row_cap)
    return {**update, "result": result, "trace": trace.events}
