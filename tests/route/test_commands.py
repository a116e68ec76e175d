"""The CLI commands the route job registers, driven through Typer's runner."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from typer.testing import CliRunner

from vitrina.route.commands import register

TRADE = Path(__file__).parents[1] / "onec" / "fixtures" / "trade-designer"


def _app() -> typer.Typer:
    app = typer.Typer()
    register(app)
    return app


def test_onec_command_reads_and_drafts(tmp_path):
    result = CliRunner().invoke(_app(), ["onec", str(TRADE), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "ТорговляДемо (designer)" in result.output and "ВаловаяПрибыль" in result.output
    assert (tmp_path / "catalog.yaml").is_file()
    bad = CliRunner().invoke(_app(), ["onec", str(tmp_path)])
    assert bad.exit_code == 2


def test_route_command_on_a_1c_target_as_json():
    result = CliRunner().invoke(
        _app(), ["route", "остатки товаров на складах", "--onec", str(TRADE), "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["report"]["virtual_table"] == "Остатки" and data["nodes"][-1] == "deliver"


def test_route_command_mcp_face(demo_db):
    result = CliRunner().invoke(
        _app(), ["route", "What can you do?", "--db", f"duckdb:///{demo_db}", "--face", "mcp"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["reply"]["face"] == "mcp"
