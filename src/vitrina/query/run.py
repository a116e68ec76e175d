"""One way to run a query: the guard, the compile check (EXPLAIN), the deterministic checks,
the read-only execution and the result checks, in that order, each a named step.

Every job that runs SQL over the warehouse goes through these steps: ask's graph calls
them one node at a time (its retries sit between them), the build team's toolbox, task's
`run_sql` and MCP's `run_sql` call `run_checked` for the whole chain. What the guard
enforces (catalog tables and columns, one SELECT, the row cap, the token's row policy,
decision 150) and what the engine enforces (read-only connection, timeout, the byte
budget of decisions 145 and 146) therefore hold on every path; what a caller does with
the result (cells cut for a reply, a preview, a file) stays the caller's.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

from vitrina.query.compiler import column_metas, compile_plan
from vitrina.query.result_checks import Shape, result_flags
from vitrina.sql.checks import CheckProblem, run_checks
from vitrina.sql.guard import GuardResult, guard_with_catalog
from vitrina.trace import Trace
from vitrina.warehouse import QueryResult, Warehouse, WarehouseError

if TYPE_CHECKING:
    from vitrina.catalog import Catalog
    from vitrina.present.columns import ColumnMeta
    from vitrina.query.plan import PeriodRef, QueryPlan
    from vitrina.sql.policy import RowPolicy

Stage = Literal["guard", "compile", "checks", "execute"]
UNREACHABLE = ("connect", "privileged")  # a compile check that failed for these is no SQL fault


@dataclass(frozen=True)
class RunOptions:
    """What to check and under which limits. The guard and the engine's limits always apply."""

    row_cap: int
    policy: RowPolicy | None = None  # the token's row filters, added by the guard
    explain: bool = True  # the compile check on the real engine
    checks: bool = True  # deterministic checks (dictionary values, period, GROUP BY, grain)
    result_checks: bool = True  # empty, all NULL, one row of a breakdown, fan-out, negatives
    period: PeriodRef | None = None  # for the checks; a plan's own period when a plan is run
    grain: str | None = None


@dataclass
class Checked:
    """What happened to one query: the SQL that ran (or was refused), the result, and where
    and why it stopped when it did."""

    sql: str
    result: QueryResult | None = None
    stage: Stage | None = None  # where it stopped; None: it ran
    error: str | None = None  # the reason, in English, for a log or a model
    kind: str | None = None  # the warehouse error's kind (connect, timeout, too_large, ...)
    guard: GuardResult | None = None
    problems: list[CheckProblem] = field(default_factory=list)
    flags: list[dict[str, str]] = field(default_factory=list)  # result checks' findings
    trace: Trace = field(default_factory=lambda: Trace("run_checked"))

    @property
    def ok(self) -> bool:
        return self.stage is None and self.result is not None


def guard_step(
    sql: str, catalog: Catalog, dialect: str, options: RunOptions, trace: Trace
) -> GuardResult:
    """The SQL guard (cannot be switched off): the SQL to run, or the violations."""
    checked = guard_with_catalog(
        sql, catalog, dialect=dialect, row_cap=options.row_cap, policy=options.policy
    )
    if not checked.ok:
        trace.events.extend(checked.events)  # why the guard failed closed, when it did
        trace.rejected("SQL rejected by the guard", violations=[v.rule for v in checked.violations])
    elif checked.policed:
        trace.branch("row policy applied", tables=sorted(checked.policed))
    return checked


def compile_step(sql: str, warehouse: Warehouse, trace: Trace) -> WarehouseError | None:
    """The compile check on the engine (EXPLAIN; DuckDB: DESCRIBE); the error, if any."""
    try:
        with trace.timed(f"compile check ({warehouse.compile_statement})"):
            warehouse.explain(sql)
    except WarehouseError as exc:
        if warehouse.take_reconnected():
            trace.suppressed("warehouse connection lost; reconnected")
        if exc.kind in UNREACHABLE:
            trace.error(
                "warehouse unreachable" if exc.kind == "connect" else "warehouse role refused",
                error=str(exc),
            )
        else:
            trace.rejected("SQL failed the compile check", error=str(exc))
        return exc
    if warehouse.take_reconnected():
        trace.suppressed("warehouse connection lost; reconnected and the read retried once")
    return None


