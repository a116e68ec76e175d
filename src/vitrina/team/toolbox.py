"""The tools a role works with, bound to one task and checked against the role's tool list.

Rule agents call these methods directly; a model-driven agent gets the same methods as its
tool definitions. Every tool checks the role's permission, counts against the turn's tool
budget, and reads or writes only the task's own branch. Every query goes through the SQL
guard (the catalog's tables and columns, the row cap) and runs read-only.
"""

from __future__ import annotations

import hashlib
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vitrina.catalog import Catalog
from vitrina.present.charts import ChartDecision, build_chart_data, choose_chart
from vitrina.present.charts.spec import chartjs_from_data
from vitrina.present.columns import ColumnMeta
from vitrina.query import QueryPlan, RunOptions, compile_plan, run_checked
from vitrina.sql.guard import GuardResult, guard_with_catalog
from vitrina.team.board import Attachment, Task
from vitrina.team.context import BuildContext
from vitrina.team.data.brief import Brief
from vitrina.team.data.cost import Explained, explain
from vitrina.team.data.lint import LintFinding, lint_sql
from vitrina.team.data.scope import Scope
from vitrina.team.data.views import DatasetDesign, design_dataset
from vitrina.team.errors import TeamError
from vitrina.team.permissions import require_tool
from vitrina.team.publish import DashboardBundle, render_html
from vitrina.team.publish.superset import PublishError, SupersetPublisher, Verification
from vitrina.team.review.browser import BrowserReport, review_dashboard
from vitrina.team.review.superset_browser import SupersetReport, review_superset
from vitrina.team.roles import RoleSpec
from vitrina.team.spec import ANY
from vitrina.trace import Trace
from vitrina.warehouse import QueryResult


class ToolError(TeamError):
    """A tool could not do what was asked (a refused query, a budget used up)."""


@dataclass
class SupersetCheck:
    """What the dashboard looks like in Superset: the import's verification and the browser's."""

    verification: Verification | None = None
    report: SupersetReport | None = None
    error: str | None = None  # the import was refused


