"""`run_sql`: one read-only SELECT through `vitrina.query.run_checked` (the guard: tables,
columns, row cap, the token's row policy; the engine's timeout and byte budget)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from vitrina.query import RunOptions, run_checked
from vitrina.task.state import ToolOutput
from vitrina.task.tools.base import Tool, ToolEnv, ToolError


class SqlArgs(BaseModel):
    sql: str = Field(
        min_length=1, max_length=20_000, description="One SELECT over the catalog's tables."
    )


def run_sql(env: ToolEnv, args: SqlArgs) -> ToolOutput:
    ctx = env.ctx
    if ctx.warehouse is None or ctx.catalog is None:
        raise ToolError("no warehouse is configured")
    options = RunOptions(
        row_cap=ctx.settings.row_cap,
        policy=ctx.policy,
        explain=False,  # the engine's own error says what is wrong, as before
        checks=False,  # a model's SQL step has no asked period or grain to check against
        result_checks=False,  # the task's own result checks run on the step's table
    )
    checked = run_checked(args.sql, ctx.catalog, ctx.warehouse, options, trace=env.trace)
    if checked.stage == "guard":
        raise ToolError(f"SQL rejected by the guard: {checked.error}")
    result = checked.result
    if result is None:  # over the byte cap: the engine's own words say what to do
        too_large = checked.kind == "too_large"
        raise ToolError(
            str(checked.error) if too_large else f"warehouse {checked.kind} error: {checked.error}"
        )
    summary = f"{result.row_count} rows; columns: {', '.join(result.columns)}"
    meta: dict = {"sql": checked.sql}
    if ctx.policy:
        summary += f"; row policy applied: {ctx.policy.describe()}"
        meta["row_policy"] = ctx.policy.describe()
    return env.table_output("run_sql", "sql", result.columns, result.rows, summary, meta=meta)


TOOL = Tool(
    "run_sql",
    "Run one read-only SELECT over the warehouse (checked by the SQL guard); "
    "the result becomes this step's table.",
    run_sql,
    SqlArgs,
)
