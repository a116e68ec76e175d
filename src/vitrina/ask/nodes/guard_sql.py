"""SQL guard (cannot be switched off) and the compile check on the real engine (EXPLAIN;
DuckDB: DESCRIBE)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.state import AskState
from vitrina.sql.guard import guard_with_catalog
from vitrina.trace import Trace
from vitrina.warehouse import WarehouseError


def guard_sql(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("guard_sql")
    ctx = runtime.context
    result = guard_with_catalog(
        state["sql"] or "",
        ctx.catalog,
        dialect=ctx.dialect,
        row_cap=ctx.settings.row_cap,
        policy=ctx.policy,
    )
    if not result.ok:
        message = "; ".join(v.message_en for v in result.violations)
        trace.events.extend(result.events)  # why the guard failed closed, when it did
        trace.rejected("SQL rejected by the guard", violations=[v.rule for v in result.violations])
        return {"sql_error": f"guard: {message}", "trace": trace.events}
    try:
        with trace.timed(f"compile check ({ctx.warehouse.compile_statement})"):
            ctx.warehouse.explain(result.sql)
    except WarehouseError as exc:
        if ctx.warehouse.take_reconnected():
            trace.suppressed("warehouse connection lost; reconnected")
        if exc.kind in ("connect", "privileged"):
            trace.error(
                "warehouse unreachable" if exc.kind == "connect" else "warehouse role refused",
                error=str(exc),
            )
            return {"sql_error": f"{exc.kind}: {exc}", "sql": result.sql, "trace": trace.events}
        trace.rejected("SQL failed the compile check", error=str(exc))
        return {"sql_error": f"compile: {exc}", "sql": result.sql, "trace": trace.events}
    if result.policed:
        trace.branch("row policy applied", tables=sorted(result.policed))
    if ctx.warehouse.take_reconnected():
        trace.suppressed("warehouse connection lost; reconnected and the read retried once")
    return {"sql": result.sql, "sql_error": None, "trace": trace.events}
