"""`run_sql`: one read-only SELECT through the ask job's guard (tables, columns, row cap)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from vitrina.sql.guard import guard_with_catalog
from vitrina.task.state import ToolOutput
from vitrina.task.tools.base import Tool, ToolEnv, ToolError
from vitrina.warehouse import WarehouseError


class SqlArgs(BaseModel):
    sql: str = Field(
        min_length=1, max_length=20_000, description="One SELECT over the catalog's tables."
    )


def run_sql(env: ToolEnv, args: SqlArgs) -> ToolOutput:
    ctx = env.ctx
    if ctx.warehouse is None or ctx.catalog is None:
        raise ToolError("no warehouse is configured")
    checked = guard_with_catalog(
        args.sql,
        ctx.catalog,
        dialect=ctx.warehouse.dialect,
        row_cap=ctx.settings.row_cap,
        policy=ctx.policy,
    )
    if not checked.ok:
        env.trace.rejected("SQL rejected by the guard", rules=[v.rule for v in checked.violations])
        raise ToolError(
            "SQL rejected by the guard: "
            + "; ".join(f"{v.rule}: {v.message_en}" for v in checked.violations)
        )
    try:
        result = ctx.warehouse.execute(checked.sql)
    except WarehouseError as exc:  # over the byte cap: the engine's own words say what to do
        too_large = exc.kind == "too_large"
        raise ToolError(str(exc) if too_large else f"warehouse {exc.kind} error: {exc}") from None
    if result.reconnected:
        env.trace.suppressed("warehouse connection lost; reconnected and the read retried once")
    if result.truncated:
        env.trace.rejected("rows beyond the row cap dropped", row_cap=ctx.settings.row_cap)
    env.trace.measurement("sql executed", rows=result.row_count, ms=result.elapsed_ms)
    summary = f"{result.row_count} rows; columns: {', '.join(result.columns)}"
    meta: dict = {"sql": checked.sql}
    if ctx.policy:
        summary += f"; row policy applied: {ctx.policy.describe()}"
        meta["row_policy"] = ctx.policy.describe()
        env.trace.branch("row policy applied", tables=sorted(checked.policed))
    return env.table_output("run_sql", "sql", result.columns, result.rows, summary, meta=meta)


TOOL = Tool(
    "run_sql",
    "Run one read-only SELECT over the warehouse (checked by the SQL guard); "
    "the result becomes this step's table.",
    run_sql,
    SqlArgs,
)
