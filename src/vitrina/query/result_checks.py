"""Result checks: empty, all NULL, one row where a breakdown was asked, rows multiplied by a
join on an incomplete key, negative values of metrics that cannot be negative, and a compared
period that the data end inside (`partial_period`: every job that runs a plan of two periods,
ask's graph, route's reports, task's steps, gets the flag from here, one rule and one message).

Each finding is a flag (`{"check": ..., "message": ...}`) for the answer to show, never a
refusal: the numbers are what the warehouse holds, and the flag says why they may surprise.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from vitrina.query.partial_period import last_day_reader, partial_checks
from vitrina.sql.guard import guard_with_catalog
from vitrina.trace import Trace
from vitrina.warehouse import QueryResult, Warehouse, WarehouseError

if TYPE_CHECKING:
    from vitrina.catalog import Catalog
    from vitrina.present.columns import ColumnMeta
    from vitrina.query.plan import Join, QueryPlan
    from vitrina.query.run import RunOptions
    from vitrina.sql.policy import RowPolicy


@dataclass
class Shape:
    """What the checks need to know about the query, from a plan or the model path."""

    base_table: str
    date_column: str | None
    breakdown: bool
    joins: list[Join]
    plan: QueryPlan | None = None  # the rule plan, when there is one: its two periods

    @classmethod
    def of(cls, plan: QueryPlan) -> Shape:
        """The shape of a rule plan (the plan kept: its compared period is checked too)."""
        return cls(plan.date_owner, plan.date_column, plan.breakdown, plan.joins, plan)


def key_is_unique(warehouse: Warehouse, table: str, column: str) -> bool:
    """Whether `column` identifies rows of `table` (cached on the warehouse object)."""
    cache_key = ("unique_key", table, column)
    if cache_key not in warehouse.cache:
        rows = warehouse.execute(f"SELECT COUNT(*) - COUNT(DISTINCT {column}) FROM {table}").rows
        warehouse.cache[cache_key] = rows[0][0] == 0
    unique: bool = warehouse.cache[cache_key]
    return unique


def _as_date(value: Any) -> date:
    return value.date() if isinstance(value, datetime) else value


def data_range(
    warehouse: Warehouse,
    table: str,
    column: str,
    trace: Trace,
    *,
    catalog: Catalog | None = None,
    dialect: str | None = None,
    policy: RowPolicy | None = None,
) -> tuple[date, date] | None:
    """First and last date that a table holds, to tell the user where data exists; with a
    row policy, of the rows the policy lets the asker read."""
    sql = f"SELECT MIN({column}), MAX({column}) FROM {table}"
    if policy and catalog is not None:
        checked = guard_with_catalog(
            sql, catalog, dialect=dialect or warehouse.dialect, row_cap=1, policy=policy
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
    return _as_date(low), _as_date(high)


def fan_out(joins: list[Join], warehouse: Warehouse, trace: Trace) -> list[str]:
    """The joins whose key on the joined side is not unique (they may multiply rows)."""
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


def _iso(value: object) -> str:
    """A date as text (SQLite returns dates as text already)."""
    iso = getattr(value, "isoformat", None)
    return iso() if callable(iso) else str(value)


def _all_null(result: QueryResult, metrics: list[ColumnMeta]) -> bool:
    table = result.arrow
    if table is not None:  # a large result: Arrow's null counts
        nulls = [table.column(i).null_count == table.num_rows for i in range(table.num_columns)]
        return all(nulls) or all(nulls[result.columns.index(m.name)] for m in metrics)
    return all(all(v is None for v in row) for row in result.rows) or all(
        all(row[result.columns.index(m.name)] is None for row in result.rows) for m in metrics
    )


def _has_negative(result: QueryResult, idx: int) -> bool:
    table = result.arrow
    if table is not None and table.num_rows:  # a large result: Arrow's minimum
        import pyarrow as pa
        import pyarrow.compute as pc

        column = table.column(idx)
        if pa.types.is_integer(column.type) or pa.types.is_decimal(column.type):
            low = pc.min(column).as_py()
            return low is not None and low < 0
    return any(row[idx] is not None and row[idx] < 0 for row in result.rows)


def _negatives(result: QueryResult, metrics: list[ColumnMeta]) -> list[str]:
    out = []
    for meta in metrics:
        if meta.non_negative:
            idx = result.columns.index(meta.name)
            if _has_negative(result, idx):
                out.append(f"{meta.name} has negative values, which it cannot have")
    return out


def _no_data(result: QueryResult, metrics: list[ColumnMeta]) -> list[tuple[str, str]]:
    """The flag of a result with nothing to say: no rows, or every metric NULL."""
    if not result.rows:
        return [("empty", "the query returned no rows")]
    if _all_null(result, metrics):
        return [("all_null", "every metric value is NULL")]
    return []


def _add_data_range(
    checks: list[dict[str, str]],
    shape: Shape,
    warehouse: Warehouse,
    catalog: Catalog,
    options: RunOptions,
    trace: Trace,
    dialect: str | None,
) -> None:
    """When the last flag says there is no data, the dates the base table holds go with it
    (`data_from`, `data_to`), so the answer can say which span has data."""
    if not checks or checks[-1]["check"] not in ("empty", "all_null") or not shape.date_column:
        return
    span = data_range(
        warehouse,
        shape.base_table,
        shape.date_column,
        trace,
        catalog=catalog,
        dialect=dialect,
        policy=options.policy,
    )
    if span:
        checks[-1].update(data_from=_iso(span[0]), data_to=_iso(span[1]))


def result_flags(
    result: QueryResult,
    metas: list[ColumnMeta],
    shape: Shape,
    warehouse: Warehouse,
    catalog: Catalog,
    options: RunOptions,
    trace: Trace,
    conditioned: bool = False,
    *,
    dialect: str | None = None,
    flags: list[dict[str, str]] | None = None,
    lang: str = "en",
) -> list[dict[str, str]]:
    """Every finding of the result checks, appended to `flags` (a state's earlier ones);
    messages of the partial-period flag in `lang` (the question's)."""
    checks: list[dict[str, str]] = list(flags or [])

    def flag(check: str, message: str) -> None:
        checks.append({"check": check, "message": message})
        trace.warning(message, check=check)

    metrics = [m for m in metas if m.role.value == "metric"]
    for check, message in _no_data(result, metrics):
        flag(check, message)
    if not conditioned:  # "more than 100000 payments": the condition may empty it
        _add_data_range(checks, shape, warehouse, catalog, options, trace, dialect)
    # one row of a breakdown is what a row policy on that dimension leaves (its notice says so)
    if shape.breakdown and len(result.rows) == 1 and not options.policy:
        flag("single_row", "a breakdown was asked for but the result has one row")
    for message in fan_out(shape.joins, warehouse, trace):
        flag("join_fan_out", message)
    for message in _negatives(result, metrics):
        flag("negative", message)
    for found in compared_partial(shape, warehouse, catalog, options, trace, lang):
        flag(found["check"], found["message"])
    if not checks:
        trace.branch("result checks passed")
    return checks


def compared_partial(
    shape: Shape,
    warehouse: Warehouse,
    catalog: Catalog,
    options: RunOptions,
    trace: Trace,
    lang: str,
) -> list[dict[str, str]]:
    """`partial_period` flags of a plan of two periods: each of them that the data end inside
    ("2026 vs 2025" while the data end in May 2026 compares five months with twelve)."""
    plan = shape.plan
    if plan is None or plan.compared is None:
        return []
    last_day = last_day_reader(warehouse, catalog, trace, options.policy)
    return partial_checks(plan, last_day, lang)
