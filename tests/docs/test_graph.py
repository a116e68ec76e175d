"""The docs graph end to end: every fixture, resume after interruption, unchanged measures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vitrina.config import load_settings
from vitrina.docs.graph import DocsContext
from vitrina.docs.measure_list import measure_list_from_text, parse_measure_list
from vitrina.docs.model import load_model
from vitrina.docs.run import make_request, run_docs
from vitrina.trace import Trace

FIXTURES = Path(__file__).parent / "fixtures"


def _count_measures(path: Path) -> int:
    """Counted from the files themselves, not through our reader."""
    if path.is_dir():
        return sum(
            sum(
                1
                for line in f.read_text(encoding="utf-8-sig").splitlines()
                if line.startswith("\tmeasure ")
            )
            for f in path.rglob("*.tmdl")
        )
    data = json.loads(path.read_text(encoding="utf-8-sig"))
    return sum(len(t.get("measures", [])) for t in data["model"].get("tables", []))


def _run(model: Path, out: Path, sql: list[Path] | None = None, **kw: object) -> object:
    return run_docs(
        make_request(
            model,
            sql or [],
            out=out,
            lang=kw.pop("lang", "en"),
            measures_file=kw.pop("measures_file", None),
        ),
        **kw,
    )  # type: ignore[arg-type]


SHARED_MODELS = [
    ("tabular/adventureworks-te.bim", None),
    ("tabular/allproperties-te.bim", None),
    ("tabular/pqsource-te.bim", None),
    ("tabular/adventureworks-m-partitions.bim", None),
    ("tabular/sample-pbip-tmdl", None),
    ("wwi/model/Model.bim", "wwi/dw-ssdt"),
    ("tabular/adventureworks-te.bim", "sql/adventureworksdw-instawdbdw.sql"),
]


@pytest.mark.parametrize(("model", "sql"), SHARED_MODELS)
def test_every_measure_of_every_fixture_documented(
    shared_fixtures: Path, tmp_path: Path, model: str, sql: str | None
) -> None:
    path = shared_fixtures / model
    expected = _count_measures(path)
    report = _run(path, tmp_path / "out", [shared_fixtures / sql] if sql else [])
    assert len(report.processed) == expected and report.missed == []
    docs = list((tmp_path / "out" / "measures").glob("*.md")) if expected else []
    assert len(docs) == expected
    index = json.loads((tmp_path / "out" / "index.json").read_text(encoding="utf-8"))
    assert len(index["measures"]) == expected
    manual = (tmp_path / "out" / "combined_manual.md").read_text(encoding="utf-8")
    for m in load_model(path).measures:
        assert f"[{m.name}]" in manual


def test_wwi_documents_name_loader_and_staging(shared_fixtures: Path, tmp_path: Path) -> None:
    _run(
        shared_fixtures / "wwi/model/Model.bim",
        tmp_path,
        [shared_fixtures / "wwi/dw-ssdt"],
        lang="ru",
    )
    text = (tmp_path / "measures" / "Total Sales.md").read_text(encoding="utf-8")
    assert "## Процедуры загрузки" in text and "integration.migratestagedsaledata" in text.lower()
    assert "integration.sale_staging" in text.lower() and "```mermaid" in text and "```sql" in text
    index = json.loads((tmp_path / "index.json").read_text(encoding="utf-8"))
    lin = index["measures"]["Fact Sale/Total Sales"]["lineage"]
    assert any(p["name"].lower() == "integration.migratestagedsaledata" for p in lin["procedures"])


def test_small_model_documents(tmp_path: Path) -> None:
    report = _run(FIXTURES / "small.bim", tmp_path, [FIXTURES / "warehouse"])
    assert len(report.processed) == 11
    doc = (tmp_path / "measures" / "Average Price.md").read_text(encoding="utf-8")
    assert "[[Total Amount]](Total%20Amount.md)" in doc  # a relative link to the other document
    assert "etl.loadsales" in doc.lower() and "## Loading procedures" in doc
    broken = (tmp_path / "measures" / "Broken Ref.md").read_text(encoding="utf-8")
    assert (
        "unresolved reference [No Such Measure]" in broken
        and "unsupported source Excel.Workbook" in broken
    )
    manual = (tmp_path / "combined_manual.md").read_text(encoding="utf-8")
    assert "## Contents" in manual and "(#m-" in manual and "Total%20Amount.md" not in manual


def test_measure_list_topics_and_missed_with_suggestions(tmp_path: Path) -> None:
    lst = tmp_path / "list.md"
    lst.write_text(
        "# Продажи\n## [Кол-во], [Рейтинг Потенциал]\n# Транспорт\n## [Кол-во рейсов], "
        "[Кол-во рейсв]\n",
        encoding="utf-8",
    )
    report = _run(FIXTURES / "small-tmdl", tmp_path / "out", measures_file=lst, lang="ru")
    assert sorted(report.processed) == sorted(["Кол-во", "Рейтинг Потенциал", "Кол-во рейсов"])
    (missed,) = report.missed
    assert missed["reason"] == "not found" and "Кол-во рейсов" in missed["suggestions"]
    manual = (tmp_path / "out" / "combined_manual.md").read_text(encoding="utf-8")
    assert manual.index("## Продажи") < manual.index("## Транспорт")
    index = json.loads((tmp_path / "out" / "index.json").read_text(encoding="utf-8"))
    assert index["missed"][0]["measure"] == "Кол-во рейсв"


def test_unchanged_measures_are_not_regenerated(tmp_path: Path) -> None:
    model = tmp_path / "m.bim"
    model.write_bytes((FIXTURES / "small.bim").read_bytes())
    first = _run(model, tmp_path / "out", [FIXTURES / "warehouse"])
    assert len(first.created) == 11
    second = _run(model, tmp_path / "out", [FIXTURES / "warehouse"])
    assert second.created == [] and len(second.unchanged) == 11 and not second.resumed
    model.write_text(
        model.read_text(encoding="utf-8-sig").replace(
            "SUM('Sales'[Quantity]) // units", "SUM('Sales'[Quantity])"
        ),
        encoding="utf-8",
    )
    third = _run(model, tmp_path / "out", [FIXTURES / "warehouse"])
    # the changed measure and the one that depends on it
    assert sorted(third.created) == ["measures/Average Price.md", "measures/Total Quantity.md"]


def test_interrupted_run_resumes_and_skips_finished(tmp_path: Path) -> None:
    calls: list[str] = []

    def crash_on_third(_kind: str, done: int, _total: int, name: str) -> None:
        calls.append(name)
        if len(calls) == 3:
            raise KeyboardInterrupt("simulated crash")

    request = make_request(FIXTURES / "small.bim", [FIXTURES / "warehouse"], out=tmp_path / "out")
    with pytest.raises(KeyboardInterrupt):
        run_docs(request, on_progress=crash_on_third)
    calls.clear()
    report = run_docs(request, on_progress=lambda k, d, t, n: calls.append(n))
    assert report.resumed
    # three measures were in the ledger when the crash came (the third was recorded before its
    # progress call raised): none of them is documented again, and the counts are exact
    assert len(calls) == 11 - 3
    assert len(report.processed) == 11 and report.missed == [] and len(report.created) == 11
    assert json.loads((tmp_path / "out" / "index.json").read_text(encoding="utf-8"))["measures"]


def test_timeout_is_a_missed_reason(tmp_path: Path) -> None:
    report = _run(FIXTURES / "small.bim", tmp_path, measure_timeout_s=-1)
    assert report.processed == [] and {m["reason"] for m in report.missed} == {"timeout"}


def test_explain_slot_and_its_failure(tmp_path: Path) -> None:
    ctx = DocsContext(explain=lambda req: f"LLM: {req.rules_text}")
    run_docs(make_request(FIXTURES / "small.bim", out=tmp_path / "a"), context=ctx)
    assert "LLM: [Total Amount] computes" in (tmp_path / "a/measures/Total Amount.md").read_text(
        encoding="utf-8"
    )

    def broken(_req: object) -> str:
        raise RuntimeError("model down")

    report = run_docs(
        make_request(FIXTURES / "small.bim", out=tmp_path / "b"),
        context=DocsContext(explain=broken),
    )
    assert "[Total Amount] computes the sum of" in (
        tmp_path / "b/measures/Total Amount.md"
    ).read_text(encoding="utf-8")
    assert any(e["kind"] == "suppressed" for e in report.trace)


def test_measure_list_parser_and_llm_fallback() -> None:
    text = (
        "# Продажи\n## [Кол-во], [Рейтинг Потенциал]\n# Транспорт\n## [Кол-во рейсов]\nfree "
        "text line\n- [Extra ]]x]]]"
    )
    trace = Trace("t")
    parsed = parse_measure_list(text, trace=trace)
    assert parsed.flat() == [
        ("Продажи", "Кол-во"),
        ("Продажи", "Рейтинг Потенциал"),
        ("Транспорт", "Кол-во рейсов"),
        ("Транспорт", "Extra ]x]"),
    ]
    assert any(e.kind == "rejected" for e in trace.events)
    trace = Trace("t")
    assert measure_list_from_text(text, llm=lambda t: "not json", trace=trace).flat()[0] == (
        "Продажи",
        "Кол-во",
    )
    assert any(e.kind == "suppressed" for e in trace.events)
    good = json.dumps({"topics": [{"topic": "A", "measures": ["X"]}]})
    assert measure_list_from_text("please document X", llm=lambda t: good).flat() == [("A", "X")]


def test_checkpoints_live_under_vitrina_home(tmp_path: Path) -> None:
    _run(FIXTURES / "small.bim", tmp_path / "out")
    assert (load_settings().home / "checkpoints" / "docs.sqlite").is_file()
