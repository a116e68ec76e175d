"""Partition sources: Power Query M constructs and SQL queries."""

from __future__ import annotations

from pathlib import Path

from vitrina.docs.model import DataSource, Expression, Model
from vitrina.docs.sources import m_sources, sql_source
from vitrina.docs.sources.partition import table_sources
from vitrina.trace import Trace

FIXTURES = Path(__file__).parent / "fixtures"


def _model() -> Model:
    return Model(
        data_sources=[
            DataSource(name="SQL/srv;DW", kind="structured", server="srv", database="DW")
        ],
        expressions=[
            Expression(
                name="Srv",
                expression='"srv01" meta [IsParameterQuery=true, Type="Text"]',
                is_parameter=True,
            ),
            Expression(
                name="Db",
                expression='"Sales DW" meta [IsParameterQuery=true, Type="Text"]',
                is_parameter=True,
            ),
            Expression(name="Base", expression="let\n Source = Sql.Database(Srv, Db)\nin\n Source"),
            Expression(name="Loop A", expression='let S = #"Loop B" in S'),
            Expression(name="Loop B", expression='let S = #"Loop A" in S'),
        ],
    )


def test_sql_database_navigation() -> None:
    (ref,) = m_sources(
        'let\n  Source = Sql.Database("srv", "dw"),\n  T = '
        'Source{[Schema="Fact",Item="Sale"]}[Data]\nin\n  T'
    )
    assert (ref.kind, ref.objects, ref.server, ref.database) == (
        "table",
        ["fact.sale"],
        "srv",
        "dw",
    )


def test_sql_databases_then_name_navigation() -> None:
    text = (
        'let S = Sql.Databases("srv"), D = S{[Name="DW"]}[Data], T = '
        'D{[Schema="dim",Item="Date"]}[Data] in T'
    )
    (ref,) = m_sources(text)
    assert (ref.objects, ref.database) == (["dim.date"], "DW")


def test_native_query_and_query_option() -> None:
    (ref,) = m_sources(
        'let S = Sql.Database("srv","dw"), Q = Value.NativeQuery(S, "select a, b as c '
        'from dbo.T join x.U on 1=1") in Q'
    )
    assert ref.kind == "query" and ref.objects == ["dbo.t", "x.u"] and ref.database == "dw"
    (ref,) = m_sources(
        'Sql.Database("srv", "dw", [Query="SELECT [Id] AS Key FROM [s].[V] WHERE 1=1"])'
    )
    assert ref.objects == ["s.v"] and ref.columns == {"key": "id"}


def test_parameters_and_shared_expressions_resolved() -> None:
    (ref,) = m_sources(
        'let Source = Base, T = Source{[Schema="Fact",Item="Sale"]}[Data] in T', _model()
    )
    assert (ref.server, ref.database, ref.objects, ref.via) == (
        "srv01",
        "Sales DW",
        ["fact.sale"],
        ["Base"],
    )


def test_structured_data_source_reference() -> None:
    (ref,) = m_sources(
        'let Source = #"SQL/srv;DW", T = Source{[Schema="Fact",Item="Sale"]}[Data] in T', _model()
    )
    assert (ref.server, ref.database, ref.objects) == ("srv", "DW", ["fact.sale"])


def test_unsupported_sources_named_not_dropped() -> None:
    trace = Trace("t")
    refs = m_sources(
        'let S = Csv.Document(Web.Contents("https://x/y.csv"), [Delimiter=","]) in S', trace=trace
    )
    assert [(r.kind, r.detail) for r in refs] == [
        ("unsupported", 'Csv.Document(Web.Contents("https://x/y.csv"))')
    ]
    assert any(e.kind == "warning" for e in trace.events)
    (ref,) = m_sources('Excel.Workbook(File.Contents("C:\\t.xlsx"), null, true)')
    assert ref.kind == "unsupported" and ref.detail.startswith("Excel.Workbook(File.Contents(")
    (ref,) = m_sources('#table({"a"}, {{1}})')
    assert ref.kind == "inline"


def test_unknown_and_cycles_say_why() -> None:
    (ref,) = m_sources("let x = 1 in x")
    assert ref.kind == "unknown" and ref.warnings
    (ref,) = m_sources('let S = #"Loop A" in S', _model())
    assert ref.kind == "unknown"


def test_comments_and_quoted_identifiers_in_m() -> None:
    text = (
        '// Sql.Database("no","no")\nlet\n  #"My Source" = Sql.Database("srv", "dw"), /* c '
        '*/\n  #"Nav" = #"My Source"{[Schema="a",Item="B C"]}[Data]\nin #"Nav"'
    )
    (ref,) = m_sources(text)
    assert ref.objects == ["a.b c"]


def test_sql_source_star_and_mapping() -> None:
    ref = sql_source("SELECT [dbo].[DimCurrency].* FROM [dbo].[DimCurrency]")
    assert ref.objects == ["dbo.dimcurrency"] and ref.columns == {}
    ref = sql_source("WITH c AS (SELECT * FROM s.T) SELECT * FROM c JOIN s.U ON 1 = 1")
    assert sorted(ref.objects) == ["s.t", "s.u"]
    ref = sql_source("SELECT FROM WHERE (((")
    assert ref.warnings and ref.kind == "query"


def test_small_bim_table_sources() -> None:
    from vitrina.docs.model import load_model

    m = load_model(FIXTURES / "small.bim")
    got = {t.name: [(r.kind, r.objects) for r in table_sources(t, m)] for t in m.tables}
    assert got["Sales"] == [("table", ["rpt.vsales"])]
    assert got["Date"] == [("query", ["dim.date"])]
    assert got["Customer"] == [("query", ["dim.customer"])]
    assert got["Targets"][0][0] == "unsupported"
    assert got["Constants"] == [("calculated", [])]


def test_shared_fixture_sources(shared_fixtures: Path) -> None:
    from vitrina.docs.model import load_model

    m = load_model(shared_fixtures / "wwi/model/Model.bim")
    assert [r.objects for r in table_sources(m.table("Fact Sale"), m)] == [["fact.sale"]]
    assert table_sources(m.table("Dimension Stock Item"), m)[0].objects == ["dimension.stock item"]
    pbip = load_model(shared_fixtures / "tabular/sample-pbip-tmdl")
    (ref,) = table_sources(pbip.table("Sales"), pbip)
    assert (
        ref.kind == "unsupported"
        and "Csv.Document(Web.Contents(" in ref.detail
        and ref.via[0] == "RAW-SalesDateAdjustedAndSalesRandomized"
    )
