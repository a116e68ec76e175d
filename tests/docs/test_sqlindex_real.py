"""The SQL index on real, externally written projects (../shared/fixtures): WWI SSDT and
AdventureWorksDW."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from vitrina.docs.sqlindex import SqlIndex, build_index
from vitrina.trace import EventKind, Trace

pytestmark = pytest.mark.fixtures

CREATE_PROC = re.compile(r"^\s*CREATE\s+(?:PROC|PROCEDURE)\s+(\S+)", re.IGNORECASE | re.MULTILINE)
CREATE_OBJECT = re.compile(
    r"^\s*CREATE\s+(TABLE|VIEW)\s+(\S+?)\s*(?:\(|$|\bAS\b)", re.IGNORECASE | re.MULTILINE
)


def _name(raw: str) -> str:
    return raw.replace("[", "").replace("]", "").lower()


@pytest.fixture(scope="module")
def wwi(shared_fixtures: Path) -> tuple[SqlIndex, Trace, Path]:
    folder = shared_fixtures / "wwi" / "dw-ssdt"
    trace = Trace("test")
    index = build_index([folder], trace=trace)  # its CPU time: benchmarks/bench_bounds.py
    return index, trace, folder


@pytest.fixture(scope="module")
def adventureworks(shared_fixtures: Path) -> tuple[SqlIndex, str]:
    path = shared_fixtures / "sql" / "adventureworksdw-instawdbdw.sql"
    return build_index([path]), path.read_text(encoding="utf-8")


def test_wwi_sale_is_loaded_by_migrate_staged_sale_data(wwi: tuple[SqlIndex, Trace, Path]) -> None:
    index = wwi[0]
    writers = [o.name for o in index.writers_of("Fact.Sale")]
    assert "integration.migratestagedsaledata" in writers
    proc = index.get("[Integration].[MigrateStagedSaleData]")
    assert proc is not None and proc.kind == "procedure"
    assert "integration.sale_staging" in proc.reads
    assert {r for r in proc.reads if r.startswith("dimension.")} >= {
        "dimension.city",
        "dimension.customer",
        "dimension.stock item",
        "dimension.employee",
    }
    assert proc.flows["fact.sale"] == {"integration.sale_staging"}
    assert proc.flows["integration.sale_staging"] >= {"dimension.city", "dimension.customer"}
    assert not proc.partial and not proc.dynamic_sql
    assert proc.line == 2  # the file starts with a BOM and an empty line
    insert = [s for s in proc.statements if s.kind == "insert" and s.targets == ["fact.sale"]]
    lines = Path(proc.file).read_text(encoding="utf-8-sig").splitlines()
    assert len(insert) == 1 and lines[insert[0].line - 1].strip() == "INSERT Fact.Sale"


def test_wwi_every_procedure_indexed_none_silently_empty(wwi: tuple[SqlIndex, Trace, Path]) -> None:
    index, trace, folder = wwi
    declared = {
        _name(m.group(1))
        for f in folder.rglob("*.sql")
        for m in CREATE_PROC.finditer(f.read_text(encoding="utf-8-sig"))
    }
    assert len(declared) == 21
    procs = {n for n, o in index.objects.items() if o.kind == "procedure"}
    assert procs == declared
    with_data = [n for n in procs if index.objects[n].reads or index.objects[n].writes]
    assert len(with_data) >= 18  # the rest only call others or run dynamic SQL
    writers = [n for n in procs if index.objects[n].writes]
    assert len(writers) >= 17
    for name in procs - set(with_data):
        obj = index.objects[name]
        assert obj.warnings, f"{name} is empty without a reason"
        assert any(
            e.data.get("object") == name and e.kind is EventKind.WARNING for e in trace.events
        )


def test_wwi_counts(wwi: tuple[SqlIndex, Trace, Path]) -> None:
    index, _, _ = wwi
    kinds: dict[str, int] = {}
    for obj in index.objects.values():
        kinds[obj.kind] = kinds.get(obj.kind, 0) + 1
    assert kinds == {"table": 30, "procedure": 21, "sequence": 8, "function": 1}
    assert index.errors == []
    assert index.get("Fact.Sale").columns[:2] == ["Sale Key", "City Key"]  # type: ignore[union-attr]


def test_wwi_populate_date_dimension_try_catch_while(wwi: tuple[SqlIndex, Trace, Path]) -> None:
    proc = wwi[0].objects["integration.populatedatedimensionforyear"]
    assert proc.writes == {"dimension.date"}
    assert "integration.generatedatedimensioncolumns" in proc.reads
    assert not proc.partial


def test_wwi_dynamic_sql_flagged(wwi: tuple[SqlIndex, Trace, Path]) -> None:
    index = wwi[0]
    for name in (
        "sequences.reseedsequencebeyondtablevalues",
        "application.configuration_applypolybase",
    ):
        obj = index.objects[name]
        assert obj.dynamic_sql and any("dynamic SQL" in w for w in obj.warnings)
    assert (
        "dbo.citypopulationstatistics"
        in index.objects["application.configuration_applypolybase"].writes
    )


def test_adventureworks_every_table_and_view_indexed(adventureworks: tuple[SqlIndex, str]) -> None:
    index, text = adventureworks
    declared: dict[str, set[str]] = {"table": set(), "view": set()}
    for m in CREATE_OBJECT.finditer(text):
        declared[m.group(1).lower()].add(_name(m.group(2)))
    assert len(declared["table"]) == 31 and len(declared["view"]) == 5
    for kind, names in declared.items():
        indexed = {n for n, o in index.objects.items() if o.kind == kind}
        assert indexed == names, kind
    for name in declared["view"]:
        assert index.objects[name].reads, name


def test_adventureworks_views_on_views(adventureworks: tuple[SqlIndex, str]) -> None:
    index, text = adventureworks
    assert index.view_sources("dbo.vTimeSeries") == ["dbo.vdmprep"]
    assert index.get("dbo.vDMPrep").kind == "view"  # type: ignore[union-attr]
    # vDMPrep's own FROM/JOIN lines, read independently of the index
    body = text[
        text.index("CREATE VIEW [dbo].[vDMPrep]") : text.index("CREATE VIEW [dbo].[vTimeSeries]")
    ]
    joined = {_name(m) for m in re.findall(r"(?:FROM|JOIN)\s+(\[dbo\]\.\[\w+\])", body)}
    assert len(joined) == 8
    assert index.base_tables("dbo.vTimeSeries") == sorted(joined)
    assert index.base_tables("[dbo].[vTargetMail]") == sorted(
        joined
    )  # DimCustomer directly and via vDMPrep
    assert index.column_lineage("dbo.vTargetMail", "Age") == [("dbo.dimcustomer", "BirthDate")]
    assert index.column_lineage("dbo.vTimeSeries", "Amount") == [
        ("dbo.factinternetsales", "ExtendedAmount")
    ]
    assert (
        index.objects["dbo.vdmprep"].line
        == text[: text.index("CREATE VIEW [dbo].[vDMPrep]")].count("\n") + 1
    )


def test_adventureworks_bulk_loads_in_script(adventureworks: tuple[SqlIndex, str]) -> None:
    index, text = adventureworks
    bulk = {_name(m) for m in re.findall(r"BULK INSERT (\S+)", text)}
    scripts = [s for s in index.scripts if s.file.endswith("instawdbdw.sql")]
    assert len(scripts) == 1 and scripts[0].writes >= bulk
    assert scripts[0].partial  # BULK INSERT is read by the token scan
