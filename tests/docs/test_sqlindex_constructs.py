"""One small T-SQL file per construct (tests/docs/fixtures/sql), each with its expected index
entry."""

from __future__ import annotations

from pathlib import Path

import pytest

from vitrina.docs.sqlindex import SqlIndex, build_index
from vitrina.docs.sqlindex.batches import split_batches
from vitrina.docs.sqlindex.lexer import lex
from vitrina.trace import EventKind, Trace

FIXTURES = Path(__file__).parent / "fixtures" / "sql"


@pytest.fixture(scope="module")
def built() -> tuple[SqlIndex, Trace]:
    trace = Trace("test")
    return build_index([FIXTURES], trace=trace), trace


# (file, object, writes, reads, partial, dynamic_sql, encoding or None)
CASES = [
    ("enc_utf8.sql", "load.encutf8", {"fact.encutf8"}, {"stage.encutf8"}, False, False, "utf-8"),
    (
        "enc_utf8_bom.sql",
        "load.encutf8bom",
        {"fact.encutf8bom"},
        {"stage.encutf8bom"},
        False,
        False,
        "utf-8-sig",
    ),
    (
        "enc_utf16le_bom.sql",
        "load.encutf16le",
        {"fact.encutf16le"},
        {"stage.encutf16le"},
        False,
        False,
        "utf-16-le",
    ),
    (
        "enc_utf16be_bom.sql",
        "load.encutf16be",
        {"fact.encutf16be"},
        {"stage.encutf16be"},
        False,
        False,
        "utf-16-be",
    ),
    (
        "enc_cp1251.sql",
        "load.enccp1251",
        {"fact.enccp1251"},
        {"stage.enccp1251"},
        False,
        False,
        "cp1251",
    ),
    (
        "dml_insert.sql",
        "load.insertsales",
        {"fact.sales"},
        {"stage.sales", "dim.customer"},
        False,
        False,
        None,
    ),
    ("dml_update.sql", "load.updateprices", {"dim.product"}, {"stage.prices"}, False, False, None),
    (
        "dml_delete.sql",
        "load.deleteinvoices",
        {"fact.invoice"},
        {"stage.invoice"},
        False,
        False,
        None,
    ),
    (
        "dml_merge.sql",
        "load.mergecustomers",
        {"dim.customer"},
        {"stage.customer"},
        False,
        False,
        None,
    ),
    (
        "dml_truncate.sql",
        "load.resetstock",
        {"fact.stock holding"},
        {"stage.stock holding"},
        False,
        False,
        None,
    ),
    (
        "dml_select_into.sql",
        "load.snapshotorders",
        {"archive.ordersnapshot"},
        {"fact.order"},
        False,
        False,
        None,
    ),
    (
        "update_alias_from.sql",
        "load.resolvekeys",
        {"stage.sale", "fact.sale"},
        {"dim.city", "stage.sale"},
        False,
        False,
        None,
    ),
    ("cte_update.sql", "load.closerows", {"dim.city"}, {"stage.city"}, False, False, None),
    (
        "temp_select_into.sql",
        "load.viatemp",
        {"fact.customertotal"},
        {"stage.payments"},
        False,
        False,
        None,
    ),
    (
        "temp_chain.sql",
        "load.tempchain",
        {"fact.target"},
        {"stage.source", "dim.region"},
        False,
        False,
        None,
    ),
    (
        "try_catch.sql",
        "load.withtrycatch",
        {"fact.payment", "audit.errorlog"},
        {"stage.payment"},
        False,
        False,
        None,
    ),
    (
        "if_begin_end.sql",
        "load.conditional",
        {"fact.inventory"},
        {"stage.inventory", "control.loadlog"},
        False,
        False,
        None,
    ),
    (
        "declare_no_semicolon.sql",
        "load.nosemicolons",
        {"fact.movement"},
        {"stage.movement", "control.cutoff"},
        False,
        False,
        None,
    ),
    (
        "table_hints.sql",
        "load.withhints",
        {"fact.sale"},
        {"stage.sale", "dim.date"},
        False,
        False,
        None,
    ),
    (
        "dynamic_sql.sql",
        "load.dynamic",
        {"fact.dynamictarget"},
        {"stage.dynamicsource"},
        True,
        True,
        None,
    ),
    (
        "broken_scan.sql",
        "load.broken",
        {"fact.broken"},
        {"stage.broken", "stage.other"},
        True,
        False,
        None,
    ),
    ("insert_exec.sql", "load.fromproc", {"fact.fromproc"}, {"stage.getids"}, True, False, None),
    (
        "trigger_output.sql",
        "sales.trgorderaudit",
        {"audit.orderchanges"},
        {"sales.orders"},
        False,
        False,
        None,
    ),
]


