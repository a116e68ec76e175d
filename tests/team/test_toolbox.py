"""Tools check the role, go through the SQL guard, and stay on the task's own branch."""

from __future__ import annotations

import pytest

from vitrina.catalog import load_catalog
from vitrina.team.context import BuildContext, Limits
from vitrina.team.data.brief import parse_brief
from vitrina.team.errors import PermissionDenied, SectionLocked
from vitrina.team.skills import SkillLibrary
from vitrina.team.spec import Spec
from vitrina.team.toolbox import Toolbox, ToolError
from vitrina.warehouse import Warehouse


@pytest.fixture
def ctx(env, demo_db, tmp_path) -> BuildContext:
    context = BuildContext(
        store=env.store,
        roster=env.roster,
        skills=SkillLibrary.default(),
        build=env.build,
        brief=parse_brief("title: t\nkpis: [Средний чек]\n"),
        catalog=load_catalog(None),
        warehouse=Warehouse(f"duckdb:///{demo_db}"),
        workspace=env.workspace,
        spec=Spec(env.workspace, env.roster),
        prims=env.prims,
        agents={},
        today=None,
        row_cap=1000,
        publishers=[],
        attachments_dir=tmp_path / "att",
        limits=Limits(max_tool_calls=5),
    )
    yield context
    context.warehouse.close()


def tools_for(ctx: BuildContext, role: str, step: str = "data") -> Toolbox:
    task = ctx.prims.open_task("coordinator", step, body="", lang="ru").task
    return Toolbox(ctx, ctx.roster.get(role), task)


@pytest.mark.parametrize(
    ("role", "call"),
    [
        ("coordinator", lambda t: t.run_query("SELECT 1")),  # the coordinator never touches data
        ("chart-builder", lambda t: t.run_query("SELECT 1")),
        ("scoping", lambda t: t.write_artifacts({"a.txt": "x"}, "x")),
        (
            "bi-tech-lead",
            lambda t: t.write_artifacts({"datasets/x.sql": "SELECT 1"}, "fix it myself"),
        ),
        ("dashboard-builder", lambda t: t.browser_check({})),
        ("data-steward", lambda t: t.render_dashboard(None)),
    ],
)
def test_tools_outside_the_role_are_refused(ctx, role: str, call) -> None:
    with pytest.raises(PermissionDenied, match=f"role '{role}' may not use the tool"):
        call(tools_for(ctx, role))


@pytest.mark.parametrize(
    "sql",
    [
        "DELETE FROM dwh.fact_payment",
        "SELECT * FROM pg_catalog.pg_user",
        "SELECT 1; DROP TABLE dwh.fact_payment",
        "SELECT * FROM read_csv('/etc/passwd')",
        "SELECT secret FROM dwh.fact_payment",
    ],
)
def test_every_query_goes_through_the_guard(ctx, sql: str) -> None:
    with pytest.raises(ToolError, match="the SQL guard refused the query"):
        tools_for(ctx, "data-engineer").run_query(sql)


def test_queries_run_with_the_row_cap_and_writes_stay_in_the_own_section(ctx) -> None:
    tools = tools_for(ctx, "data-engineer")
    result, ran = tools.run_query("SELECT payment_id FROM dwh.fact_payment")
    assert result.row_count == 1000 and result.truncated and ran.rstrip().endswith("LIMIT 1000")
    with pytest.raises(SectionLocked):
        tools.ctx.spec.write("data-engineer", tools.branch, "dataset", {"x": 1})


def test_a_turn_has_a_tool_budget(ctx) -> None:
    tools = tools_for(ctx, "data-engineer")
    for _ in range(5):
        tools.read_spec()
    with pytest.raises(ToolError, match="more than 5 tool calls"):
        tools.read_spec()
