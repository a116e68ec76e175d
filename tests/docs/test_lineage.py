"""Lineage assembly: a tiny in-test index, our small warehouse, WWI and AdventureWorks."""

from __future__ import annotations

from pathlib import Path

from vitrina.docs.lineage import build_lineage
from vitrina.docs.model import load_model
from vitrina.docs.sqlindex import SqlIndex, SqlObject, SqlStatementInfo, build_index
from vitrina.docs.workspace import Workspace
from vitrina.docs.writer.mermaid import mermaid

FIXTURES = Path(__file__).parent / "fixtures"


def _tiny_index() -> SqlIndex:
    """rpt.vSales -> fact.Sale <- etl.LoadSales <- stage.Sale_Staging, plus a cycle and a partial
    proc."""
    objs = [
        SqlObject(
            name="rpt.vsales",
            kind="view",
            file="v.sql",
            line=1,
            reads={"fact.sale"},
            query="SELECT SaleKey, Amount, Quantity, DateKey, CustomerKey FROM fact.Sale",
        ),
        SqlObject(
            name="fact.sale",
            kind="table",
            file="t.sql",
            line=1,
            columns=["SaleKey", "Amount", "Quantity", "DateKey", "CustomerKey"],
        ),
        SqlObject(name="stage.sale_staging", kind="table", file="t.sql", line=9),
        SqlObject(
            name="etl.loadsales",
            kind="procedure",
            file="p.sql",
            line=1,
            reads={"stage.sale_staging"},
            writes={"fact.sale"},
            flows={"fact.sale": {"stage.sale_staging"}},
            statements=[
                SqlStatementInfo(
                    kind="insert",
                    targets=["fact.sale"],
                    sources=["stage.sale_staging"],
                    line=7,
                    sql="INSERT INTO fact.Sale SELECT * FROM stage.Sale_Staging",
                )
            ],
        ),
        SqlObject(
            name="etl.loadstaging",
            kind="procedure",
            file="p2.sql",
            line=1,
            partial=True,
            dynamic_sql=True,
            reads={"fact.sale"},
            writes={"stage.sale_staging"},
            flows={"stage.sale_staging": {"fact.sale"}},
        ),
        SqlObject(name="dim.date", kind="table", file="t.sql", line=20),
        SqlObject(name="dim.customer", kind="table", file="t.sql", line=30),
    ]
    return SqlIndex(objects={o.name: o for o in objs})


def test_lineage_assembly_with_tiny_index() -> None:
    ws = Workspace(load_model(FIXTURES / "small.bim"), _tiny_index())
    lin = build_lineage(ws, ws.model.measure("Average Price"))
    assert lin.direct_measures == ["Total Amount", "Total Quantity"]
    assert lin.model_tables == ["Sales"]
    assert [o.name for o in lin.sql_objects][:2] == ["rpt.vsales", "fact.sale"]
    assert [p.name for p in lin.procedures] == [
        "etl.loadsales",
        "etl.loadstaging",
    ]  # the cycle is walked once
    excerpt = lin.procedures[0].excerpts[0]
    assert (excerpt.line, excerpt.kind, excerpt.target) == (7, "insert", "fact.sale")
    assert any("parsed partially" in w for w in lin.warnings) and any(
        "dynamic SQL" in w for w in lin.warnings
    )
    ids = lin.node_ids()
    assert {
        "m:Average Price",
        "t:Sales",
        "s:rpt.vsales",
        "s:fact.sale",
        "s:etl.loadsales",
        "s:stage.sale_staging",
    } <= ids


def test_lineage_depth_bound_is_recorded() -> None:
    ws = Workspace(load_model(FIXTURES / "small.bim"), _tiny_index())
    lin = build_lineage(ws, ws.model.measure("Total Amount"), max_sql_depth=1)
    assert lin.truncated and any("cut at depth 1" in w for w in lin.warnings)


def test_lineage_warnings_for_unresolved_and_unsupported() -> None:
    ws = Workspace(load_model(FIXTURES / "small.bim"), _tiny_index())
    lin = build_lineage(ws, ws.model.measure("Broken Ref"))
    assert any("[No Such Measure]" in u for u in lin.unresolved) and any(
        "'Targets'[Nope]" in u for u in lin.unresolved
    )
    assert any("unsupported source Excel.Workbook" in w for w in lin.warnings)
    lin = build_lineage(ws, ws.model.measure("Customers"))
    assert any("dim.customer" in o.name for o in lin.sql_objects)


