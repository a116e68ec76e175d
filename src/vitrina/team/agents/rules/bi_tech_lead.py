"""BI tech lead by rules: guard, SQL standards lint and EXPLAIN cost of every view, and the
built SQL against the design (a data engineer never changes the design)."""

from __future__ import annotations

import json
from typing import Any

from vitrina.catalog import Catalog
from vitrina.sql.checks import run_checks
from vitrina.team.agents.base import Finding, WorkItem
from vitrina.team.agents.rules.common import design_of, finish_review
from vitrina.team.data.cost import COST_LIMIT_ROWS
from vitrina.team.data.views import DatasetView
from vitrina.team.toolbox import Toolbox

ERROR_LINT = {"SQL-001", "SQL-004", "GUARD-001"}


def sql_findings(tools: Toolbox, view_id: str, sql: str) -> list[Finding]:
    """GUARD-001, the SQL-* lint and COST-001/002 for one view's SQL."""
    findings: list[Finding] = []
    checked, lint = tools.lint(sql)
    for violation in checked.violations:
        findings.append(
            Finding(
                "GUARD-001", "error", f"view {view_id}: {violation.rule}: {violation.message_en}"
            )
        )
    for finding in lint:
        severity = "error" if finding.code in ERROR_LINT else "warning"
        findings.append(Finding(finding.code, severity, f"view {view_id}: {finding.message}"))
    if checked.ok:
        plan = tools.explain(sql)
        if not plan.ok:
            findings.append(
                Finding("COST-001", "error", f"view {view_id}: EXPLAIN fails: {plan.error}")
            )
        elif plan.rows is not None and plan.rows > COST_LIMIT_ROWS:
            findings.append(
                Finding(
                    "COST-002",
                    "warning",
                    f"view {view_id}: reads about {plan.rows:,} rows "
                    f"(limit {COST_LIMIT_ROWS:,}): pre-aggregate or narrow the period",
                )
            )
    return findings


def design_findings(view: DatasetView) -> list[Finding]:
    findings = []
    if not view.columns:
        findings.append(Finding("DSN-003", "error", f"view {view.id}: no column meanings"))
    if not any(c["role"] == "metric" for c in view.columns):
        findings.append(Finding("DSN-003", "error", f"view {view.id}: no metric column"))
    for column in view.columns:
        if not column.get("label_ru") or not column.get("label_en"):
            findings.append(
                Finding(
                    "DSN-003", "warning", f"view {view.id}: column {column['name']} has no label"
                )
            )
    return findings


CHECK_CODES = {
    "period_missing": "DSN-004",
    "dictionary_value": "BRIEF-005",
    "aggregate_without_group_by": "DSN-001",
    "grain_missing": "DSN-001",
}


def plan_findings(catalog: Catalog, view: DatasetView, dialect: str) -> list[Finding]:
    """DSN-002 joins along many-to-one relations; DSN-004 the metric's date column and the
    period in the SQL; the deterministic SQL checks of vitrina.sql on the view."""
    findings = []
    plan = view.query_plan()
    for join in plan.joins:
        left, right = (
            f"{join.left_table}.{join.left_column}",
            f"{join.right_table}.{join.right_column}",
        )
        many_to_one = any(r.left == left and r.right == right for r in catalog.relations)
        one_to_one = any(
            r.kind == "one_to_one" and {r.left, r.right} == {left, right} for r in catalog.relations
        )
        if not (many_to_one or one_to_one):
            findings.append(
                Finding(
                    "DSN-002",
                    "error",
                    f"view {view.id}: the join {left} = {right} is not a "
                    "many-to-one relation of the catalog: it can multiply rows",
                )
            )
    metric = catalog.metrics[plan.metrics[0]]
    dated = catalog.metric_date(metric)  # the date ask uses: own table or through a join
    expected = f"{dated.table}.{dated.column}" if dated else None
    if plan.period and f"{plan.date_owner}.{plan.date_column}" != expected:
        findings.append(
            Finding(
                "DSN-004",
                "error",
                f"view {view.id}: the period is on {plan.date_owner}.{plan.date_column}, "
                f"the metric's date column is {expected}",
            )
        )
    for problem in run_checks(
        view.sql,
        dialect,
        catalog,
        period_start=plan.period.start if plan.period else None,
        period_end=plan.period.end if plan.period else None,
        grain=plan.grain,
    ):
        findings.append(
            Finding(
                CHECK_CODES.get(problem.check, "DSN-001"),
                "error",
                f"view {view.id}: {problem.message}",
            )
        )
    return findings


class BiTechLeadRules:
    def act(self, work: WorkItem, tools: Toolbox) -> str:
        spec = tools.read_spec()
        design = design_of(spec)
        findings: list[Finding] = []
        kpis = {k["id"] for k in spec.get("scope", {}).get("kpis", [])}
        missing_cards = kpis - {v.kpi for v in design.views if v.kind == "card"}
        for kpi in sorted(missing_cards):
            findings.append(Finding("DSN-001", "error", f"KPI {kpi} has no card view"))
        if work.step.id == "dataset":
            for view in design.views:
                findings += design_findings(view)
                findings += plan_findings(tools.catalog(), view, tools.ctx.warehouse.dialect)
                findings += sql_findings(tools, view.id, view.sql)
            checks = [
                "DSN-001/003 design",
                "GUARD-001 guard",
                "SQL-001..006 lint",
                "COST-001/002 EXPLAIN",
            ]
        else:
            for view in design.views:
                findings += self._built(tools, view)
            checks = [
                "DSN-005 built SQL = design",
                "GUARD-001 guard",
                "SQL-001..006 lint",
                "COST-001/002 EXPLAIN",
            ]
        return finish_review(work, tools, findings, checks)

    def _built(self, tools: Toolbox, view: DatasetView) -> list[Finding]:
        sql = tools.read_artifact(f"datasets/{view.id}.sql")
        if sql is None:
            return [
                Finding("DSN-005", "error", f"view {view.id}: datasets/{view.id}.sql is missing")
            ]
        expected = tools.guard(tools.compile_plan(view.query_plan()))
        findings = sql_findings(tools, view.id, sql)
        if expected.ok and tools.guard(sql).sql != expected.sql:
            findings.append(
                Finding(
                    "DSN-005", "error", f"view {view.id}: the built SQL is not the designed query"
                )
            )
        raw = tools.read_artifact(f"data/{view.id}.json")
        data: dict[str, Any] = json.loads(raw) if raw else {}
        if data.get("truncated"):
            findings.append(
                Finding(
                    "DSN-001",
                    "error",
                    f"view {view.id}: more rows than the row cap: the "
                    "dashboard would show a cut result; aggregate further or narrow the period",
                )
            )
        designed = [c["name"] for c in view.columns]
        if data.get("columns") != designed:
            findings.append(
                Finding(
                    "DSN-005",
                    "error",
                    f"view {view.id}: built columns {data.get('columns')} are not "
                    f"the designed {designed}",
                )
            )
        return findings
