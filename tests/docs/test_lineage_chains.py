"""Issue 16: lineage across procedures, loaders without DDL, named warnings, run files, agents."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vitrina.cli import app
from vitrina.config import load_settings
from vitrina.docs.agent import AgentRunner
from vitrina.docs.dax.syntax import check
from vitrina.docs.graph import DocsContext
from vitrina.docs.model import load_model
from vitrina.docs.run import make_request, run_docs

FIXTURES = Path(__file__).parent / "fixtures"
BANK = FIXTURES / "banking"
FAKE_AGENT = Path(__file__).parent / "fake_agent.py"
CHAIN = [
    "etl.BuildCustomerMonthSpine",
    "etl.BuildMonthlyActivity",
    "etl.BuildStagedSnapshot",
    "etl.MergeChurnAndLoyalty",
]


def _docs(tmp_path: Path, model: Path, sql: list[Path], **kw: object) -> tuple[object, Path]:
    out = tmp_path / "out"
    report = run_docs(
        make_request(model, sql, out=out, measures_file=kw.pop("measures_file", None)), **kw
    )
    return report, out


def _doc(out: Path, name: str) -> str:
    return (out / "measures" / f"{name}.md").read_text(encoding="utf-8")


def test_banking_chain_names_every_procedure_expression_and_upstream_load(tmp_path: Path) -> None:
    report, out = _docs(tmp_path, BANK / "model.bim", [BANK / "sql", BANK / "job"])
    assert report.missed == []
    churn = _doc(out, "Churned Customers")
    for proc in [*CHAIN, "dw.LoadFactCustomerMonth", "dw.LoadFactTransaction"]:
        assert f"### {proc}" in churn, proc
    assert (
        "CASE WHEN DATEDIFF(DAY, s.LastTxnDate, EOMONTH(s.LastTxnDate)) > 90 THEN 1 ELSE 0 END"
        in churn
    )
    assert "##StagedSnapshot.ChurnFlag" in churn and "MAX(t.TxnDate)" in churn
    loyalty = _doc(out, "Average Loyalty")
    assert "s.TxnCount * 0.5 + CASE WHEN s.TxnCount >= 10 THEN 5 ELSE 0 END" in loyalty
    # the explanation lists every procedure, in the job's step order
    explanation = churn.split("## What it computes", 1)[1].split("##", 1)[0]
    order = ["dw.LoadFactTransaction", *CHAIN, "dw.LoadFactCustomerMonth"]
    assert [explanation.index(p) for p in order] == sorted(explanation.index(p) for p in order)
    assert "Called by:** script job/nightly_job.sql" in churn


def test_banking_chain_without_a_job_is_ordered_by_data(tmp_path: Path) -> None:
    _report, out = _docs(tmp_path, BANK / "model.bim", [BANK / "sql"])
    text = _doc(out, "Churned Customers")
    positions = {
        p: text.index(f"### {p}")
        for p in [*CHAIN, "dw.LoadFactCustomerMonth", "dw.LoadFactTransaction"]
    }
    assert positions["dw.LoadFactTransaction"] < positions["etl.BuildMonthlyActivity"]
    assert positions["etl.BuildCustomerMonthSpine"] < positions["etl.BuildStagedSnapshot"]
    assert positions["etl.BuildMonthlyActivity"] < positions["etl.BuildStagedSnapshot"]
    assert max(positions.values()) == positions["dw.LoadFactCustomerMonth"]


def test_editing_the_churn_procedure_changes_the_document(tmp_path: Path) -> None:
    sql = tmp_path / "sql"
    sql.mkdir()
    for f in (BANK / "sql").glob("*.sql"):
        (sql / f.name).write_bytes(f.read_bytes())
    out = tmp_path / "out"
    run_docs(make_request(BANK / "model.bim", [sql], out=out))
    merge = sql / "MergeChurnAndLoyalty.sql"
    merge.write_text(merge.read_text(encoding="utf-8").replace("> 90", "> 60"), encoding="utf-8")
    report = run_docs(make_request(BANK / "model.bim", [sql], out=out))
    assert "measures/Churned Customers.md" in report.created
    assert "> 60 THEN 1" in _doc(out, "Churned Customers")


def test_loaders_without_ddl_are_all_found(tmp_path: Path) -> None:
    report, out = _docs(
        tmp_path, FIXTURES / "loaders" / "model.bim", [FIXTURES / "loaders" / "sql"]
    )
    expected = {
        "Amount Total": ["dw.LoadFact1", "dw.AdjustFact1"],
        "Qty Total": ["dw.LoadFact2", "dw.LoadFact2FromFile"],
        "Fact3 Rows": ["dw.LoadFact3"],
        "DimA Codes": ["dw.LoadDimA"],
        "DimB Codes": ["dw.RebuildDimB"],
    }
    for measure, procs in expected.items():
        text = _doc(out, measure)
        assert "not found in the SQL folder" not in text and "(no DDL in SQL folder)" in text
        for proc in procs:
            assert f"### {proc}" in text, (measure, proc)
    everything = _doc(out, "Everything").split("## What it computes", 1)[1].split("##", 1)[0]
    assert all(p in everything for ps in expected.values() for p in ps)  # all seven, no cut
    assert "file 'D:\\feeds\\fact3.csv' (BULK INSERT)" in _doc(out, "Fact3 Rows")
    assert "OPENROWSET('D:\\feeds\\fact2.csv')" in _doc(out, "Qty Total")
    assert any(
        "stg.Fact1_Staging is read but nothing in the SQL folder writes it" in w
        for w in report.warnings
    )


BROKEN = {
    "Missing Paren": (1, 10),
    "Missing Bracket": (1, 12),
    "Open String": (1, 27),
    "Stray Plus": (1, 23),
}


def test_broken_dax_each_gets_one_named_warning(tmp_path: Path) -> None:
    report, out = _docs(tmp_path, FIXTURES / "brokendax.bim", [FIXTURES / "badfiles"])
    syntax = [w for w in report.warnings if w.startswith("DAX syntax error")]
    assert len(syntax) == len(BROKEN)
    for name, (line, col) in BROKEN.items():
        (hit,) = [w for w in syntax if f"[{name}]" in w]
        assert f"line {line}, column {col}" in hit
        assert hit in _doc(out, name)
    assert "DAX syntax error" not in _doc(out, "Fine")


def test_the_syntax_check_agrees_with_pbi_parsers(shared_fixtures: Path) -> None:
    dax = pytest.importorskip(
        "pbi_parsers.dax", reason="pbi-parsers is the reference parser (dev dependency)"
    )
    expressions = [m.expression for m in load_model(FIXTURES / "brokendax.bim").measures]
    for path in [
        "tabular/adventureworks-te.bim",
        "tabular/sample-pbip-tmdl",
        "wwi/model/Model.bim",
        "tabular/adventureworks-m-partitions.bim",
    ]:
        expressions += [m.expression for m in load_model(shared_fixtures / path).measures]
    for expression in expressions:
        try:
            theirs = dax.to_ast(expression) is not None
        except (ValueError, AssertionError):
            theirs = False
        assert (check(expression) is None) == theirs, expression


def test_bad_sql_files_are_named_in_console_manual_and_index(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        [
            "docs",
            "--model",
            str(FIXTURES / "brokendax.bim"),
            "--sql",
            str(FIXTURES / "badfiles"),
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    manual = (
        (out / "combined_manual.md")
        .read_text(encoding="utf-8")
        .split('<a id="warnings"></a>', 1)[1]
    )
    index = json.loads((out / "index.json").read_text(encoding="utf-8"))
    for name, why in (("logo.sql", "binary data"), ("README.sql", "no SQL statement")):
        assert sum(name in line and why in line for line in result.output.splitlines()) == 1
        assert sum(name in line and why in line for line in manual.splitlines()) == 1
        assert (
            sum(e["file"].endswith(name) and why in e["message"] for e in index["sql_errors"]) == 1
        )


def test_calculated_columns_and_tables_are_documented_with_formulas(tmp_path: Path) -> None:
    _report, out = _docs(tmp_path, BANK / "model.bim", [BANK / "sql"])
    assert "IF('Customer'[Segment] = \"Premium\", 1, 0)" in _doc(out, "Premium Balance")
    band = _doc(out, "Band Count")
    assert "Calculated table" in band and 'DATATABLE("Band", STRING' in band


def test_empty_model_gets_a_note(tmp_path: Path) -> None:
    model = tmp_path / "empty.bim"
    model.write_text(
        json.dumps({"name": "Empty", "model": {"tables": [{"name": "T", "columns": []}]}}),
        encoding="utf-8",
    )
    report, out = _docs(tmp_path, model, [])
    assert "The model has no measures" in (out / "combined_manual.md").read_text(encoding="utf-8")
    assert any("no measures" in w for w in report.warnings)


def test_truncated_document_is_rewritten_and_unchanged_rerun_does_no_work(tmp_path: Path) -> None:
    request = make_request(BANK / "model.bim", [BANK / "sql"], out=tmp_path / "out")
    first = run_docs(request)
    assert len(first.created) == 8
    again = run_docs(request)
    assert again.skipped and again.created == [] and len(again.unchanged) == 8
    doc = tmp_path / "out" / "measures" / "Churn Rate.md"
    doc.write_text(doc.read_text(encoding="utf-8")[:300], encoding="utf-8")  # a write cut short
    third = run_docs(request)
    assert (
        not third.skipped
        and third.created == ["measures/Churn Rate.md"]
        and len(third.unchanged) == 7
    )
    leftovers = [p.name for p in (tmp_path / "out").rglob("*.tmp")]
    assert leftovers == []


def test_a_measure_in_two_topics_is_listed_in_each(tmp_path: Path) -> None:
    listing = tmp_path / "list.md"
    listing.write_text(
        "# Churn\n## [Churn Rate], [Churned Customers]\n# Board\n## [Churn Rate]\n",
        encoding="utf-8",
    )
    report, out = _docs(tmp_path, BANK / "model.bim", [BANK / "sql"], measures_file=listing)
    assert sorted(report.processed) == ["Churn Rate", "Churned Customers"]
    manual = (out / "combined_manual.md").read_text(encoding="utf-8")
    board = manual.split("## Board", 1)[1]
    assert "[[Churn Rate]]" in board and "documented under the topic Churn" in board
    entry = json.loads((out / "index.json").read_text(encoding="utf-8"))["measures"][
        "Customer Month/Churn Rate"
    ]
    assert entry["topics"] == ["Churn", "Board"]


def test_checkpoints_stay_small_as_the_run_grows(tmp_path: Path) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "bench_docs", Path(__file__).parents[2] / "benchmarks/bench_docs.py"
    )
    bench = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(bench)  # type: ignore[union-attr]
    model, sql = bench.generate(tmp_path / "gen", n_measures=240, n_tables=6)
    db = load_settings().home / "checkpoints" / "docs.sqlite"
    sizes: list[int] = []

    def probe(_kind: str, done: int, _total: int, _name: str) -> None:
        if done % 40 == 0 and db.exists():
            with sqlite3.connect(db) as conn:
                sizes.append(
                    conn.execute("SELECT MAX(LENGTH(checkpoint)) FROM checkpoints").fetchone()[0]
                    or 0
                )

    report = run_docs(make_request(model, [sql], out=tmp_path / "out"), on_progress=probe)
    assert len(report.processed) == 240 and len(sizes) >= 5
    assert (
        max(sizes) < 4_000 and max(sizes) - min(sizes) < 500
    )  # pointers only: no growth with the run


# ---------------------------------------------------------------- LLM wording and measure list
def _client(scripts: dict[str, list[object]]) -> object:
    from vitrina.llm.client import LLMClient
    from vitrina.llm.fake import ScriptedChatModel

    return LLMClient(ScriptedChatModel(scripts), timeout_s=5, max_retries=0)


def test_llm_wording_is_checked_against_the_lineage(tmp_path: Path) -> None:
    from vitrina.docs.llm import wording_explainer

    good = (
        "[Churn Rate] divides [Churned Customers] by the distinct 'Customer Month'[Customer "
        "Key] values."
    )
    bad = "[Churn Rate] divides [Churned Customers] by 12 customers from dw.FactChurnHistory."
    client = _client({"docs_explain": [good, bad]})
    listing = tmp_path / "l.md"
    listing.write_text("# A\n## [Churn Rate]\n# B\n## [Churn All Segments]\n", encoding="utf-8")
    report, out = _docs(
        tmp_path,
        BANK / "model.bim",
        [BANK / "sql"],
        measures_file=listing,
        context=DocsContext(explain=wording_explainer(client)),
    )
    assert good in _doc(out, "Churn Rate")
    kept = _doc(out, "Churn All Segments")
    assert "dw.FactChurnHistory" not in kept and "[Churn All Segments] computes" in kept
    rejected = [e["data"] for e in report.trace if e["kind"] == "rejected" and "added" in e["data"]]
    assert [d["measure"] for d in rejected] == ["Churn All Segments"]
    assert {"12", "dw.FactChurnHistory"} <= set(rejected[0]["added"])


def test_llm_wording_that_loses_the_formula_is_rejected(tmp_path: Path) -> None:
    from vitrina.docs.llm import wording_explainer

    vague = "This measure shows how many customers leave, which matters to the business."
    client = _client({"docs_explain": [vague]})
    listing = tmp_path / "l.md"
    listing.write_text("# A\n## [Churn Rate]\n", encoding="utf-8")
    report, out = _docs(
        tmp_path,
        BANK / "model.bim",
        [BANK / "sql"],
        measures_file=listing,
        context=DocsContext(explain=wording_explainer(client)),
    )
    kept = _doc(out, "Churn Rate")
    assert vague not in kept and "[Churn Rate] computes" in kept
    rejected = [
        e["data"] for e in report.trace if e["kind"] == "rejected" and "dropped" in e["data"]
    ]
    assert rejected and {"[Churned Customers]", "[Customer Key]"} <= set(rejected[0]["dropped"])


def test_llm_wording_that_changes_an_operator_is_rejected(tmp_path: Path) -> None:
    """Every name and number kept, the division told as a multiplication: a wrong measure
    (issue 36); the rules text is kept and the trace names the operation."""
    from vitrina.docs.llm import wording_explainer

    times = (
        "[Churn Rate] multiplies [Churned Customers] by the distinct 'Customer Month'[Customer "
        "Key] values."
    )
    client = _client({"docs_explain": [times]})
    listing = tmp_path / "l.md"
    listing.write_text("# A\n## [Churn Rate]\n", encoding="utf-8")
    report, out = _docs(
        tmp_path,
        BANK / "model.bim",
        [BANK / "sql"],
        measures_file=listing,
        context=DocsContext(explain=wording_explainer(client)),
    )
    kept = _doc(out, "Churn Rate")
    assert times not in kept and "[Churn Rate] computes" in kept
    rejected = [
        e["data"] for e in report.trace if e["kind"] == "rejected" and "operators" in e["data"]
    ]
    assert [d["operators"] for d in rejected] == [["multiplication"]]


def test_llm_measure_list_drops_invented_names(tmp_path: Path) -> None:
    from vitrina.docs.llm import measure_list_llm

    reply = {"topics": [{"topic": "Churn", "measures": ["Churn Rate", "Invented Measure"]}]}
    listing = tmp_path / "free.txt"
    listing.write_text(
        "Please document the churn rate measure (Churn Rate) for the board.", encoding="utf-8"
    )
    report, _out = _docs(
        tmp_path,
        BANK / "model.bim",
        [],
        measures_file=listing,
        context=DocsContext(list_llm=measure_list_llm(_client({"docs_measure_list": [reply]}))),
    )
    assert report.processed == ["Churn Rate"] and report.missed == []
    dropped = [
        e["data"]["names"] for e in report.trace if e["kind"] == "rejected" and "names" in e["data"]
    ]
    assert dropped == [["Invented Measure"]]


# ---------------------------------------------------------------- agent delegation
def _agent_cmd() -> str:
    return f"{sys.executable} {FAKE_AGENT}"


def _listing(tmp_path: Path, *names: str) -> Path:
    path = tmp_path / "list.md"
    path.write_text("# T\n## " + ", ".join(f"[{n}]" for n in names) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("ok", None),
        ("slow", "timeout"),
        ("nofile", "agent"),
        ("wrongname", "agent"),
        ("fail", "agent"),
        ("flood", None),
    ],
)
def test_agent_results_are_validated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str, reason: str | None
) -> None:
    monkeypatch.setenv("FAKE_AGENT_MODE", mode)
    runner = AgentRunner(_agent_cmd(), timeout_s=2)
    report, out = _docs(
        tmp_path,
        BANK / "model.bim",
        [BANK / "sql"],
        agent=runner,
        measures_file=_listing(tmp_path, "Churn Rate"),
    )
    if reason is None:
        assert report.processed == ["Churn Rate"]
        assert "Written by the fake agent (facts present)" in _doc(out, "Churn Rate")
    else:
        (missed,) = report.missed
        assert missed["measure"] == "Churn Rate" and missed["reason"] == reason
        assert report.processed == []


def test_agent_presets_run_the_real_command_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for program in ("cursor-agent", "claude", "codex"):
        shim = bin_dir / program
        shim.write_text(f'#!/bin/sh\nexec {sys.executable} {FAKE_AGENT} "$@"\n', encoding="utf-8")
        shim.chmod(shim.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    argv_file = tmp_path / "argv.json"
    monkeypatch.setenv("FAKE_AGENT_ARGV", str(argv_file))
    # unconfined, so the stand-in can write down its argv (test_agent_honest covers the
    # read-only sandbox)
    monkeypatch.setattr("vitrina.docs.agent.sandbox_works", lambda: False)
    expected = {
        "cursor": ["--print", "--force", "--output-format", "text", "--model", "auto"],
        "claude": ["-p"],
        "codex": ["exec"],
    }
    for preset, args in expected.items():
        report, _ = _docs(
            tmp_path / preset,
            BANK / "model.bim",
            [],
            agent=AgentRunner(preset),
            measures_file=_listing(tmp_path, "Churn Rate", "Band Count"),
        )
        assert sorted(report.processed) == ["Band Count", "Churn Rate"]
        assert json.loads(argv_file.read_text(encoding="utf-8")) == args


def test_agent_cli_option_and_a_missing_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_AGENT_MODE", "ok")
    runner = CliRunner()
    ok = runner.invoke(
        app,
        [
            "docs",
            "--model",
            str(BANK / "model.bim"),
            "--out",
            str(tmp_path / "o"),
            "--measures",
            str(_listing(tmp_path, "Churn Rate")),
            "--agent",
            _agent_cmd(),
            "--agent-timeout",
            "30",
        ],
    )
    assert ok.exit_code == 0, ok.output
    assert "Written by the fake agent" in (tmp_path / "o" / "measures" / "Churn Rate.md").read_text(
        encoding="utf-8"
    )
    monkeypatch.setenv("PATH", str(tmp_path))
    missing = runner.invoke(
        app,
        [
            "docs",
            "--model",
            str(BANK / "model.bim"),
            "--out",
            str(tmp_path / "p"),
            "--agent",
            "cursor",
        ],
    )
    assert missing.exit_code == 2 and "cursor-agent" in missing.output