def test_small_warehouse_views_on_views_and_loader() -> None:
    index = build_index([FIXTURES / "warehouse"])
    ws = Workspace(load_model(FIXTURES / "small.bim"), index)
    lin = build_lineage(ws, ws.model.measure("Total Amount"))
    names = [o.name.lower() for o in lin.sql_objects]
    assert names[0] == "rpt.vsales" and "rpt.vsalebase" in names and "dim.date" in names
    assert "fact.sale" in names and "stage.sale_staging" in names
    assert [p.name.lower() for p in lin.procedures] == ["etl.loadsales"]
    assert (
        lin.procedures[0].excerpts and "INSERT INTO fact.Sale" in lin.procedures[0].excerpts[0].sql
    )
    sources = {cl.source.lower() for cl in lin.column_links if cl.level == "column"}
    assert "rpt.vsales.amount" in sources
    assert lin.level in ("column", "mixed")


def test_mermaid_is_quoted_and_escaped() -> None:
    ws = Workspace(load_model(FIXTURES / "small.bim"), _tiny_index())
    text = mermaid(build_lineage(ws, ws.model.measure("Average Price")))
    assert text.startswith("flowchart LR")
    for line in text.splitlines()[1:]:
        if "-->" not in line:
            body = line.strip()[2:].lstrip("0123456789")
            inner = body[body.index('"') + 1 : body.rindex('"')]
            assert "[" not in inner and "]" not in inner and '"' not in inner, line


def test_wwi_fact_sale_measures_trace_to_loader_and_staging(shared_fixtures: Path) -> None:
    ws = Workspace.load(shared_fixtures / "wwi/model/Model.bim", [shared_fixtures / "wwi/dw-ssdt"])
    on_fact_sale = [
        m for m in ws.model.measures if "Fact Sale" in build_lineage(ws, m).model_tables
    ]
    assert len(on_fact_sale) >= 25
    for m in on_fact_sale:
        lin = build_lineage(ws, m)
        procs = {p.name.lower() for p in lin.procedures}
        assert "integration.migratestagedsaledata" in procs, m.name
        pid = "s:integration.migratestagedsaledata"
        assert any(
            e.source == pid and e.target == "s:integration.sale_staging" for e in lin.edges
        ), m.name
        proc = next(
            p for p in lin.procedures if p.name.lower() == "integration.migratestagedsaledata"
        )
        assert any(x.target == "Fact.Sale" and x.line for x in proc.excerpts)  # original case


def test_adventureworks_views_on_views_resolve(shared_fixtures: Path, tmp_path: Path) -> None:
    """The AW .bim reads tables; a partition over dbo.vTimeSeries must resolve through vDMPrep."""
    import json

    data = json.loads(
        (shared_fixtures / "tabular/adventureworks-te.bim").read_text(encoding="utf-8-sig")
    )
    ws0 = Workspace.load(
        shared_fixtures / "tabular/adventureworks-te.bim",
        [shared_fixtures / "sql/adventureworksdw-instawdbdw.sql"],
    )
    lin = build_lineage(ws0, ws0.model.measure("Internet Total Sales"))
    assert "dbo.factinternetsales" in [o.name.lower() for o in lin.sql_objects]
    data["model"]["tables"].append(
        {
            "name": "Time Series",
            "columns": [{"name": "Amount", "dataType": "decimal", "sourceColumn": "Amount"}],
            "partitions": [
                {
                    "name": "p",
                    "source": {
                        "type": "query",
                        "dataSource": "SqlServer localhost",
                        "query": "SELECT ModelRegion, Amount FROM dbo.vTimeSeries",
                    },
                }
            ],
            "measures": [{"name": "TS Amount", "expression": "SUM('Time Series'[Amount])"}],
        }
    )
    bim = tmp_path / "aw-ts.bim"
    bim.write_text(json.dumps(data), encoding="utf-8")
    ws = Workspace.load(bim, [shared_fixtures / "sql/adventureworksdw-instawdbdw.sql"])
    lin = build_lineage(ws, ws.model.measure("TS Amount"))
    names = [o.name.lower() for o in lin.sql_objects]
    assert names[:2] == ["dbo.vtimeseries", "dbo.vdmprep"]
    assert "dbo.factinternetsales" in names
    assert any(
        cl.source.lower() == "dbo.factinternetsales.extendedamount" for cl in lin.column_links
    )
