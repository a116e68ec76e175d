"""Dataset views planned through the ask planner: one card and one breakdown per KPI.

Each view is written as the short question a person would ask ("Средний чек по регион
app"), read by the ask job's reader and planned by its planner, so the team's numbers come
from the same metric definitions, joins and filters as `vitrina ask`. The plan is then
checked against the scope: the planner must have read exactly the KPI's metric, its
breakdown and its filters, or the view is refused with the reason.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from vitrina.ask import PeriodRef, QueryPlan, build_plan, column_metas, compile_plan, read_question
from vitrina.catalog import Catalog
from vitrina.team.data.scope import Scope, ScopeKpi
from vitrina.trace import Trace

ViewKind = Literal["card", "breakdown"]


class DatasetView(BaseModel):
    id: str
    kpi: str
    kind: ViewKind
    question: str  # what the planner read
    plan: dict[str, Any]  # the QueryPlan
    columns: list[dict[str, Any]]  # ColumnMeta of every column the SQL returns, in order
    sql: str  # the compiled design, in the warehouse's dialect

    def query_plan(self) -> QueryPlan:
        return QueryPlan.model_validate(self.plan)


class ViewProblem(BaseModel):
    view: str
    code: str
    message: str


class DatasetDesign(BaseModel):
    dialect: str
    views: list[DatasetView] = Field(default_factory=list)
    problems: list[ViewProblem] = Field(default_factory=list)


def _question(kpi: ScopeKpi, scope: Scope, kind: ViewKind, catalog: Catalog) -> str:
    metric = catalog.metrics[kpi.metric]
    parts = [metric.name_ru if scope.language == "ru" else metric.name_en]
    if kind == "breakdown" and kpi.by is not None:
        if kpi.by.kind == "grain":
            parts.append(kpi.by.label_ru if scope.language == "ru" else kpi.by.label_en)
        else:
            parts.append(("по " if scope.language == "ru" else "by ") + kpi.by.phrase)
    parts += [f.phrase for f in scope.filters if f.column in kpi.filters]
    return " ".join(parts)


def _mismatch(plan: QueryPlan, kpi: ScopeKpi, scope: Scope, kind: ViewKind) -> str | None:
    """Why the planner's plan is not the scope's view (None when it is)."""
    if plan.metrics != [kpi.metric]:
        return f"the planner read the metrics {plan.metrics}, the scope asks for {kpi.metric}"
    dims = [f"{d.table}.{d.column}" for d in plan.dimensions]
    want_dims = (
        [kpi.by.column] if kind == "breakdown" and kpi.by and kpi.by.kind == "dimension" else []
    )
    if dims != want_dims:
        return (
            f"the planner grouped by {dims or 'nothing'}, the scope asks for "
            f"{want_dims or 'nothing'}"
        )
    want_grain = kpi.by.grain if kind == "breakdown" and kpi.by and kpi.by.kind == "grain" else None
    if plan.grain != want_grain:
        return f"the planner's grain is {plan.grain}, the scope asks for {want_grain}"
    wanted = {(c, tuple(f.values)) for f in scope.filters for c in [f.column] if c in kpi.filters}
    got = {(f"{f.table}.{f.column}", tuple(f.values)) for f in plan.filters}
    if got != wanted:
        return f"the planner filtered {sorted(got)}, the scope asks for {sorted(wanted)}"
    return None


def plan_view(
    kpi: ScopeKpi, scope: Scope, kind: ViewKind, catalog: Catalog, dialect: str, trace: Trace
) -> DatasetView | ViewProblem:
    """One view of a KPI through the planner, or the reason it cannot be planned."""
    view_id = f"{kpi.id}__{kind}"
    question = _question(kpi, scope, kind, catalog)
    metric = catalog.metrics[kpi.metric]
    period = PeriodRef(
        start=scope.period.start,
        end=scope.period.end,
        label_ru=scope.period.label_ru,
        label_en=scope.period.label_en,
    )
    reading = read_question(question, catalog)
    outcome = build_plan(
        reading,
        catalog,
        topic=metric.topic or "",
        lang=scope.language,
        period=period,
        segment=None,
        trace=trace,
    )
    if outcome.plan is None:
        return ViewProblem(view=view_id, code="DSN-001", message=f"'{question}': {outcome.refusal}")
    plan = outcome.plan
    if plan.limit is not None or plan.order == "asc":
        plan = plan.model_copy(update={"limit": None})
    problem = _mismatch(plan, kpi, scope, kind)
    if problem:
        trace.rejected(
            "the planner's reading differs from the scope", view=view_id, problem=problem
        )
        return ViewProblem(view=view_id, code="DSN-001", message=f"'{question}': {problem}")
    metas = column_metas(plan, catalog)
    trace.branch("view planned", view=view_id, question=question, tables=plan.tables)
    return DatasetView(
        id=view_id,
        kpi=kpi.id,
        kind=kind,
        question=question,
        plan=plan.model_dump(mode="json"),
        columns=[m.model_dump(mode="json") for m in metas],
        sql=compile_plan(plan, catalog, dialect),
    )


def design_dataset(scope: Scope, catalog: Catalog, dialect: str, trace: Trace) -> DatasetDesign:
    """Every view of every KPI: the card, and the breakdown when the scope asks for one."""
    design = DatasetDesign(dialect=dialect)
    for kpi in scope.kpis:
        kinds: list[ViewKind] = ["card", "breakdown"] if kpi.by is not None else ["card"]
        for kind in kinds:
            result = plan_view(kpi, scope, kind, catalog, dialect, trace)
            if isinstance(result, ViewProblem):
                design.problems.append(result)
            else:
                design.views.append(result)
    return design
