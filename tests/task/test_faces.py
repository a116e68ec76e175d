"""The CLI (`vitrina task --yes`) and the MCP tool function on the demo warehouse, rules mode."""

from __future__ import annotations

import typer
from typer.testing import CliRunner

from vitrina.task import commands
from vitrina.task.mcp_tool import start_task_tool, task_decision_tool


def test_cli_yes_runs_to_a_summary(demo_db, monkeypatch):
    monkeypatch.setenv("VITRINA_DB_URL", f"duckdb:///{demo_db}")
    app = typer.Typer()
    commands.register(app)
    app.command("noop")(lambda: None)  # two commands: typer keeps `task` as a subcommand
    result = CliRunner().invoke(app, ["task", "Сумма платежей по регионам за 2025 год", "--yes", "--no-llm"])
    assert result.exit_code == 0, result.output
    assert "Итог задачи" in result.output and "✓ 1." in result.output


def test_mcp_tool_start_and_decide(make_task):
    service = make_task()
    done = start_task_tool("Сумма платежей по регионам за 2025 год", service=service)
    assert done["status"] == "done" and done["summary"] and done["plan"][0]["status"] == "done"
    waiting = start_task_tool("Сумма платежей по регионам за 2025 год", approve_all=False, service=service)
    assert waiting["status"] == "awaiting_plan"
    stopped = task_decision_tool(waiting["task_id"], "stop", service=service)
    assert stopped["status"] == "stopped"
