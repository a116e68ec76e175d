"""Result checks: empty, all NULL, one row where a breakdown was asked, rows multiplied by a
join on an incomplete key, negative values of metrics that cannot be negative."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.partial_period import last_day_reader, partial_checks
from vitrina.ask.plan import Join
from vitrina.ask.state import AskState
from vitrina.sql.guard import guard_with_catalog
from vitrina.trace import Trace
from vitrina.warehouse import Warehouse, WarehouseError


def key_is_unique(warehouse: Warehouse, table: str, column: str) -> bool:
    """Whether `column` identifies rows of `table` (cached on the warehouse object)."""
    cache_key = ("unique_key", table, column)
    if cache_key not in warehouse.cache:
        rows = warehouse.execute(f"SELECT COUNT(*) - COUNT(DISTINCT {column}) FROM {table}").rows
        warehouse.cache[cache_key] = rows[0][0] == 0
    return warehouse.cache[cache_key]


def data_range(
    warehouse: Warehouse, table: str, column: str, trace: Trace, *, ctx: AskContext | None = None
) -> tuple[date, date] | None:
    """First and last date that a table holds, to tell the user where data exists; with a
    row policy in `ctx`, of the rows the policy lets the asker read."""
    sql = f"SELECT MIN({column}), MAX({column}) FROM {table}"
    if ctx is not None and ctx.policy:
        checked = guard_with_catalog(
            sql, ctx.catalog, dialect=ctx.dialect, row_cap=1, policy=ctx.policy
        )
        if not checked.ok:
            trace.suppressed("data range not read: the guard refused it", table=table)
            return None
        sql = checked.sql
    try:
        low, high = warehouse.execute(sql).rows[0]
    except WarehouseError as exc:
        trace.suppressed("data range not read", table=table, error=str(exc))
        return None
    if low is None or high is None:
        return None
    return (low.date() if isinstance(low, datetime) else low), (
        high.date() if isinstance(high, datetime) else high
    )


def _fan_out(joins: list[Join], warehouse: Warehouse, trace: Trace) -> list[str]:
    problems = []
    for join in joins:
        try:
            unique = key_is_unique(warehouse, join.right_table, join.right_column)
        except WarehouseError as exc:
            trace.suppressed(
                "join key uniqueness not checked", table=join.right_table, error=str(exc)
            )
            continue
        if not unique:
            problems.append(
                f"{join.right_table}.{join.right_column} is not unique: the join may multiply rows"
            )
    return problems


@dataclass
class _Shape:
    """What the checks need to know about the query, from the rule plan or the model path."""

    base_table: str
    date_column: str | None
    breakdown: bool
    joins: list[Join]


def _shape(state: AskState, ctx: AskContext) -> _Shape:
    plan = state.get("plan")
    if plan is not None:
        return _Shape(plan.date_owner, plan.date_column, plan.breakdown, plan.joins)
    tables = state.get("llm_tables") or []
    base = tables[0] if tables else ""
    table = ctx.catalog.tables.get(base)
    breakdown = bool(state.get("grain")) or any(
        m.role.value in ("dimension", "period") for m in state.get("columns_meta", [])
    )
    return _Shape(
        base, table.default_date if table else None, breakdown, state["context"].get("joins", [])
    )


def _iso(value: object) -> str:
    """A date as text (SQLite returns dates as text already)."""
    iso = getattr(value, "isoformat", None)
    return iso() if callable(iso) else str(value)


def _partial(state: AskState, ctx: AskContext, trace: Trace) -> list[str]:
    """A compared period the data end inside, in the question's language (see partial_period)."""
    plan = state.get("plan")
    if plan is None or plan.compared is None:
        return []
    last_day = last_day_reader(ctx.warehouse, ctx.catalog, trace, ctx.policy)
    return [c["message"] for c in partial_checks(plan, last_day, state["lang"])]


def _joins_and_periods(
    shape: _Shape, state: AskState, ctx: AskContext, trace: Trace
) -> list[tuple[str, str]]:
    """(check, message): joins that may multiply rows, compared periods the data end inside."""
    out = [("join_fan_out", m) for m in _fan_out(shape.joins, ctx.warehouse, trace)]
    return out + [("partial_period", m) for m in _partial(state, ctx, trace)]


def check_result(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("check_result")
    if not runtime.context.options.result_checks:
        trace.branch("result checks switched off for this run")
        return {"trace": trace.events}
    result = state["result"]
    assert result is not None
    shape = _shape(state, runtime.context)
    checks: list[dict[str, str]] = list(state.get("checks") or [])

    def flag(check: str, message: str) -> None:
        checks.append({"check": check, "message": message})
        trace.warning(message, check=check)

    metrics = [m for m in state.get("columns_meta", []) if m.role.value == "metric"]
    if not result.rows:
        flag("empty", "the query returned no rows")
    elif all(all(v is None for v in row) for row in result.rows) or all(
        all(row[result.columns.index(m.name)] is None for row in result.rows) for m in metrics
    ):
        flag("all_null", "every metric value is NULL")
    conditioned = bool(state.get("plan") and state["plan"].comparisons)
    if (
        checks
        and checks[-1]["check"] in ("empty", "all_null")
        and shape.date_column
        and not conditioned  # "more than 100000 payments": the condition may empty it
    ):
        span = data_range(
            runtime.context.warehouse,
            shape.base_table,
            shape.date_column,
            trace,
            ctx=runtime.context,
        )
        if span:
            checks[-1].update(data_from=_iso(span[0]), data_to=_iso(span[1]))
    # one row of a breakdown is what a row policy on that dimension leaves (its notice says so)
    if shape.breakdown and len(result.rows) == 1 and not runtime.context.policy:
        flag("single_row", "a breakdown was asked for but the result has one row")
    for check, message in _joins_and_periods(shape, state, runtime.context, trace):
        flag(check, message)
    for meta in metrics:
        if meta.non_negative:
            idx = result.columns.index(meta.name)
            if any(row[idx] is not None and row[idx] < 0 for row in result.rows):
                flag("negative", f"{meta.name} has negative values, which it cannot have")
    if not checks:
        trace.branch("result checks passed")
    return {"checks": checks, "trace": trace.events}
