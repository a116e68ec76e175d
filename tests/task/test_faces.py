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
    result = CliRunner().invoke(
        app, ["task", "Сумма платежей по регионам за 2025 год", "--yes", "--no-llm"]
    )
    assert result.exit_code == 0, result.output
    assert "Итог задачи" in result.output and "✓ 1." in result.output


def test_mcp_tool_start_and_decide(make_task):
    service = make_task()
    done = start_task_tool("Сумма платежей по регионам за 2025 год", service=service)
    assert done["status"] == "done" and done["summary"] and done["plan"][0]["status"] == "done"
    waiting = start_task_tool(
        "Сумма платежей по регионам за 2025 год", approve_all=False, service=service
    )
    assert waiting["status"] == "awaiting_plan"
    stopped = task_decision_tool(waiting["task_id"], "stop", service=service)
    assert stopped["status"] == "stopped"


def _app():
    app = typer.Typer()
    commands.register(app)
    app.command("noop")(lambda: None)
    return app


def test_cli_json_prints_only_json(demo_db, monkeypatch):
    import json

    monkeypatch.setenv("VITRINA_DB_URL", f"duckdb:///{demo_db}")
    result = CliRunner().invoke(
        _app(), ["task", "Сумма платежей по регионам за 2025 год", "--yes", "--no-llm", "--json"]
    )
    assert result.exit_code == 0, result.output
    task = json.loads(result.stdout)  # nothing but the JSON on stdout
    assert task["status"] == "done" and task["plan"][0]["status"] == "done"
    assert "задача" in result.stderr and "✓ 1." in result.stderr, "progress goes to stderr"


def test_menu_numbers_do_not_move():
    assert commands.menu_numbers("step", ["approve", "redo", "skip", "stop"]) == {
        1: "approve",
        2: "redo",
        3: "skip",
        4: "stop",
    }
    assert commands.menu_numbers("step", ["redo", "skip", "stop"]) == {
        2: "redo",
        3: "skip",
        4: "stop",
    }
    assert commands.menu_numbers("step", ["skip", "stop"]) == {3: "skip", 4: "stop"}
    assert commands.menu_numbers("plan", ["approve", "stop"]) == {1: "approve", 4: "stop"}


def test_typing_a_number_at_a_failed_step_means_the_same_choice(demo_db, monkeypatch):
    """Step 2 fails (no data for January 2022): approve is not offered, and 3 is still skip."""
    monkeypatch.setenv("VITRINA_DB_URL", f"duckdb:///{demo_db}")
    request = "Сравни сумму платежей по регионам за январь 2023 с прошлым годом"
    answers = (
        "\n".join(["1", "1", "3", "3", "1", "1"]) + "\n"
    )  # plan, step 1, skip 2, skip 3, the rest
    result = CliRunner().invoke(_app(), ["task", request, "--no-llm"], input=answers)
    assert result.exit_code == 0, result.output
    assert "2 повторить  3 пропустить  4 остановить" in result.output
    assert "Выполнено шагов: 2 из 4; пропущено: 2" in result.output
