"""Data steward by rules: every KPI checked against an independent query of its definition.

Reviewing the scope: each KPI's reference value comes from a SELECT written from the
metric's expression, filter and date column (semi-joins for filters, never the planner);
a KPI with no value for the period is sent back; caveats (distinct counts, rows with no
value of a breakdown's dimension) go into the data notes, which the designer shows.
Reviewing the built data: each card equals its reference value; each additive breakdown
adds up to its card, or the gap is the one the data notes state.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

from sqlglot import exp

from vitrina.present.numbers import to_decimal
from vitrina.team.agents.base import Finding, WorkItem
from vitrina.team.agents.rules.common import design_of, finish_review, scope_of, stored_result
from vitrina.team.data.independent import independent_sql
from vitrina.team.data.scope import Scope, ScopeKpi
from vitrina.team.toolbox import Toolbox, ToolError

TOLERANCE = Decimal(
    "1e-9"
)  # relative: averages and ratios computed two ways may differ in the last digits


def same(a: Decimal | None, b: Decimal | None) -> bool:
    if a is None or b is None:
        return a is b
    scale = max(abs(a), abs(b), Decimal(1))
    return abs(a - b) <= scale * TOLERANCE


def _filters(scope: Scope, kpi: ScopeKpi) -> list[tuple[str, list[str]]]:
    return [(f.column, f.values) for f in scope.filters if f.column in kpi.filters]


def _missing_key_share(tools: Toolbox, scope: Scope, kpi: ScopeKpi) -> tuple[str, float] | None:
    """(key column, share of fact rows whose join key toward the breakdown's table is NULL)."""
    if kpi.by is None or kpi.by.kind != "dimension" or not kpi.by.column:
        return None
    catalog = tools.catalog()
    path = catalog.join_path(kpi.table, kpi.by.column.rsplit(".", 1)[0])
    if not path:
        return None
    first = path[0]
    key = first.left_column if first.left_table == kpi.table else first.right_column
    if not kpi.date_column:
        return None
    if kpi.date_table:  # dated through a join: the fact rows of the period need that join
        tools.trace.branch("missing-key share not measured: the date is on a joined table")
        return None
    after_end = (scope.period.end + timedelta(days=1)).isoformat()
    query = (
        exp.select(
            exp.alias_(exp.Count(this=exp.Star()), "total_rows"),
            exp.alias_(exp.Count(this=exp.column(key)), "keyed_rows"),
        )
        .from_(exp.to_table(kpi.table))
        .where(
            exp.and_(
                exp.column(kpi.date_column)
                >= exp.cast(exp.Literal.string(scope.period.start.isoformat()), "DATE"),
                exp.column(kpi.date_column) < exp.cast(exp.Literal.string(after_end), "DATE"),
            )
        )
    )
    result, _ = tools.run_query(query.sql(dialect=tools.ctx.warehouse.dialect))
    total, keyed = (int(v or 0) for v in result.rows[0])
    return (key, (total - keyed) / total) if total and keyed < total else None


class DataStewardRules:
    def act(self, work: WorkItem, tools: Toolbox) -> str:
        spec = tools.read_spec()
        if work.step.id == "scoping":
            return self.review_scope(work, tools, spec)
        return self.review_data(work, tools, spec)

    def review_scope(self, work: WorkItem, tools: Toolbox, spec: dict[str, Any]) -> str:
        scope = scope_of(spec)
        catalog = tools.catalog()
        findings: list[Finding] = []
        notes: dict[str, Any] = {"references": {}, "caveats": {}}
        for kpi in scope.kpis:
            metric = catalog.metrics[kpi.metric]
            sql = independent_sql(
                metric,
                catalog,
                start=scope.period.start,
                end=scope.period.end,
                filters=_filters(scope, kpi),
                dialect=tools.ctx.warehouse.dialect,
            )
            try:
                result, ran = tools.run_query(sql)
            except ToolError as exc:
                findings.append(
                    Finding("KPI-001", "error", f"KPI {kpi.id}: the independent query fails: {exc}")
                )
                continue
            value = to_decimal(result.rows[0][0]) if result.rows else None
            if value is None:
                findings.append(
                    Finding(
                        "KPI-001",
                        "error",
                        f"KPI {kpi.id} ({kpi.title}) has no value for "
                        f"{scope.period.label_en}: widen the period or drop the KPI",
                    )
                )
                continue
            notes["references"][kpi.id] = {"metric": kpi.metric, "value": str(value), "sql": ran}
            caveats = []
            if not kpi.additive and kpi.by is not None:
                caveats.append(
                    {
                        "code": "KPI-004",
                        "ru": "Значения разбивки не складываются в итог: итог посчитан "
                        "отдельным запросом за период.",
                        "en": "The breakdown does not add up to the "
                        "total: the total is its own query for the period.",
                    }
                )
            gap = _missing_key_share(tools, scope, kpi)
            if gap is not None:
                key, share = gap
                caveats.append(
                    {
                        "code": "ERR-002",
                        "share": round(share, 6),
                        "ru": f"{share:.1%} строк без значения {key}: в разбивке их нет, итог "
                        "их учитывает.",
                        "en": f"{share:.1%} of the rows have no {key}: the breakdown misses them, "
                        "the total counts them.",
                    }
                )
            if caveats:
                notes["caveats"][kpi.id] = caveats
        tools.write_spec("data_notes", notes)
        checks = [
            "KPI-001 non-null",
            "independent reference per KPI",
            "KPI-004 additivity",
            "ERR-002 key coverage",
        ]
        return finish_review(work, tools, findings, checks)

    def review_data(self, work: WorkItem, tools: Toolbox, spec: dict[str, Any]) -> str:
        scope, design = scope_of(spec), design_of(spec)
        notes = spec.get("data_notes") or {}
        references = notes.get("references", {})
        findings: list[Finding] = []
        cards: dict[str, Decimal | None] = {}
        for view in design.views:
            result = stored_result(tools, view.id)
            if result is None:
                findings.append(
                    Finding(
                        "KPI-002", "error", f"view {view.id}: no built data (data/{view.id}.json)"
                    )
                )
                continue
            metric = next(c["name"] for c in view.columns if c["role"] == "metric")
            values = [to_decimal(v) for v in result.column(metric)]
            if not values or all(v is None for v in values):
                findings.append(
                    Finding("KPI-001", "error", f"view {view.id}: every value of {metric} is empty")
                )
                continue
            if view.kind == "card":
                cards[view.kpi] = values[0]
                reference = references.get(view.kpi)
                if reference is None:
                    findings.append(
                        Finding(
                            "KPI-002",
                            "error",
                            f"KPI {view.kpi}: no reference value in the data notes",
                        )
                    )
                elif not same(values[0], Decimal(reference["value"])):
                    findings.append(
                        Finding(
                            "KPI-002",
                            "error",
                            f"KPI {view.kpi}: the card shows {values[0]}, the "
                            f"independent query gives {reference['value']}",
                        )
                    )
        for view in design.views:
            kpi = next((k for k in scope.kpis if k.id == view.kpi), None)
            if (
                view.kind != "breakdown"
                or kpi is None
                or not kpi.additive
                or cards.get(view.kpi) is None
            ):
                continue
            result = stored_result(tools, view.id)
            metric = next(c["name"] for c in view.columns if c["role"] == "metric")
            total = (
                sum((to_decimal(v) or Decimal(0) for v in result.column(metric)), Decimal(0))
                if result
                else None
            )
            card = cards[view.kpi]
            if total is None or same(total, card):
                continue
            stated = any(
                c.get("code") == "ERR-002" for c in notes.get("caveats", {}).get(view.kpi, [])
            )
            if not stated:
                findings.append(
                    Finding(
                        "KPI-003",
                        "error",
                        f"KPI {view.kpi}: the breakdown adds up to {total}, the "
                        f"card is {card}, and the data notes do not explain the gap",
                    )
                )
        checks = [
            "KPI-002 cards against the independent references",
            "KPI-003 breakdown totals",
            "KPI-001 non-null",
        ]
        return finish_review(work, tools, findings, checks)