@pytest.mark.parametrize(
    ("file", "name", "writes", "reads", "partial", "dynamic", "encoding"), CASES
)
def test_construct(
    built: tuple[SqlIndex, Trace],
    file: str,
    name: str,
    writes: set[str],
    reads: set[str],
    partial: bool,
    dynamic: bool,
    encoding: str | None,
) -> None:
    index, _ = built
    obj = index.get(name)
    assert obj is not None, f"{name} not indexed from {file}"
    assert Path(obj.file).name == file
    assert (obj.writes, obj.reads) == (writes, reads)
    assert (obj.partial, obj.dynamic_sql) == (partial, dynamic)
    if encoding:
        assert obj.encoding == encoding
    if partial or dynamic:
        assert obj.warnings, "a partial or dynamic object must say why"


# (object, [(statement line, kind, parsed_by)]) : real 1-based lines of the original file
STATEMENT_LINES = [
    ("load.insertsales", [(4, "insert", "split")]),
    ("load.resolvekeys", [(4, "update", "split"), (10, "delete", "split")]),
    ("load.withtrycatch", [(7, "insert", "split"), (13, "insert", "split")]),
    (
        "load.conditional",
        [
            (7, "truncate", "split"),
            (8, "insert", "split"),
            (10, "select", "split"),
            (12, "update", "split"),
        ],
    ),
    ("load.nosemicolons", [(4, "other", "split"), (7, "insert", "split")]),
    ("load.withhints", [(4, "insert", "split")]),
    ("load.broken", [(4, "insert", "scan"), (6, "update", "scan")]),
    ("load.encutf16le", [(5, "insert", "split")]),
    ("dbo.vorders", [(6, "select", "sqlglot")]),
]


@pytest.mark.parametrize(("name", "expected"), STATEMENT_LINES)
def test_statement_lines_kinds_and_parsers(
    built: tuple[SqlIndex, Trace], name: str, expected: list
) -> None:
    obj = built[0].objects[name]
    assert [(s.line, s.kind, s.parsed_by) for s in obj.statements] == expected
    source = Path(obj.file).read_bytes()
    if obj.encoding.startswith("utf-8"):
        lines = source.decode("utf-8-sig").splitlines()
        for st in obj.statements:
            first_word = st.sql.split()[0]
            assert first_word in lines[st.line - 1], (st.line, first_word)


def test_object_lines(built: tuple[SqlIndex, Trace]) -> None:
    index, _ = built
    assert index.objects["load.encutf8"].line == 2  # after a comment line
    assert index.objects["dbo.vcounter"].line == 6
    assert index.objects["report.vtopregion"].line == 12


def test_temp_chain_reaches_the_real_source(built: tuple[SqlIndex, Trace]) -> None:
    obj = built[0].objects["load.tempchain"]
    final = next(s for s in obj.statements if s.targets == ["fact.target"])
    assert final.sources == ["@c"]
    assert final.origins == ["dim.region", "stage.source"]
    assert obj.flows == {"fact.target": {"dim.region", "stage.source"}}
    assert not any(n.startswith(("#", "@")) for n in obj.reads | obj.writes)


def test_update_alias_resolves_to_the_real_table(built: tuple[SqlIndex, Trace]) -> None:
    obj = built[0].objects["load.resolvekeys"]
    assert obj.statements[0].targets == ["stage.sale"]
    assert obj.flows["fact.sale"] == {"stage.sale"}
    assert obj.flows["stage.sale"] == {"dim.city"}


def test_scan_fallback_writes_trace_events(built: tuple[SqlIndex, Trace]) -> None:
    _, trace = built
    broken = [
        e
        for e in trace.events
        if e.kind is EventKind.SUPPRESSED and e.data.get("object") == "load.broken"
    ]
    assert [e.data["line"] for e in broken] == [4, 6]
    assert all(e.data["file"].endswith("broken_scan.sql") and e.data["error"] for e in broken)


def test_dynamic_sql_is_flagged_and_scanned(built: tuple[SqlIndex, Trace]) -> None:
    index, trace = built
    obj = index.objects["load.dynamic"]
    assert any("dynamic SQL" in w for w in obj.warnings)
    scanned = [s for s in obj.statements if s.kind == "dynamic" and s.parsed_by == "scan"]
    assert {t for s in scanned for t in s.targets} == {"fact.dynamictarget"}
    assert any(
        e.kind is EventKind.WARNING and e.data.get("object") == "load.dynamic" for e in trace.events
    )


def test_go_count_and_go_in_strings(built: tuple[SqlIndex, Trace]) -> None:
    index, _ = built
    text = (FIXTURES / "go_count.sql").read_text()
    assert [b.count for b in split_batches(lex(text).tokens)] == [3, 1, 1]
    view = index.objects["dbo.vcounter"]
    assert view.reads == {"dbo.counter"} and view.columns == ["ID", "Note"]
    script = [s for s in index.scripts if s.file.endswith("go_count.sql")]
    assert script and script[0].writes == {"dbo.counter"}


