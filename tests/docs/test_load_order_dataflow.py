"""Issue 32 item 1: the load order from data flow, sequences checked against it, --order files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from vitrina.cli import main
from vitrina.docs.order_file import parse_order_text
from vitrina.docs.sqlindex import build_index

F = Path(__file__).parent / "fixtures" / "lineage32"
BANK = Path(__file__).parent / "fixtures" / "banking"
PLAIN = [
    "dw.a_loaddimsegment",
    "etl.b_buildstage",
    "etl.a_enrichstage",
    "etl.c_loadfact",
    "etl.d_reconcile",
    "etl.e_adjust",
]


def _order(*folders: Path) -> tuple[list[str], object]:
    index = build_index(list(folders))
    plan = index.order_plan()
    return [n for n in plan.order if not n.startswith("script:")], plan


def test_creator_before_modifier_before_reader_whatever_the_names() -> None:
    order, plan = _order(F / "order_plain")
    # by name A_EnrichStage would come first; it UPDATEs ##Stage, which B_BuildStage creates
    assert order == PLAIN
    assert all(plan.basis[n] == "data" for n in order)  # type: ignore[attr-defined]


def test_a_cycle_is_named_with_its_tables_and_how_it_was_broken() -> None:
    _, plan = _order(F / "order_plain")
    (cycle,) = plan.cycles  # type: ignore[attr-defined]
    assert cycle.members == ["etl.d_reconcile", "etl.e_adjust"]
    assert cycle.tables == ["dw.factsales", "dw.reconciliation"]
    assert cycle.first == "etl.d_reconcile"


def test_unrelated_procedures_do_not_move_the_others(tmp_path: Path) -> None:
    mixed = tmp_path / "mixed"
    shutil.copytree(F / "order_plain", mixed)
    shutil.copytree(F / "unrelated", mixed / "zz_more")
    order, _plan = _order(mixed)
    assert [n for n in order if n in PLAIN] == PLAIN
    assert {"aaa.loadcurrency", "etl.bb_unrelated", "zzz.cleanup"} <= set(order)
    # and moving files around (another folder order) changes nothing
    again, _ = _order(F / "unrelated", F / "order_plain")
    assert again == order


def test_an_orchestrator_is_followed_and_not_put_first_when_it_reads_its_steps() -> None:
    order, plan = _order(F / "order_plain", F / "order_exec")
    steps = ["dw.a_loaddimsegment", "etl.b_buildstage", "etl.a_enrichstage", "etl.c_loadfact"]
    assert order[: len(steps) + 1] == ["etl.runnightly", *steps]
    assert plan.basis["etl.b_buildstage"] == "exec"  # type: ignore[attr-defined]
    # audit.RunAndCount EXECs D_Reconcile and then counts dw.Reconciliation: after its step
    assert order.index("audit.runandcount") > order.index("etl.d_reconcile")
    assert plan.conflicts == []  # type: ignore[attr-defined]


def test_an_orchestrator_against_the_data_is_followed_and_the_conflict_named() -> None:
    order, plan = _order(F / "order_plain", F / "order_conflict")
    assert order.index("etl.c_loadfact") < order.index("etl.b_buildstage")
    assert order.index("etl.b_buildstage") < order.index("etl.a_enrichstage")
    (conflict,) = plan.conflicts  # type: ignore[attr-defined]
    assert (conflict.sequence, conflict.before, conflict.after, conflict.table) == (
        "etl.runwrong",
        "etl.c_loadfact",
        "etl.b_buildstage",
        "##stage",
    )


def test_job_steps_win_over_data_and_the_banking_order_is_right() -> None:
    order, plan = _order(BANK / "sql", BANK / "job")
    assert order == [
        "dw.loadfacttransaction",
        "etl.buildcustomermonthspine",
        "etl.buildmonthlyactivity",
        "etl.buildstagedsnapshot",
        "etl.mergechurnandloyalty",
        "dw.loadfactcustomermonth",
    ]
    assert {plan.basis[n] for n in order} == {"job"}  # type: ignore[attr-defined]
    inferred, plan = _order(BANK / "sql")
    assert inferred == order  # the data flow alone gives the same order
    assert {plan.basis[n] for n in inferred} == {"data"}  # type: ignore[attr-defined]


def test_order_file_lines() -> None:
    text = "# nightly\nEXEC etl.C_LoadFact;\n\n  dw.A_LoadDimSegment -- dims\n"
    assert parse_order_text(text) == [("etl.C_LoadFact", 2), ("dw.A_LoadDimSegment", 4)]


def _docs(tmp_path: Path, *extra: str, lang: str = "en") -> tuple[int, Path]:
    out = tmp_path / f"out-{lang}-{len(extra)}"
    args = ["docs", "--model", str(F / "model.bim"), "--sql", str(F / "order_plain")]
    args += ["--measures", str(_measures(tmp_path)), "--out", str(out), "--lang", lang, *extra]
    try:
        main(args)
        code = 0
    except SystemExit as stop:
        code = int(stop.code or 0)
    return code, out


def _measures(tmp_path: Path) -> Path:
    path = tmp_path / "list.md"
    path.write_text("# Sales\n## [Sales Amount]\n", encoding="utf-8")
    return path


def _positions(text: str, names: list[str]) -> list[int]:
    return [text.index(f"### {n}") for n in names]


def test_the_document_says_the_order_is_inferred_and_names_the_cycle(tmp_path: Path) -> None:
    code, out = _docs(tmp_path)
    assert code == 0
    doc = (out / "measures" / "Sales Amount.md").read_text(encoding="utf-8")
    loaders = doc.split("## Loading procedures", 1)[1]
    assert "Load order inferred from data flow" in loaders
    assert (
        "Cycle in the data flow: etl.D_Reconcile, etl.E_Adjust need each other's output "
        "(tables dw.FactSales, dw.Reconciliation); broken by running etl.D_Reconcile first"
    ) in loaders
    names = ["dw.A_LoadDimSegment", "etl.B_BuildStage", "etl.A_EnrichStage", "etl.C_LoadFact"]
    positions = _positions(loaders, names)
    assert positions == sorted(positions)
    assert "(inferred from data flow)" in loaders
    explanation = doc.split("## What it computes", 1)[1].split("\n## ", 1)[0]
    assert "The load runs the procedures, in the load order inferred from data flow," in explanation
    lineage = json.loads((out / "index.json").read_text(encoding="utf-8"))
    entry = lineage["measures"]["Sales/Sales Amount"]
    notes = entry["lineage"]["order_notes"]
    assert notes[0]["kind"] == "cycle" and notes[0]["first"] == "etl.D_Reconcile"
    code, out_ru = _docs(tmp_path, lang="ru")
    ru = (out_ru / "measures" / "Sales Amount.md").read_text(encoding="utf-8")
    assert "выведен из потоков данных" in ru and "Цикл в потоках данных" in ru


def test_an_order_file_wins_and_is_said(tmp_path: Path) -> None:
    order = tmp_path / "order.txt"
    order.write_text(
        "etl.B_BuildStage\netl.A_EnrichStage\ndw.A_LoadDimSegment\ndbo.NoSuchProc\n",
        encoding="utf-8",
    )
    code, out = _docs(tmp_path, "--order", str(order))
    assert code == 0
    doc = (out / "measures" / "Sales Amount.md").read_text(encoding="utf-8")
    loaders = doc.split("## Loading procedures", 1)[1]
    assert "Load order given by the order file (--order)." in loaders
    assert "in load order (given for some steps, inferred from data flow for the rest)" in doc
    positions = _positions(loaders, ["etl.B_BuildStage", "etl.A_EnrichStage"])
    assert positions == sorted(positions)
    # the file puts the dimension after the enrichment that reads it: followed, and said
    assert loaders.index("### etl.A_EnrichStage") < loaders.index("### dw.A_LoadDimSegment")
    assert "The order file runs etl.A_EnrichStage before dw.A_LoadDimSegment" in loaders
    manual = json.loads((out / "index.json").read_text(encoding="utf-8"))
    assert any(e["line"] == 4 and "dbo.NoSuchProc" in e["message"] for e in manual["sql_errors"]), (
        manual["sql_errors"]
    )


def test_a_missing_order_file_is_one_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _out = _docs(tmp_path, "--order", str(tmp_path / "missing.txt"))
    assert code == 2
    assert "order file not found" in capsys.readouterr().err
