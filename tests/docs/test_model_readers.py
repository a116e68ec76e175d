"""The .bim and TMDL readers on our own fixtures, the shared fixtures and broken input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vitrina.docs.errors import DocsInputError, ModelReadError
from vitrina.docs.model import load_model
from vitrina.docs.model.bim import model_from_json
from vitrina.docs.model.tmdl import parse_tmdl

FIXTURES = Path(__file__).parent / "fixtures"


def test_small_bim_every_construct() -> None:
    assert (FIXTURES / "small.bim").read_bytes().startswith(b"\xef\xbb\xbf")  # BOM on purpose
    m = load_model(FIXTURES / "small.bim")
    assert m.compatibility_level == 1600
    assert len(m.measures) == 11
    avg = m.measure("Average Price")
    assert (
        avg is not None
        and avg.expression == "DIVIDE (\n    [Total Amount],\n    [Total Quantity]\n)"
    )  # list of lines
    total = m.measure("Total Amount")
    assert (
        total.description == "Sum of the sale amounts"
        and total.format_string == "#,0.00"
        and total.display_folder == "Sales"
    )
    kinds = {t.name: [p.kind for p in t.partitions] for t in m.tables}
    assert kinds == {
        "Sales": ["m"],
        "Date": ["query"],
        "Customer": ["m"],
        "Targets": ["m"],
        "Constants": ["calculated"],
        "Time Calc": ["calculationGroup"],
    }
    assert m.table("Date").partitions[0].expression.startswith("SELECT d.[Date]")
    assert [i.name for i in m.table("Time Calc").calculation_items] == ["Current", "PY"]
    legacy, structured = m.data_sources
    assert (legacy.kind, legacy.server, legacy.database) == ("legacy", "dwsrv", "SmallDW")
    assert (structured.kind, structured.server, structured.database) == (
        "structured",
        "dwsrv",
        "SmallDW",
    )
    params = {e.name: e.is_parameter for e in m.expressions}
    assert params == {"ServerName": True, "DatabaseName": True, "DW": False}
    assert m.table("Sales").column("Net").kind == "calculated"
    assert not m.relationships[1].is_active


def test_bim_compat_levels_and_shapes() -> None:
    for level in (1200, 1400, 1500, 1550, 1600):
        m = model_from_json(
            {
                "compatibilityLevel": level,
                "model": {
                    "tables": [
                        {
                            "name": "T",
                            "measures": [{"name": "M", "expression": ["1", "+ 2"]}],
                            "partitions": [{"name": "p", "source": {"type": "entity"}}],
                        }
                    ]
                },
            }
        )
        assert m.compatibility_level == level and m.measures[0].expression == "1\n+ 2"


def test_small_tmdl() -> None:
    m = load_model(FIXTURES / "small-tmdl")
    assert m.format == "tmdl" and m.compatibility_level == 1600
    names = sorted(x.name for x in m.measures)
    assert names == sorted(
        ["Дней", "Кол-во", "Рейтинг Потенциал", "Кол-во рейсов", "Сумма 'в рублях'"]
    )
    qty = m.measure("Кол-во")
    assert (
        qty.description == "Количество проданных единиц"
        and qty.format_string == "#,0"
        and qty.display_folder == "Продажи"
    )
    assert qty.line == 6 and qty.file.endswith("Продажи.tmdl")
    rating = m.measure("Рейтинг Потенциал").expression
    assert rating.splitlines()[0] == "VAR q = [Кол-во]" and rating.splitlines()[
        -1
    ].strip().startswith("IF (")
    trips = m.measure("Кол-во рейсов").expression
    assert trips.startswith("CALCULATE (") and trips.endswith(")")
    assert m.table("Продажи").description == "Строки продаж"
    assert m.table("Календарь").partitions[0].expression.startswith("let")
    assert {e.name for e in m.expressions if e.is_parameter} == {"Server", "Database"}


def test_tmdl_unterminated_fence_names_file_and_line(tmp_path: Path) -> None:
    d = tmp_path / "definition" / "tables"
    d.mkdir(parents=True)
    (d / "T.tmdl").write_text("table T\n\tmeasure M = ```\n\t\t\t1\n", encoding="utf-8")
    with pytest.raises(ModelReadError) as err:
        load_model(tmp_path)
    assert "T.tmdl:2" in str(err.value) and "fence" in str(err.value)


def test_tmdl_generic_tree() -> None:
    nodes = parse_tmdl("table 'A ''b'''\n\tmeasure X = 1\n\t\tformatString: 0\n\t\tisHidden\n")
    table = nodes[0]
    assert table.name == "A 'b'"
    measure = table.children[0]
    assert (
        measure.name,
        measure.value,
        measure.prop("formatString"),
        measure.flag("isHidden"),
    ) == ("X", "1", "0", True)


def test_broken_bim_json_names_line_and_column(tmp_path: Path) -> None:
    bad = tmp_path / "bad.bim"
    bad.write_text('{\n  "model": {\n    "tables": [,]\n  }\n}', encoding="utf-8")
    with pytest.raises(ModelReadError) as err:
        load_model(bad)
    assert str(err.value).startswith(f"{bad}:3:16: invalid JSON")


def test_missing_and_wrong_paths(tmp_path: Path) -> None:
    with pytest.raises(DocsInputError, match="does not exist"):
        load_model(tmp_path / "nope.bim")
    (tmp_path / "x.txt").write_text("x")
    with pytest.raises(DocsInputError, match="not a model"):
        load_model(tmp_path / "x.txt")
    with pytest.raises(DocsInputError, match="neither"):
        load_model(tmp_path)


def _count_bim_measures(path: Path) -> int:
    data = json.loads(path.read_text(encoding="utf-8-sig"))
    return sum(len(t.get("measures", [])) for t in data["model"].get("tables", []))


def test_shared_fixtures_measure_counts(shared_fixtures: Path) -> None:
    for bim in [
        *sorted((shared_fixtures / "tabular").glob("*.bim")),
        shared_fixtures / "wwi/model/Model.bim",
    ]:
        assert len(load_model(bim).measures) == _count_bim_measures(bim), bim
    tmdl = shared_fixtures / "tabular/sample-pbip-tmdl"
    expected = sum(
        sum(
            1
            for line in f.read_text(encoding="utf-8-sig").splitlines()
            if line.startswith("\tmeasure ")
        )
        for f in (tmdl / "definition/tables").glob("*.tmdl")
    )
    m = load_model(tmdl)
    assert len(m.measures) == expected == 29
    assert (
        m.measure("Sales Amount (LY)").description
        == "Sales Amount Last Year considering a full month"
    )
    assert "SUMX (" in m.measure("Margin").expression


def test_allproperties_edge_cases(shared_fixtures: Path) -> None:
    m = load_model(shared_fixtures / "tabular/allproperties-te.bim")
    assert [p.kind for p in m.table("Table").partitions] == ["query", "m"]
    assert m.table("CalcTable").partitions[0].kind == "calculated"
    assert m.table("CalculationGroup").partitions[0].kind == "calculationGroup"
    assert [d.kind for d in m.data_sources] == ["legacy", "structured"]
    assert load_model(shared_fixtures / "tabular/pqsource-te.bim").tables == []