class Toolbox:
    """One role's tools on one task (its branch, its spec sections, its budget)."""

    def __init__(self, ctx: BuildContext, role: RoleSpec, task: Task) -> None:
        self.ctx = ctx
        self.role = role
        self.task = task
        if not task.branch:
            raise ToolError(f"task {task.id} has no branch: a role never works on main")
        self.branch = task.branch
        ctx.workspace.ensure_branch(
            self.branch
        )  # a crash may have come between the task and its branch
        self.calls = 0
        self.trace = Trace(role.id)
        # a role's model: what it read (its numbers' sources) and how it failed (decision 208)
        self.model_read: list[str] = []
        self.model_failures: list[Any] = []

    def _use(self, tool: str) -> None:
        require_tool(self.role, tool)
        self.calls += 1
        if self.calls > self.ctx.limits.max_tool_calls:
            raise ToolError(
                f"{self.role.id} used more than {self.ctx.limits.max_tool_calls} tool "
                "calls in one turn"
            )

    # reading --------------------------------------------------------------------------
    def read_brief(self) -> Brief:
        self._use("read_brief")
        return self.ctx.brief

    def read_spec(self) -> dict[str, Any]:
        """The whole spec as this task's branch has it."""
        self._use("read_spec")
        return self.ctx.spec.read_all(self.branch)

    def read_artifact(self, path: str, *, ref: str | None = None) -> str | None:
        self._use("read_artifact")
        return self.ctx.workspace.read(ref or self.branch, path)

    def list_artifacts(self, prefix: str, *, ref: str | None = None) -> list[str]:
        self._use("read_artifact")
        return self.ctx.workspace.files(ref or self.branch, prefix)

    def catalog(self) -> Catalog:
        self._use("search_catalog")
        return self.ctx.catalog

    # writing --------------------------------------------------------------------------
    def write_spec(
        self, section: str, content: dict[str, Any], *, expected_version: object = ANY
    ) -> str | None:
        """Write one of the role's own sections on the task's branch (a verdict: this review's)."""
        self._use("write_spec")
        return self.ctx.spec.write(
            self.role.id,
            self.branch,
            section,
            content,
            expected_version=expected_version,
            task_id=self.task.id,
            message=f"{self.role.id}: {section} (task {self.task.id})",
        )

    def write_artifacts(self, files: dict[str, str | bytes], message: str) -> str | None:
        self._use("write_artifact")
        return self.ctx.workspace.write(
            self.branch, files, f"{self.role.id}: {message}", author=self.role.id
        )

    # data -------------------------------------------------------------------------------
    def plan_views(self, scope: Scope) -> DatasetDesign:
        """Every view of the scope through the ask planner (compiled in the warehouse's dialect)."""
        self._use("plan_query")
        return design_dataset(scope, self.ctx.catalog, self.ctx.warehouse.dialect, self.trace)

    def compile_plan(self, plan: QueryPlan) -> str:
        self._use("plan_query")
        return compile_plan(plan, self.ctx.catalog, self.ctx.warehouse.dialect)

    def guard(self, sql: str) -> GuardResult:
        return guard_with_catalog(
            sql,
            self.ctx.catalog,
            dialect=self.ctx.warehouse.dialect,
            row_cap=self.ctx.row_cap,
            policy=self.ctx.policy,
        )

    def run_query(self, sql: str) -> tuple[QueryResult, str]:
        """(result, the SQL that ran): through `vitrina.query.run_checked` (the guard with the
        row cap and the build's row policy, then the read-only execution with the engine's
        byte budget). ToolError when refused."""
        self._use("run_query")
        options = RunOptions(
            row_cap=self.ctx.row_cap,
            policy=self.ctx.policy,
            explain=False,  # the build's SQL is compiled from plans; the cost tool EXPLAINs
            checks=False,  # no question's period to check against: the reviewers check views
            result_checks=False,  # the data steward compares numbers instead
        )
        checked = run_checked(sql, self.ctx.catalog, self.ctx.warehouse, options, trace=self.trace)
        if checked.stage == "guard":
            raise ToolError(f"the SQL guard refused the query: {checked.error}")
        if checked.result is None:
            raise ToolError(f"the warehouse refused the query: {checked.error}")
        result = checked.result
        if (
            result.row_count >= self.ctx.row_cap and not result.truncated
        ):  # the guard's LIMIT cut it
            result = result.model_copy(update={"truncated": True})
            self.trace.warning("rows beyond the row cap dropped", row_cap=self.ctx.row_cap)
        return result, checked.sql

    def explain(self, sql: str) -> Explained:
        self._use("explain_query")
        checked = self.guard(sql)
        if not checked.ok:
            return Explained(ok=False, error="; ".join(v.message_en for v in checked.violations))
        return explain(checked.sql, self.ctx.warehouse)

    def lint(self, sql: str) -> tuple[GuardResult, list[LintFinding]]:
        self._use("lint_sql")
        return self.guard(sql), lint_sql(sql, self.ctx.warehouse.dialect)

    # charts and the dashboard ------------------------------------------------------------
    def choose_chart(self, result: QueryResult, metas: list[ColumnMeta]) -> ChartDecision:
        self._use("choose_chart")
        return choose_chart(result, metas, self.ctx.lang)

    def chart_spec(
        self, decision: ChartDecision, result: QueryResult, metas: list[ColumnMeta]
    ) -> dict[str, Any]:
        self._use("choose_chart")
        return chartjs_from_data(build_chart_data(decision, result, metas, self.ctx.lang))

    def render_dashboard(self, bundle: DashboardBundle) -> dict[str, bytes]:
        self._use("render_dashboard")
        return render_html(bundle)

    def browser_check(self, files: dict[str, bytes]) -> BrowserReport:
        """Open the dashboard made of ``files`` in chromium; the screenshot is kept for attach()."""
        self._use("browser_check")
        with tempfile.TemporaryDirectory(prefix="vitrina-review-") as tmp:
            folder = Path(tmp) / "dashboard"
            for name, data in files.items():
                path = folder / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
            shot = (
                self.ctx.attachments_dir
                / f"task-{self.task.id}"
                / f"screenshot-r{self.task.round}.png"
            )
            return review_dashboard(folder, shot, timeout_s=self.ctx.limits.browser_timeout_s)

    def superset_check(self, bundle: DashboardBundle) -> SupersetCheck:
        """Publish the bundle to Superset as a draft, verify it, and (with the browser review
        on) open it in chromium. Each review round updates the same draft (same UUIDs)."""
        self._use("superset_check")
        target = self.ctx.superset
        if target is None:
            raise ToolError("no Superset is configured for this build")
        try:
            verification = SupersetPublisher(target, published=False).push(bundle)
        except PublishError as exc:
            self.trace.rejected("Superset refused the draft", reason=str(exc)[:300])
            return SupersetCheck(error=str(exc))
        report = None
        if self.ctx.browser and verification.charts:
            shot = (
                self.ctx.attachments_dir
                / f"task-{self.task.id}"
                / f"superset-r{self.task.round}.png"
            )
            report = review_superset(
                target.url,
                verification.dashboard_id,
                username=target.username,
                password=target.password,
                expected=len(bundle.elements),
                screenshot=shot,
                timeout_s=self.ctx.limits.superset_timeout_s,
            )
            self.trace.measurement(
                "Superset review", drawn=len(report.drawn), expected=report.expected, ms=report.ms
            )
        for note in verification.notes:
            self.trace.warning("Superset publish repaired", note=note)
        return SupersetCheck(verification=verification, report=report)

    def attach(self, name: str, path: Path, media_type: str) -> Attachment:
        """Attach a file (the screenshot) to this task on the board, once per name."""
        self._use("attach")
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        attachment, _ = self.ctx.store.attach(
            task_id=self.task.id, name=name, path=str(path), media_type=media_type, sha256=digest
        )
        return attachment
