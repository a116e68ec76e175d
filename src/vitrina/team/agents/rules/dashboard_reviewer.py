"""Dashboard reviewer by rules: the design against the chart and layout rules, the built
charts against the design and the data, and the page itself in chromium."""

from __future__ import annotations

import json
import re
from typing import Any

from vitrina.team.agents.base import Finding, WorkItem
from vitrina.team.agents.rules.chart_builder import expected_spec, review_context
from vitrina.team.agents.rules.common import design_of, finish_review, metas_of, scope_of
from vitrina.team.agents.rules.dashboard_designer import card_twin
from vitrina.team.data.layout import WIDTHS, overlaps, title_limit
from vitrina.team.publish import DashboardBundle
from vitrina.team.review.browser import BrowserReport
from vitrina.team.review.checklist import (
    CHECKS,
    catalog_notes,
    review_bundle,
    width_findings,
)
from vitrina.team.toolbox import SupersetCheck, Toolbox

# another origin: a scheme (except inline data:) or a protocol-relative URL
EXTERNAL = re.compile(
    r"""(?:src|href)\s*=\s*["']\s*(?:(?!data:)[a-z][a-z0-9+.-]*:|//)""", re.IGNORECASE
)


def _order(elements: list[dict[str, Any]]) -> list[str]:
    return [e["id"] for e in elements]


def superset_findings(check: SupersetCheck) -> list[Finding]:
    """The Superset draft's import, data calls, links and page as review findings."""
    if check.error or check.verification is None:
        return [Finding("SUP-001", "error", f"Superset refused the import: {check.error}"[:400])]
    verification, findings = check.verification, []
    for chart in verification.failed[:10]:
        findings.append(
            Finding(
                "SUP-002",
                "error",
                f"{chart.element}: Superset's data call answers HTTP {chart.status}: "
                f"{chart.message}"[:400],
            )
        )
    for element in verification.unlinked:
        findings.append(Finding("SUP-003", "error", f"{element}: not linked to the dashboard"))
    report = check.report
    if report is None:
        return findings
    if report.error:
        return [*findings, Finding("SUP-006", "error", report.error)]
    for alert in report.alerts[:10]:
        findings.append(Finding("SUP-005", "error", f"Superset shows: {alert}"[:300]))
    for message in report.console_errors[:5]:
        findings.append(Finding("SUP-005", "error", f"console in Superset: {message}"[:300]))
    for call in report.failed_api[:10]:
        findings.append(Finding("SUP-005", "error", f"API call failed in Superset: {call}"[:300]))
    if len(report.drawn) < report.expected:
        findings.append(
            Finding(
                "SUP-006",
                "error",
                f"{len(report.drawn)} of {report.expected} charts drawn in Superset"
                + (f"; not drawn: {', '.join(report.empty[:5])}" if report.empty else ""),
            )
        )
    if report.screenshot is None:
        findings.append(Finding("SUP-006", "error", "no screenshot of the Superset dashboard"))
    return findings


