"""The acceptance check: a model Vitrina has never seen, run as a new user would, via the CLI.

`fixtures/unseen/` is a Russian transport company's model (`translog.bim`, compatibility
level 1500, 30 measures) with its SSDT-like warehouse (UTF-8, UTF-8 BOM and UTF-16 LE
files) and a measure list with one misspelled name. The lineage facts asserted here were
checked by hand against the SQL in `fixtures/unseen/warehouse/`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from vitrina.docs.commands import register

UNSEEN = Path(__file__).parent / "fixtures" / "unseen"
MODEL = UNSEEN / "translog.bim"
SQL = UNSEEN / "warehouse"
LIST = UNSEEN / "measures.md"
ENV = {"COLUMNS": "200"}


@pytest.fixture(scope="module")
def app() -> typer.Typer:
    local = typer.Typer()
    register(local)

    @local.callback()
    def _root() -> None:
        """Local root so sub-commands keep their names."""

    return local


def _docs(app: typer.Typer, out: Path, *extra: str, model: Path = MODEL) -> str:
    res = CliRunner().invoke(
        app, ["docs", "--model", str(model), "--sql", str(SQL), "--out", str(out), *extra], env=ENV
    )
    assert res.exit_code == 0, res.output
    return res.output


def _index(out: Path) -> dict[str, Any]:
    return json.loads((out / "index.json").read_text(encoding="utf-8"))


def _lin(index: dict[str, Any], measure: str) -> dict[str, Any]:
    return next(v["lineage"] for v in index["measures"].values() if v["measure"] == measure)


def _names(lin: dict[str, Any]) -> set[str]:
    return {o["name"] for o in lin["sql_objects"]}


def _procs(lin: dict[str, Any]) -> set[str]:
    return {p["name"] for p in lin["procedures"]}


def _edge(lin: dict[str, Any], a: str, b: str) -> bool:
    return any(
        e["source"] == f"s:{a.lower()}" and e["target"] == f"s:{b.lower()}" for e in lin["edges"]
    )


# ------------------------------------------------------------------ Mermaid validator
_SHAPE = re.compile(
    r'^    n\d+(\(\["|\["|\[/"|\[\("|\[\["|\{\{"|>")'
    r'(?P<label>[^"]*)("\]\)|"\]|"/\]|"\)\]|"\]\]|"\}\})$'
)
_EDGE = re.compile(r'^    (?P<a>n\d+) -->(\|"(?P<label>[^"]*)"\|)? (?P<b>n\d+)$')
_MORE = re.compile(r'^    more\["[^"]*"\]$')


def check_mermaid(text: str) -> list[str]:
    """Problems in a Vitrina flowchart: unknown lines, raw brackets/quotes in labels, edges to
    undefined nodes."""
    lines = text.splitlines()
    problems = [] if lines and lines[0] == "flowchart LR" else ["first line is not 'flowchart LR'"]
    defined: set[str] = set()
    for line in lines[1:]:
        node, edge = _SHAPE.match(line), _EDGE.match(line)
        if node:
            defined.add(
                line.split("n", 1)[1]
                .split("[", 1)[0]
                .split("(", 1)[0]
                .split("{", 1)[0]
                .split(">", 1)[0]
            )
            if re.search(r'[\[\]{}<>|"]', node.group("label")):
                problems.append(f"unescaped character in label: {line}")
        elif edge:
            for end in (edge.group("a"), edge.group("b")):
                if end[1:] not in defined:
                    problems.append(f"edge to an undefined node: {line}")
        elif not _MORE.match(line):
            problems.append(f"unexpected line: {line}")
    return problems


def _mermaid_blocks(markdown: str) -> list[str]:
    return re.findall(r"```mermaid\n(.*?)\n```", markdown, re.S)


def test_mermaid_validator_catches_bad_diagrams() -> None:
    assert check_mermaid('flowchart LR\n    n0(["a"])\n    n1["b"]\n    n0 -->|"uses"| n1') == []
    assert check_mermaid('flowchart LR\n    n0["a [b]"]')
    assert check_mermaid('flowchart LR\n    n0["a"]\n    n0 --> n7')
    assert check_mermaid('flowchart LR\n    n0["say "hi""]')


# ------------------------------------------------------------------ the run
def test_measure_list_run_in_russian(app: typer.Typer, tmp_path: Path) -> None:
    out = tmp_path / "ru"
    text = _docs(app, out, "--measures", str(LIST), "--lang", "ru")
    assert (
        "пропущенные меры" in text  # the console speaks the run's language
        and "Просроченная задолженость" in text
        and "Просроченная задолженность" in text
    )
    index = _index(out)
    assert len(index["measures"]) == 10
    missed = index["missed"]
    assert [m["measure"] for m in missed] == ["Просроченная задолженость"]
    assert (
        missed[0]["reason"] == "not found"
        and missed[0]["suggestions"][0] == "Просроченная задолженность"
    )
    manual = (out / "combined_manual.md").read_text(encoding="utf-8")
    assert "## Не задокументированы" in manual and "[Просроченная задолженость]" in manual
    assert "возможно, имелось в виду [Просроченная задолженность]" in manual
    # links only to documents that exist: [Сумма счетов] is not in the list, so it is plain text
    debt = (out / "measures" / "Задолженность поставщику.md").read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^()#\s]+\.md)\)", debt):
        assert (out / "measures" / target.replace("%20", " ")).exists() or "%" in target, target
    assert "[Сумма счетов]" in debt and "](%D0%A1%D1%83%D0%BC%D0%BC%D0%B0" not in debt
    # Russian document: no English warning texts, singular/plural agreement
    load = (out / "measures" / "Загрузка ТС_ pct.md").read_text(encoding="utf-8")
    assert "динамический SQL" in load and "known only at run time" not in load
    assert "Она опирается на меру [Вес, т]." in load
    csv = (out / "measures" / "Рейтинг Потенциал.md").read_text(encoding="utf-8")
    assert "неподдерживаемый источник Csv.Document" in csv and "lineage stops here" not in csv


def test_all_measures_lineage_facts(app: typer.Typer, tmp_path: Path) -> None:
    out = tmp_path / "all"
    _docs(app, out, "--all", "--lang", "ru")
    index = _index(out)
    assert len(index["measures"]) == 30 and index["missed"] == []
    assert len(list((out / "measures").glob("*.md"))) == 30

    trips = _lin(index, "Кол-во рейсов")
    assert {
        "dbo.vTripReport",
        "dwh.vTrip",
        "dwh.FactTrip",
        "dwh.DimRoute",
        "stg.Trips_Raw",
    } <= _names(trips)
    assert {"dwh.LoadFactTrip", "dwh.LoadDimRoute"} <= _procs(trips)
    assert _edge(
        trips, "dwh.LoadFactTrip", "stg.Trips_Raw"
    )  # through #trips -> #trips_keyed -> MERGE
    assert _edge(trips, "dwh.LoadDimRoute", "dwh.TariffCurrent") and _edge(
        trips, "dwh.LoadTariff", "stg.Tariffs_Raw"
    )
    assert (
        trips["level"] == "table"
    )  # COUNTROWS reads no column, but the table has a warehouse source

    debt = _lin(index, "Задолженность поставщику")
    assert debt["direct_measures"] == ["Оплачено", "Сумма счетов"]
    depth0 = {o["name"] for o in debt["sql_objects"] if o["depth"] == 0}
    assert depth0 == {"dwh.vSupplierInvoice", "dwh.vPayment"}  # the query partition joins two views
    assert {"dwh.LoadSupplierInvoice", "dwh.LoadSupplier", "dwh.LoadPayment"} <= _procs(debt)
    assert _edge(debt, "dwh.LoadSupplierInvoice", "stg.Invoices_Raw")
    assert _edge(debt, "dwh.LoadSupplier", "stg.Контрагенты_1С")  # UTF-16 file, Cyrillic names
    assert _edge(debt, "dwh.LoadPayment", "stg.Payments_Raw")

    qty = _lin(index, "Кол-во")  # Value.NativeQuery over a view
    assert _edge(qty, "dwh.LoadShipment", "stg.Shipments_Raw") and qty["level"] == "column"
    kinds = {x["kind"] for p in qty["procedures"] for x in p["excerpts"]}
    assert {"truncate", "insert"} <= kinds

    tariff = _lin(index, "Средний тариф")  # Table.Combine of two navigations
    assert {o["name"] for o in tariff["sql_objects"] if o["depth"] == 0} == {
        "dwh.TariffCurrent",
        "dwh.TariffArchive",
    }

    rating = _lin(index, "Рейтинг Потенциал")
    assert any(
        n["kind"] == "unsupported"
        and "Csv.Document" in n["label"]
        and "potential.csv" in n["label"]
        for n in rating["nodes"]
    )
    assert rating["sql_objects"] == []

    vehicles = _lin(index, "Загрузка ТС, %")
    loader = next(p for p in vehicles["procedures"] if p["name"] == "dbo.LoadDimVehicle")
    assert loader["dynamic_sql"] and any("dynamic SQL" in w for w in vehicles["warnings"])

    assert any(
        "'Рейсы'[Пробег старый]" in u for u in _lin(index, "Старый KPI пробега")["unresolved"]
    )
    assert any(
        "USERELATIONSHIP" in r for r in _lin(index, "Рейсы по дате прибытия")["relationships"]
    )
    assert any("DATESYTD" in t for t in _lin(index, "Рейсы с начала года")["time_intelligence"])
    assert any(
        "SAMEPERIODLASTYEAR" in t for t in _lin(index, "Рост рейсов, %")["time_intelligence"]
    )
    assert any(
        n["kind"] == "source" for n in _lin(index, "Дней в периоде")["nodes"]
    )  # calculated table named

    for doc in (out / "measures").glob("*.md"):
        text = doc.read_text(encoding="utf-8")
        blocks = _mermaid_blocks(text)
        assert len(blocks) == 1, doc.name
        assert check_mermaid(blocks[0]) == [], doc.name
    marza = (out / "measures" / "Маржа _план.md").read_text(encoding="utf-8")
    assert "01.02.2024) */\n[Выручка] * 0.65" in marza  # a multi-line block comment ends its line


def test_english_run_and_lineage_command(app: typer.Typer, tmp_path: Path) -> None:
    out = tmp_path / "en"
    _docs(app, out, "--all", "--lang", "en")
    doc = (out / "measures" / "Загрузка ТС_ pct.md").read_text(encoding="utf-8")
    assert "## Warnings" in doc and "dynamic SQL at line(s) 9" in doc
    res = CliRunner().invoke(
        app, ["lineage", "[Кол-во рейсов]", "--model", str(MODEL), "--sql", str(SQL)], env=ENV
    )
    assert res.exit_code == 0, res.output
    assert (
        "dwh.LoadFactTrip" in res.output
        and "stg.Trips_Raw" in res.output
        and "dbo.vTripReport" in res.output
    )
    assert "lineage level: table" in res.output


def test_rerun_keeps_unchanged_and_rewrites_only_dependents(
    app: typer.Typer, tmp_path: Path
) -> None:
    out = tmp_path / "inc"
    _docs(app, out, "--all")
    before = {k: v["hash"] for k, v in _index(out)["measures"].items()}
    _docs(app, out, "--all")
    assert {k: v["hash"] for k, v in _index(out)["measures"].items()} == before
    data = json.loads(MODEL.read_text(encoding="utf-8"))
    trips = next(t for t in data["model"]["tables"] if t["name"] == "Рейсы")
    next(m for m in trips["measures"] if m["name"] == "Кол-во рейсов")["expression"] = (
        "COUNTROWS ( 'Рейсы' ) + 0"
    )
    edited = tmp_path / "translog.bim"
    edited.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    shutil.copytree(out, tmp_path / "inc2")
    _docs(app, tmp_path / "inc2", "--all", model=edited)
    after = {k: v["hash"] for k, v in _index(tmp_path / "inc2")["measures"].items()}
    changed = {k.split("/", 1)[1] for k in before if before[k] != after[k]}
    assert changed == {
        "Кол-во рейсов",
        "Средний пробег",
        "Рейсы по дате прибытия",
        "Рейсы с начала года",
        "Рейсы прошлый год",
        "Рост рейсов, %",
        'Рейсы "Экспресс"',
        "Рейсы без отмен",
        "Старый KPI пробега",
        "Вес на рейс",
        "Рейсов на ТС",
    }


_HASHES = """
import json, sys
from vitrina.docs.document import content_hash
from vitrina.docs.lineage import build_lineage
from vitrina.docs.workspace import Workspace
ws = Workspace.load(sys.argv[1], [sys.argv[2]])
print(json.dumps({m.name: content_hash(ws, build_lineage(ws, m), ["t"], "en") for m in ws.model.measures}))
"""  # noqa: E501


def test_content_hash_does_not_depend_on_the_hash_seed() -> None:
    """Set order must not leak into the lineage: a rerun in a new process rewrites nothing."""
    runs = []
    for seed in ("0", "1", "42"):  # 0 (no randomisation) and 1 order these sets differently
        env = {**os.environ, "PYTHONHASHSEED": seed}
        res = subprocess.run(
            [sys.executable, "-c", _HASHES, str(MODEL), str(SQL)],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        runs.append(json.loads(res.stdout))
    assert runs[0] == runs[1] == runs[2]