def test_views_on_views(built: tuple[SqlIndex, Trace]) -> None:
    index, _ = built
    assert index.view_sources("[report].[vTopRegion]") == ["dbo.vregiontotals"]
    assert index.base_tables("report.vTopRegion") == ["dbo.customers", "dbo.orders"]
    assert index.column_lineage("report.vTopRegion", "Total") == [("dbo.orders", "Amount")]
    assert index.column_lineage("report.vTopRegion", "Region") == [("dbo.customers", "Region")]
    assert index.column_lineage("report.vTopRegion", "NoSuchColumn") is None
    assert index.column_lineage("dbo.orders", "Amount") is None  # not a view


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("[Fact].[Sale]", None),
        ("[Load].[InsertSales]", "load.insertsales"),
        ("Load.InsertSales", "load.insertsales"),
        ("load.insertsales", "load.insertsales"),
        ("vOrders", "dbo.vorders"),  # unqualified -> dbo
        ("vTopRegion", "report.vtopregion"),  # unqualified -> unique match
        ("MyDw.report.vTopRegion", "report.vtopregion"),  # 3-part -> schema.name
        ("nothing", None),
    ],
)
def test_get(built: tuple[SqlIndex, Trace], query: str, name: str | None) -> None:
    obj = built[0].get(query)
    assert (obj.name if obj else None) == name


def test_writers_of(built: tuple[SqlIndex, Trace]) -> None:
    index, _ = built
    assert [o.name for o in index.writers_of("[Fact].[Sale]")] == [
        "load.resolvekeys",
        "load.withhints",
    ]
    assert index.writers_of("Stage.Sales") == []


def test_nothing_silently_empty(built: tuple[SqlIndex, Trace]) -> None:
    for obj in built[0].objects.values():
        if obj.kind in ("procedure", "function", "view", "other"):
            assert obj.reads or obj.writes or obj.warnings, obj.name


def test_broken_file_is_reported_not_fatal(tmp_path: Path) -> None:
    (tmp_path / "bad.sql").write_text(
        "CREATE PROCEDURE dbo.Bad AS\nSELECT 'never closed FROM dbo.T\n"
    )
    (tmp_path / "good.sql").write_text("CREATE VIEW dbo.Good AS SELECT a FROM dbo.T\n")
    trace = Trace("test")
    index = build_index([tmp_path, tmp_path / "missing.sql"], trace=trace)
    assert index.get("dbo.Good") is not None and index.get("dbo.Bad") is not None
    assert {(Path(e["file"]).name, e["line"]) for e in index.errors} >= {
        ("bad.sql", 2),
        ("missing.sql", 0),
    }
    assert any(e.kind is EventKind.WARNING and e.data.get("line") == 2 for e in trace.events)


def test_duplicate_definition_keeps_later_and_warns(tmp_path: Path) -> None:
    (tmp_path / "a.sql").write_text("CREATE VIEW dbo.V AS SELECT a FROM dbo.T1\n")
    (tmp_path / "b.sql").write_text("ALTER VIEW dbo.V AS SELECT a FROM dbo.T2\n")
    obj = build_index([tmp_path]).objects["dbo.v"]
    assert obj.reads == {"dbo.t2"} and "defined again" in obj.warnings[0]


def test_progress_and_measurement(tmp_path: Path) -> None:
    for i in range(3):
        (tmp_path / f"p{i}.sql").write_text(
            f"CREATE PROC dbo.P{i} AS INSERT dbo.T{i} SELECT 1 FROM dbo.S\n"
        )
    seen: list[tuple[int, int]] = []
    trace = Trace("test")
    build_index([tmp_path], trace=trace, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 3), (2, 3), (3, 3)]
    assert trace.events[-1].kind is EventKind.MEASUREMENT and trace.events[-1].data["objects"] == 3


PROC = """CREATE PROCEDURE Load.P{i}
AS
BEGIN
    SET NOCOUNT ON
    BEGIN TRY
        SELECT s.ID, s.Amount, d.Region INTO #s{i}
        FROM Stage.S{j} AS s WITH (NOLOCK) JOIN Dim.D{j} AS d ON d.ID = s.ID
        UPDATE f SET f.Amount = t.Amount FROM Fact.F{j} AS f JOIN #s{i} AS t ON t.ID = f.ID
        INSERT INTO Fact.F{j} (ID, Amount) SELECT ID, Amount FROM #s{i} WHERE ID NOT IN (SELECT ID FROM Fact.F{j})
    END TRY
    BEGIN CATCH
        THROW;
    END CATCH
END
GO
"""  # noqa: E501


def test_thousand_procedures(tmp_path: Path) -> None:
    for i in range(1000):
        (tmp_path / f"p{i:04}.sql").write_text(PROC.format(i=i, j=i % 20))
    index = build_index([tmp_path])  # its CPU time: benchmarks/bench_bounds.py
    assert len(index.objects) == 1000
    assert len(index.writers_of("Fact.F7")) == 50
    assert index.objects["load.p7"].flows["fact.f7"] >= {"stage.s7", "dim.d7"}
