"""`vitrina build` and `vitrina board` through Typer's runner, on the demo warehouse."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from vitrina.cli import app

runner = CliRunner()
SMALL = "title: Карты 2025\nperiod: 2025 год\nkpis:\n  - name: Выпущено карт\n    by: тип карты\n"


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": "200"})
    return result.exit_code, result.output


def test_build_then_board(demo_db: Path, tmp_path: Path) -> None:
    brief = tmp_path / "brief.yaml"
    brief.write_text(SMALL, encoding="utf-8")
    board = f"sqlite:///{tmp_path / 'board.sqlite'}"
    code, out = run(
        "build",
        str(brief),
        "--db",
        f"duckdb:///{demo_db}",
        "--board",
        board,
        "--out",
        str(tmp_path / "out"),
        "--no-browser",
        "--json",
    )
    assert code == 0, out
    result = json.loads(out)
    assert result["status"] == "done" and (tmp_path / "out" / "index.html").is_file()
    assert [t["step"] for t in result["tasks"] if t["kind"] == "work"] == [
        "scoping",
        "dataset",
        "presentation",
        "data",
        "charts",
        "dashboard",
    ]
    code, out = run("board", "--board", board)
    assert code == 0 and "Собрать дашборд" in out and "APPROVED" in out and "build 1 · done" in out
    review = next(t for t in result["tasks"] if t["kind"] == "review" and t["step"] == "data")
    code, out = run("board", "show", str(review["id"]), "--board", board)
    assert code == 0 and "VERDICT APPROVED" in out and "HANDOFF REVIEW-DONE" in out
    work = next(t for t in result["tasks"] if t["step"] == "data" and t["kind"] == "work")
    code, out = run("board", "show", str(work["id"]), "--diff", "--board", board)
    assert code == 0 and "datasets/cards_issued_by_card_type__card.sql" in out
    code, out = run("board", "show", "9999", "--board", board)
    assert code == 1


def test_a_blocked_build_exits_2_with_the_questions(demo_db: Path, tmp_path: Path) -> None:
    brief = tmp_path / "brief.yaml"
    brief.write_text(SMALL + "  - Индекс лояльности\n", encoding="utf-8")
    code, out = run(
        "build",
        str(brief),
        "--db",
        f"duckdb:///{demo_db}",
        "--board",
        f"sqlite:///{tmp_path / 'b.sqlite'}",
        "--no-browser",
    )
    assert code == 2
    assert "Индекс лояльности" in out and "BRIEF-001" in out


def test_a_broken_brief_names_the_file_and_line(tmp_path: Path) -> None:
    brief = tmp_path / "brief.yaml"
    brief.write_text("title: x\nkpis:\n  - name: [unclosed\n", encoding="utf-8")
    code, out = run("build", str(brief), "--board", f"sqlite:///{tmp_path / 'b.sqlite'}")
    flat = out.replace("\n", "")
    assert code == 1 and f"{brief}:3" in flat and "not valid YAML" in flat and "(line 4)" in flat
    code, out = run(
        "build", str(tmp_path / "missing.yaml"), "--board", f"sqlite:///{tmp_path / 'b.sqlite'}"
    )
    assert code == 1 and "cannot read the brief" in out


def test_the_cli_says_when_the_gate_hands_the_brief_to_a_person(
    demo_db: Path, tmp_path: Path
) -> None:
    """Issue 31: the board said the brief went to a person after two rounds; the CLI did not."""
    brief = tmp_path / "brief.yaml"
    board = f"sqlite:///{tmp_path / 'b.sqlite'}"
    outs = []
    for unknown in ["Индекс лояльности", "NPS", "Счастье клиентов"]:
        brief.write_text(SMALL + f"  - {unknown}\n", encoding="utf-8")
        code, out = run("build", str(brief), "--db", f"duckdb:///{demo_db}", "--board", board,
                        "--no-browser")  # fmt: skip
        assert code == 2, out
        outs.append(out)
    assert all("Ответьте в брифе" in o and "передан человеку" not in o for o in outs[:2])
    assert "handed to a person / передан человеку" in outs[2]
    assert "должен разобрать человек" in outs[2] and "Счастье клиентов" in outs[2]
