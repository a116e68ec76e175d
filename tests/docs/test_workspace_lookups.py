"""The run's name maps and the SQL index's shared schema: same answers as the scans they
replace, and built once per run rather than once per lookup (issue 15: both made the
10,000-measure docs run quadratic)."""

from __future__ import annotations

import pytest

from vitrina.docs.model import Measure, Model, Table
from vitrina.docs.sqlindex import SqlIndex, SqlObject
from vitrina.docs.workspace import Workspace


def _model() -> Model:
    """Two tables whose names differ only in case, and a measure name repeated across them."""
    return Model(
        tables=[
            Table(
                name="Sales",
                measures=[
                    Measure(name="Total", table="Sales", expression="1"),
                    Measure(name="Margin %", table="Sales", expression="2"),
                ],
            ),
            Table(
                name="SALES",
                measures=[Measure(name="Extra", table="SALES", expression="3")],
            ),
            Table(
                name="Stock",
                measures=[Measure(name="total", table="Stock", expression="4")],
            ),
        ]
    )


@pytest.mark.parametrize("name", ["Sales", "sales", "SALES", "Stock", "stock", "Nope"])
def test_table_lookup_matches_the_model(name: str) -> None:
    model = _model()
    ws = Workspace(model)
    assert ws.table(name) is model.table(name)


@pytest.mark.parametrize("name", ["Total", "TOTAL", "total", "margin %", "Extra", "Nope"])
def test_measure_by_name_matches_the_model(name: str) -> None:
    model = _model()
    ws = Workspace(model)
    assert ws.measure_by_name(name) is model.measure(name)


def test_measure_of_a_table_is_exact_and_in_the_first_table_of_that_name() -> None:
    ws = Workspace(_model())
    found = ws.measure("sales", "Total")
    assert found is not None and found.expression == "1"
    assert ws.measure("Sales", "total") is None  # the measure name is matched exactly
    assert ws.measure("SALES", "Extra") is None  # "SALES" resolves to the first table, Sales
    stock = ws.measure("stock", "total")
    assert stock is not None and stock.expression == "4"
    assert ws.measure("Nope", "Total") is None


def _index(n_views: int) -> SqlIndex:
    objs = [
        SqlObject(name="fact.sale", kind="table", file="t.sql", line=1, columns=["Id", "Amount"])
    ]
    for i in range(n_views):
        objs.append(
            SqlObject(
                name=f"rpt.v{i}",
                kind="view",
                file="v.sql",
                line=i + 1,
                reads={"fact.sale"},
                query="SELECT Id, Amount FROM fact.Sale",
            )
        )
    return SqlIndex(objects={o.name: o for o in objs})


def test_column_lineage_builds_the_schema_once(monkeypatch: pytest.MonkeyPatch) -> None:
    index = _index(5)
    calls = []
    original = SqlIndex._schema

    def counted(self: SqlIndex) -> dict:
        calls.append(1)
        return original(self)

    monkeypatch.setattr(SqlIndex, "_schema", counted)
    for i in range(5):
        assert index.column_lineage(f"rpt.v{i}", "Amount") == [("fact.sale", "Amount")]
        assert index.column_lineage(f"rpt.v{i}", "id") == [("fact.sale", "Id")]
    assert len(calls) == 1


def test_column_lineage_sees_a_table_added_later() -> None:
    index = _index(1)
    assert index.column_lineage("rpt.v0", "Amount") == [("fact.sale", "Amount")]
    index.objects["fact.extra"] = SqlObject(
        name="fact.extra", kind="table", file="t.sql", line=9, columns=["Qty"]
    )
    index.objects["rpt.vextra"] = SqlObject(
        name="rpt.vextra",
        kind="view",
        file="v.sql",
        line=9,
        reads={"fact.extra"},
        query="SELECT * FROM fact.Extra",  # expanding the star needs the new table's columns
    )
    assert index.column_lineage("rpt.vextra", "Qty") == [("fact.extra", "Qty")]
