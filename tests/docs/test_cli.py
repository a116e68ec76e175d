"""`vitrina docs` and `vitrina lineage` through Typer's CliRunner, good and bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from vitrina.docs.commands import register

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture()
def app() -> typer.Typer:
    try:
        from vitrina.cli import app as main_app

        if any(c.name == "docs" for c in main_app.registered_commands):
            return main_app
    except ImportError:  # pragma: no cover - the main CLI is always there
        pass
    local = typer.Typer()
    register(local)

    @local.callback()
    def _root() -> None:
        """Local root so sub-commands keep their names."""

    return local


def test_docs_good_input(app: typer.Typer, tmp_path: Path) -> None:
    res = CliRunner().invoke(
        app,
        [
            "docs",
            "--model",
            str(FIXTURES / "small.bim"),
            "--sql",
            str(FIXTURES / "warehouse"),
            "--all",
            "--out",
            str(tmp_path),
            "--lang",
            "ru",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "обработано" in res.output and "11" in res.output  # the summary speaks Russian too
    assert "## Процедуры загрузки" in (tmp_path / "measures" / "Total Amount.md").read_text(
        encoding="utf-8"
    )


def test_docs_with_measure_list_reports_missed(app: typer.Typer, tmp_path: Path) -> None:
    lst = tmp_path / "list.md"
    lst.write_text("# Sales\n## [Total Amount], [Totl Quantity]\n", encoding="utf-8")
    res = CliRunner().invoke(
        app,
        [
            "docs",
            "--model",
            str(FIXTURES / "small.bim"),
            "--measures",
            str(lst),
            "--out",
            str(tmp_path / "o"),
        ],
        env={"COLUMNS": "200"},
    )
    assert res.exit_code == 0, res.output
    assert "not found" in res.output and "Total Quantity" in res.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["docs", "--model", "/no/such/model.bim"], "model not found"),
        (
            ["docs", "--model", str(FIXTURES / "small.bim"), "--sql", "/no/such/sql"],
            "SQL folder not found",
        ),
        (
            ["docs", "--model", str(FIXTURES / "small.bim"), "--measures", "/no/list.md"],
            "measure list file not found",
        ),
        (
            ["docs", "--model", str(FIXTURES / "small.bim"), "--measures", "x.md", "--all"],
            "not both",
        ),
        (
            ["lineage", "[Totl Amount]", "--model", str(FIXTURES / "small.bim")],
            "did you mean [Total Amount]",
        ),
    ],
)
def test_user_mistakes_exit_2_with_one_line(
    app: typer.Typer, tmp_path: Path, args: list[str], message: str
) -> None:
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2, res.output
    assert message in res.output
    assert "Traceback" not in res.output


def test_broken_bim_json_gives_line_and_column(app: typer.Typer, tmp_path: Path) -> None:
    bad = tmp_path / "bad.bim"
    bad.write_text('{"model": {"tables": [}}', encoding="utf-8")
    res = CliRunner().invoke(app, ["docs", "--model", str(bad), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2
    assert "bad.bim:1:23: invalid JSON" in res.output.replace("\n", "")


def test_lineage_tree(app: typer.Typer) -> None:
    res = CliRunner().invoke(
        app,
        [
            "lineage",
            "[Average Price]",
            "--model",
            str(FIXTURES / "small.bim"),
            "--sql",
            str(FIXTURES / "warehouse"),
        ],
    )
    assert res.exit_code == 0, res.output
    out = res.output.lower()
    assert (
        "[total amount]" in out
        and "rpt.vsales" in out
        and "etl.loadsales" in out
        and "stage.sale_staging" in out
    )


def test_lineage_on_wwi(app: typer.Typer, shared_fixtures: Path) -> None:
    res = CliRunner().invoke(
        app,
        [
            "lineage",
            "[Total Sales]",
            "--model",
            str(shared_fixtures / "wwi/model/Model.bim"),
            "--sql",
            str(shared_fixtures / "wwi/dw-ssdt"),
        ],
        env={"COLUMNS": "200"},
    )
    assert res.exit_code == 0
    assert (
        "Integration.MigrateStagedSaleData" in res.output
        and "Integration.Sale_Staging" in res.output
    )  # original case
