"""The preview table: labels, formatted cells, the 'first N of M' note, the Rich table."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from rich.console import Console

from vitrina.present.columns import ColumnMeta, ColumnRole, Grain, ValueFormat
from vitrina.present.numbers import NBSP
from vitrina.present.table import render_table, rich_table, table_note
from vitrina.warehouse.result import QueryResult

METAS = [
    ColumnMeta(
        name="month", role=ColumnRole.PERIOD, label_ru="Месяц", label_en="Month", grain=Grain.MONTH
    ),
    ColumnMeta(name="region", role=ColumnRole.DIMENSION, label_ru="Регион", label_en="Region"),
    ColumnMeta(
        name="amount",
        role=ColumnRole.METRIC,
        label_ru="Сумма",
        label_en="Amount",
        fmt=ValueFormat.MONEY,
        unit="RUB",
    ),
]


def _result(n: int, truncated: bool = False) -> QueryResult:
    rows = [
        (date(2025, i % 12 + 1, 1), f"R{i}", Decimal(i * 1000) + Decimal("0.5")) for i in range(n)
    ]
    return QueryResult(columns=["month", "region", "amount"], rows=rows, truncated=truncated)


def test_labels_formatted_cells_and_note() -> None:
    view = render_table(_result(134), METAS, "ru")
    assert view.columns == ["Месяц", "Регион", "Сумма"]
    assert view.shown == 20 and view.total == 134 and len(view.rows) == 20
    assert view.rows[1] == ["февраль 2025", "R1", f"1{NBSP}000,50{NBSP}₽"]
    assert view.note == "Показаны первые 20 из 134"
    assert view.numeric == [False, False, True]
    en = render_table(_result(134), METAS, "en")
    assert en.note == "Showing first 20 of 134"
    assert en.rows[1] == ["February 2025", "R1", f"RUB{NBSP}1,000.50"]


def test_small_result_has_no_note_and_missing_meta_is_text() -> None:
    r = QueryResult(columns=["month", "region", "amount", "extra"], rows=[(None, None, None, "x")])
    view = render_table(r, METAS, "ru")
    assert view.note is None
    assert view.columns[-1] == "extra"
    assert view.rows == [["—", "—", "—", "x"]]


def test_limit_none_and_truncated_note() -> None:
    view = render_table(_result(30, truncated=True), METAS, "en", limit=None)
    assert view.shown == 30
    assert view.note == "The result was cut by the warehouse row cap"
    assert (
        table_note(20, 1500, True, "ru")
        == f"Показаны первые 20 из 1{NBSP}500; результат обрезан лимитом строк хранилища"
    )


def test_rich_table_prints_values_literally() -> None:
    r = QueryResult(columns=["region", "amount"], rows=[("[red]x[/red]", 5)])
    view = render_table(r, METAS, "ru")
    console = Console(record=True, width=100)
    console.print(rich_table(view))
    out = console.export_text()
    assert "[red]x[/red]" in out and "Сумма" in out and "5,00" in out
