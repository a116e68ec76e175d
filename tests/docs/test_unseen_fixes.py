"""One test per bug the unseen-model check found (see test_unseen_model.py for the end-to-end
run)."""

from __future__ import annotations

from pathlib import Path

from vitrina.docs.dax.format import format_dax
from vitrina.docs.lineage import LineageEdge, LineageNode, MeasureLineage
from vitrina.docs.model import Expression, Measure, Model, Table
from vitrina.docs.runfiles import RunFiles
from vitrina.docs.sources import m_sources
from vitrina.docs.sqlindex import build_index
from vitrina.docs.workspace import Workspace
from vitrina.docs.writer.combined import write_combined
from vitrina.docs.writer.i18n import translate_warning
from vitrina.docs.writer.markdown import render_measure
from vitrina.docs.writer.mermaid import MAX_NODES, mermaid

NAV = 'let S = Sql.Database("srv", "dw"), T = S{{[Schema="dwh",Item="{}"]}}[Data] in T'


def _queries() -> Model:
    return Model(
        expressions=[
            Expression(name="Current", expression=NAV.format("TariffCurrent")),
            Expression(name="Archive", expression=NAV.format("TariffArchive")),
        ]
    )


def test_m_every_shared_expression_reference_is_traced() -> None:
    """Table.Combine / NestedJoin of shared queries: each one is a source, not only the first."""
    want = [["dwh.tariffcurrent"], ["dwh.tariffarchive"]]
    for expr in (
        'let C = Table.Combine({#"Current", #"Archive"}) in C',
        "Table.Combine({Current, Archive})",
        'let J = Table.NestedJoin(Current, {"k"}, Archive, {"k"}, "a", JoinKind.LeftOuter) in J',
    ):
        assert [r.objects for r in m_sources(expr, _queries())] == want, expr


def test_m_record_fields_are_not_query_references() -> None:
    model = Model(expressions=[Expression(name="Data", expression=NAV.format("Wrong"))])
    refs = m_sources(NAV.format("Right"), model)
    assert [r.objects for r in refs] == [["dwh.right"]]


def test_index_keeps_the_original_case_for_documents(tmp_path: Path) -> None:
    (tmp_path / "t.sql").write_text(
        "CREATE TABLE [Fact].[Sale] (id INT)\nGO\nCREATE VIEW Rpt.vSale AS SELECT id "
        "FROM Fact.Sale\nGO\n",
        encoding="utf-8",
    )
    index = build_index([tmp_path])
    assert index.get("fact.sale").name == "fact.sale"  # the key stays lower case
    assert index.display("FACT.SALE") == "Fact.Sale" and index.display("rpt.vsale") == "Rpt.vSale"
    assert index.display("dbo.unknown") == "dbo.unknown"


def _big_lineage(n: int) -> MeasureLineage:
    nodes = [LineageNode(id=f"s:t{i}", kind="table", label=f"dbo.T{i}") for i in range(n)]
    edges = [
        LineageEdge(source=f"s:t{i}", target=f"s:t{i + 1}", label="reads") for i in range(n - 1)
    ]
    return MeasureLineage(measure="M", table="T", expression="1", nodes=nodes, edges=edges)


def test_mermaid_cap_is_said_in_the_document() -> None:
    lin = _big_lineage(MAX_NODES + 5)
    assert 'more["ещё объектов: 5, см. таблицы ниже"]' in mermaid(lin, "ru")
    assert '-->|"читает"|' in mermaid(lin, "ru") and '-->|"reads"|' in mermaid(lin, "en")
    doc = render_measure(lin, Measure(name="M", table="T", expression="1"), topic="x", lang="ru")
    assert f"Диаграмма сокращена: показаны {MAX_NODES} из {MAX_NODES + 5} объектов" in doc
    en = render_measure(lin, Measure(name="M", table="T", expression="1"), topic="x", lang="en")
    assert f"The diagram is cut: it shows {MAX_NODES} of {MAX_NODES + 5} objects" in en
    small = render_measure(
        _big_lineage(3), Measure(name="M", table="T", expression="1"), topic="x", lang="en"
    )
    assert "The diagram is cut" not in small


def test_warnings_are_translated_and_unknown_ones_kept() -> None:
    assert translate_warning("'T': unsupported source Csv.Document: lineage stops here", "ru") == (
        "'T': неподдерживаемый источник Csv.Document: происхождение дальше не прослеживается"
    )
    assert (
        translate_warning("unresolved reference 'T'[x] in [M]", "ru")
        == "неразрешённая ссылка 'T'[x] в [M]"
    )
    assert translate_warning("something new: odd", "ru") == "something new: odd"
    assert (
        translate_warning("unresolved reference 'T'[x] in [M]", "en")
        == "unresolved reference 'T'[x] in [M]"
    )


def test_multiline_block_comment_ends_its_line() -> None:
    assert format_dax("/* a\n   b */ [X] * 2") == "/* a\n   b */\n[X] * 2"
    assert format_dax("/* one line */ [X] * 2") == "/* one line */ [X] * 2"


def test_combined_manual_lists_missed_measures_and_fixes_outside_links(tmp_path: Path) -> None:
    measures = tmp_path / "measures"
    measures.mkdir()
    (measures / "A.md").write_text("# [A]\n\nuses [[B]](B.md)\n", encoding="utf-8")
    files = RunFiles(tmp_path / "run")
    files.reset()
    files.write_queue(
        [
            {"topics": ["Sales"], "table": "T", "measure": "A"},
            {"topics": ["Sales"], "table": "T", "measure": "Slow"},
        ],
        [
            {
                "measure": "Totl",
                "topic": "Sales",
                "reason": "not found",
                "suggestions": ["Total"],
                "detail": "x",
            }
        ],
        {"topics": ["Sales"]},
    )
    files.record(
        {
            "i": 0,
            "measure": "A",
            "table": "T",
            "topics": ["Sales"],
            "file": "A.md",
            "hash": "h",
            "status": "created",
        },
        "{}",
    )
    files.record(
        {
            "i": 1,
            "measure": "Slow",
            "table": "T",
            "topics": ["Sales"],
            "status": "missed",
            "reason": "timeout",
            "detail": "over 60 s",
            "suggestions": [],
        }
    )
    model = Model(
        name="m",
        tables=[
            Table(
                name="T",
                measures=[
                    Measure(name="A", table="T", expression="1"),
                    Measure(name="Slow", table="T", expression="1"),
                ],
            )
        ],
    )
    manual, _ = write_combined(
        tmp_path, files, Workspace(model), request={"model": "m.bim", "lang": "en"}
    )
    text = manual.read_text(encoding="utf-8")
    assert "[Not documented](#missed) (2)" in text and "## Not documented" in text
    assert "| [Totl] | Sales | not found in the model | did you mean [Total] |" in text
    assert "| [Slow] | Sales | time limit | over 60 s |" in text
    assert "](measures/B.md)" in text  # a document outside the manual is reached in its folder