class DashboardReviewerRules:
    def act(self, work: WorkItem, tools: Toolbox) -> str:
        spec = tools.read_spec()
        check = {"presentation": self.design, "charts": self.charts, "dashboard": self.dashboard}[
            work.step.id
        ]
        record: dict[str, Any] = {}
        findings, checks = check(work, tools, spec, record)
        return finish_review(work, tools, findings, checks, record)

    def design(
        self, work: WorkItem, tools: Toolbox, spec: dict[str, Any], record: dict[str, Any]
    ) -> tuple[list[Finding], list[str]]:
        scope, design = scope_of(spec), design_of(spec)
        elements = spec.get("presentation", {}).get("elements", [])
        findings: list[Finding] = []
        for kpi in scope.kpis:
            shown = {kpi.id, card_twin(kpi.id, scope, design)}  # one card for the same number
            if not any(e["kpi"] in shown and e["kind"] == "card" for e in elements):
                findings.append(Finding("DASH-002", "error", f"KPI {kpi.id} has no card"))
            if kpi.by is not None and not any(
                e["kpi"] == kpi.id and e["kind"] == "chart" for e in elements
            ):
                findings.append(
                    Finding("DASH-002", "error", f"KPI {kpi.id} has a breakdown but no chart")
                )
        for element in elements:
            limit = title_limit(element["kind"])
            if len(element["title"]) > limit:
                findings.append(
                    Finding(
                        "DASH-001",
                        "warning",
                        f"{element['id']}: the title «{element['title']}» has "
                        f"{len(element['title'])} characters, at most {limit} fit its cell",
                    )
                )
            if int(element["w"]) not in WIDTHS:
                findings.append(
                    Finding(
                        "DASH-003",
                        "error",
                        f"{element['id']}: width {element['w']} is not one of {WIDTHS}",
                    )
                )
            if element["kind"] != "chart":
                continue
            view = next((v for v in design.views if v.id == element["view"]), None)
            if view is None:
                findings.append(
                    Finding(
                        "DASH-002",
                        "error",
                        f"{element['id']}: view {element['view']} is not designed",
                    )
                )
                continue
            result, _ = tools.run_query(view.sql)
            rules = tools.choose_chart(result, metas_of(view))
            designed = element["decision"]
            if (rules.kind, rules.x, rules.y_columns) != (
                designed["kind"],
                designed.get("x"),
                designed["y_columns"],
            ):
                findings.append(
                    Finding(
                        "CHART-005",
                        "error",
                        f"{element['id']}: designed as {designed['kind']} of "
                        f"{designed['y_columns']} by {designed.get('x')}; the chart rules choose "
                        f"{rules.kind} of {rules.y_columns} by {rules.x} ({rules.reason})",
                    )
                )
        return findings, [
            "DASH-001 titles",
            "DASH-002 coverage",
            "DASH-003 widths",
            "CHART-005 chart rules",
        ]

    def charts(
        self, work: WorkItem, tools: Toolbox, spec: dict[str, Any], record: dict[str, Any]
    ) -> tuple[list[Finding], list[str]]:
        findings: list[Finding] = []
        for element in spec["presentation"]["elements"]:
            raw = tools.read_artifact(f"charts/{element['id']}.json")
            if raw is None:
                findings.append(
                    Finding(
                        "CHART-007",
                        "error",
                        f"{element['id']}: charts/{element['id']}.json is missing",
                    )
                )
                continue
            built = json.loads(raw)["spec"]
            expected = expected_spec(tools, element, spec)
            if expected is None:
                findings.append(
                    Finding("CHART-006", "error", f"{element['id']}: no built data to compare with")
                )
                continue
            if built.get("type") != expected.get("type"):
                findings.append(
                    Finding(
                        "CHART-007",
                        "error",
                        f"{element['id']}: built as a {built.get('type')} chart, "
                        f"the design says {element['decision']['kind']} ({expected.get('type')})",
                    )
                )
                continue
            if built.get("data") != expected.get("data"):
                findings.append(
                    Finding(
                        "CHART-006",
                        "error",
                        f"{element['id']}: the chart's labels or numbers are not the built data's",
                    )
                )
        return findings, ["CHART-007 kinds as designed", "CHART-006 numbers from the data"]

    def superset(
        self,
        tools: Toolbox,
        bundle: DashboardBundle,
        record: dict[str, Any],
        checks: list[str],
    ) -> list[Finding]:
        check = tools.superset_check(bundle)
        checks.append("SUP-001..006 Superset" + ("" if tools.ctx.browser else " (no browser)"))
        verification, report = check.verification, check.report
        record["superset"] = {
            "error": check.error,
            "dashboard": verification.url if verification else None,
            "charts": {c.element: c.status for c in verification.charts} if verification else {},
            "notes": verification.notes if verification else [],
            "drawn": len(report.drawn) if report else None,
            "charts_seen": report.drawn_names if report else [],
            "settled_before_screenshot": report.settled if report else None,
            "alerts": report.alerts if report else [],
            "failed_api": report.failed_api if report else [],
            "ms": report.ms if report else None,
        }
        if report is not None and report.screenshot is not None:
            tools.attach("superset.png", report.screenshot, "image/png")
        if report is not None and report.drawn_names:
            checks.append("Superset drew: " + ", ".join(report.drawn_names[:20]))
        return superset_findings(check)

    def dashboard(
        self, work: WorkItem, tools: Toolbox, spec: dict[str, Any], record: dict[str, Any]
    ) -> tuple[list[Finding], list[str]]:
        findings: list[Finding] = []
        designed = spec["presentation"]["elements"]
        raw = tools.read_artifact("dashboard/dashboard.json")
        if raw is None:
            return [Finding("DASH-004", "error", "dashboard/dashboard.json is missing")], [
                "DASH-004 elements"
            ]
        bundle = json.loads(raw)
        placed = sorted(bundle["elements"], key=lambda e: (e["y"], e["x"]))
        if [e["id"] for e in placed if e["kind"] == "card"] != [
            e["id"] for e in designed if e["kind"] == "card"
        ] or [e["id"] for e in placed if e["kind"] == "chart"] != [
            e["id"] for e in designed if e["kind"] == "chart"
        ]:
            findings.append(
                Finding(
                    "DASH-004",
                    "error",
                    f"the page shows {_order(placed)}, the design has {_order(designed)}",
                )
            )
        for a, b in overlaps(placed):
            findings.append(Finding("DASH-003", "error", f"cells {a} and {b} overlap"))
        for element in placed:
            chart = tools.read_artifact(f"charts/{element['id']}.json")
            if chart is not None and json.loads(chart)["spec"] != element["spec"]:
                findings.append(
                    Finding(
                        "CHART-006",
                        "error",
                        f"{element['id']}: the page's chart is not the built chart",
                    )
                )
        names = [n for n in tools.list_artifacts("dashboard")]
        files = {
            n.removeprefix("dashboard/"): (tools.ctx.workspace.read_bytes(tools.branch, n) or b"")
            for n in names
        }
        page = files.get("index.html", b"").decode("utf-8", "replace")
        if EXTERNAL.search(page):
            findings.append(
                Finding("DASH-005", "error", "index.html loads something from another origin")
            )
        checks = ["DASH-003/004 layout", "DASH-005 local assets", "CHART-006 page = built charts"]
        context = review_context(tools, spec)
        findings += review_bundle(bundle, context)
        checks.append(f"RVW checklist ({len(CHECKS)} checks)")
        if notes := catalog_notes(bundle, context):
            record["catalog_notes"] = notes
            checks.append("; ".join(notes[:5]))
        if tools.ctx.superset is not None:
            findings += self.superset(tools, DashboardBundle.model_validate(bundle), record, checks)
        if not tools.ctx.browser:
            checks.append("WEB-001..005 skipped by request (--no-browser)")
            return findings, checks
        report = tools.browser_check(files)
        checks.append("WEB-001..005 chromium, RVW-WEB-CUT/CLIP at 1440 and 390 px")
        record["browser"] = browser_record(report)
        if report.error:
            findings.append(Finding("WEB-005", "error", report.error))
            return findings, checks
        findings += page_findings(report, placed)
        findings += width_findings(report.widths, work.lang)
        for width in report.widths:
            if width.screenshot is not None:
                name = "screenshot.png" if width.width >= 900 else f"screenshot-{width.width}.png"
                tools.attach(name, width.screenshot, "image/png")
        if report.screenshot is None:
            findings.append(Finding("WEB-005", "error", "no screenshot was taken"))
        return findings, checks


