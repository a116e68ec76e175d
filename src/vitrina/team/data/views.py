"""Dataset views planned through the query core: one card and one breakdown per KPI.

Each view is a typed spec (`vitrina.query.QuerySpec`: the KPI's metric id, its breakdown
column or grain, its filters, the period) planned by `plan_from_spec`, the planner `vitrina
ask` uses, so the team's numbers come from the same metric definitions, dates (through
joins too), joins, segment filters and derived metrics as an answer. No sentence is
written for the question reader to parse back. The plan is checked to hold exactly the
KPI's metric, breakdown and filters, or the view is refused with the reason.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from vitrina.catalog import Catalog
from vitrina.query import (
    PeriodRef,
    QueryPlan,
    QuerySpec,
    SpecFilter,
    column_metas,
    compile_plan,
    plan_from_spec,
)
from vitrina.team.data.scope import Scope, ScopeKpi
from vitrina.trace import Trace

ViewKind = Literal["card", "breakdown"]


class DatasetView(BaseModel):
    id: str
    kpi: str
    kind: ViewKind
    question: str  # the spec in one line (the views' list shows it)
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


def view_spec(kpi: ScopeKpi, scope: Scope, kind: ViewKind) -> QuerySpec:
    """The view as a typed spec: the KPI's metric, its breakdown and its filters, by id."""
    by = kpi.by if kind == "breakdown" else None
    return QuerySpec(
        metrics=[kpi.metric],
        breakdowns=[by.column] if by and by.kind == "dimension" and by.column else [],
        grain=by.grain if by and by.kind == "grain" else None,
        filters=[
            SpecFilter(column=f.column, values=f.values)
            for f in scope.filters
            if f.column in kpi.filters
        ],
        period=PeriodRef(
            start=scope.period.start,
            end=scope.period.end,
            label_ru=scope.period.label_ru,
            label_en=scope.period.label_en,
        ),
        lang=scope.language,
    )


def _described(spec: QuerySpec) -> str:
    """The spec in one line, for the design notes and the views' list (not read by anyone)."""
    parts = [*spec.metrics, *(f"by {b}" for b in spec.breakdowns)]
    parts += [f"by {spec.grain}"] if spec.grain else []
    parts += [f"{f.column} in {', '.join(f.values)}" for f in spec.filters]
    return "; ".join(parts)


def plan_view(
    kpi: ScopeKpi, scope: Scope, kind: ViewKind, catalog: Catalog, dialect: str, trace: Trace
) -> DatasetView | ViewProblem:
    """One view of a KPI through the planner's structured entry, or why it cannot be planned."""
    view_id = f"{kpi.id}__{kind}"
    spec = view_spec(kpi, scope, kind)
    outcome = plan_from_spec(spec, catalog, trace)
    if outcome.plan is None:
        title = kpi.title
        trace.rejected("the view cannot be planned", view=view_id, reason=outcome.refusal)
        return ViewProblem(
            view=view_id,
            code="DSN-001",
            message=f"KPI '{title}' ({kind}) cannot be planned from the catalog: {outcome.refusal}",
        )
    plan = outcome.plan
    metas = column_metas(plan, catalog)
    trace.branch("view planned", view=view_id, spec=_described(spec), tables=plan.tables)
    return DatasetView(
        id=view_id,
        kpi=kpi.id,
        kind=kind,
        question=_described(spec),
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