def checks_step(
    sql: str, catalog: Catalog, dialect: str, options: RunOptions, trace: Trace
) -> list[CheckProblem]:
    """Deterministic checks of the SQL against the catalog and the asked period and grain."""
    period = options.period
    problems = run_checks(
        sql,
        dialect,
        catalog,
        period_start=period.start if period and not period.open_start else None,
        period_end=period.end if period else None,
        grain=options.grain,
    )
    for p in problems:
        trace.rejected(p.message, check=p.check)
    if not problems:
        trace.branch("all deterministic checks passed")
    return problems


def execute_step(
    sql: str, warehouse: Warehouse, options: RunOptions, trace: Trace
) -> QueryResult | WarehouseError:
    """The read-only execution (timeout, row cap, byte budget in the warehouse)."""
    try:
        result = warehouse.execute(sql)
    except WarehouseError as exc:
        trace.error("query failed", kind=exc.kind, error=str(exc))
        return exc
    if result.reconnected:
        trace.suppressed("warehouse connection lost; reconnected and the read retried once")
    trace.measurement("query executed", rows=result.row_count, ms=result.elapsed_ms)
    if result.truncated:
        trace.rejected("rows beyond the row cap dropped", row_cap=options.row_cap)
    return result


def _plan_options(plan: QueryPlan, options: RunOptions) -> RunOptions:
    """A plan's own period and grain for the checks, unless the caller gave others."""
    return replace(options, period=options.period or plan.period, grain=options.grain or plan.grain)


def run_checked(
    plan_or_sql: QueryPlan | str,
    catalog: Catalog,
    warehouse: Warehouse,
    options: RunOptions,
    *,
    trace: Trace | None = None,
    metas: list[ColumnMeta] | None = None,
    lang: str = "en",
) -> Checked:
    """Compile a plan (or take SQL), then guard, EXPLAIN, check, execute and check the
    result (its flags' user-facing messages in `lang`); stops at the first step that refuses,
    saying which and why."""
    trace = trace or Trace("run_checked")
    plan = None if isinstance(plan_or_sql, str) else plan_or_sql
    if plan is not None:
        options = _plan_options(plan, options)
        sql = compile_plan(plan, catalog, warehouse.dialect)
        metas = metas if metas is not None else column_metas(plan, catalog)
    else:
        sql = str(plan_or_sql)
    out = _guarded(sql, catalog, warehouse, options, trace)
    if out.stage is not None or out.result is None:
        return out
    if options.result_checks and plan is not None:
        conditioned = bool(plan.comparisons)
        out.flags = result_flags(
            out.result,
            metas or [],
            Shape.of(plan),
            warehouse,
            catalog,
            options,
            trace,
            conditioned,
            lang=lang,
        )
    return out


def _guarded(
    sql: str, catalog: Catalog, warehouse: Warehouse, options: RunOptions, trace: Trace
) -> Checked:
    """The guard, the compile check, the deterministic checks and the execution."""
    dialect = warehouse.dialect
    guard = guard_step(sql, catalog, dialect, options, trace)
    if not guard.ok:
        problems = "; ".join(f"{v.rule}: {v.message_en}" for v in guard.violations)
        return Checked(sql, stage="guard", error=problems, guard=guard, trace=trace)
    checked = Checked(guard.sql, guard=guard, trace=trace)
    if options.explain:
        failed = compile_step(guard.sql, warehouse, trace)
        if failed is not None:
            checked.stage, checked.error, checked.kind = "compile", str(failed), failed.kind
            return checked
    if options.checks:
        checked.problems = checks_step(guard.sql, catalog, dialect, options, trace)
        if checked.problems:
            checked.stage = "checks"
            checked.error = "; ".join(p.message for p in checked.problems)
            return checked
    ran = execute_step(guard.sql, warehouse, options, trace)
    if isinstance(ran, WarehouseError):
        checked.stage, checked.error, checked.kind = "execute", str(ran), ran.kind
        return checked
    checked.result = ran
    return checked