def browser_record(report: BrowserReport) -> dict[str, Any]:
    """What the verdict section keeps of the browser review: counts, cuts per width, shots."""
    return {
        "charts": len(report.charts),
        "drawn": report.drawn,
        "console_errors": report.console_errors,
        "failed_requests": report.failed_requests + report.foreign_requests,
        "cut_labels": report.cut_labels,
        "cut_chart_labels": report.cut_chart_labels,
        "widths": {
            w.width: {
                "cut_labels": w.cut_labels,
                "clipped_labels": w.clipped_labels,
                "screenshot": str(w.screenshot) if w.screenshot else None,
            }
            for w in report.widths
        },
        "screenshot": str(report.screenshot) if report.screenshot else None,
        "ms": report.ms,
    }


def page_findings(report: BrowserReport, placed: list[dict[str, Any]]) -> list[Finding]:
    """Console errors, failed requests, undrawn charts and desktop cuts (WEB-001..004)."""
    findings: list[Finding] = []
    for message in report.console_errors[:10]:
        findings.append(Finding("WEB-001", "error", f"console: {message[:200]}"))
    for request in (report.failed_requests + report.foreign_requests)[:10]:
        findings.append(Finding("WEB-002", "error", f"request failed or blocked: {request[:200]}"))
    for chart in report.undrawn:
        findings.append(Finding("WEB-003", "error", f"chart {chart} is not drawn"))
    designed = sum(1 for e in placed if e["kind"] == "chart")
    if len(report.charts) != designed:
        findings.append(
            Finding(
                "WEB-003", "error", f"{len(report.charts)} charts on the page, {designed} designed"
            )
        )
    desktop = next((w for w in report.widths if w.width >= 900), None)
    cut = desktop.cut_labels if desktop else report.cut_labels
    for label in cut[:10]:
        findings.append(
            Finding("WEB-004", "warning", f"the label «{label}» is cut: widen its cell")
        )
    return findings
