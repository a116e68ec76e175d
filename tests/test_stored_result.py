"""The stored result and its downloads (`vitrina.present.stored`, `present.excel`): every row
and type kept through Parquet, CSV written a batch at a time with formula-like text behind a
quote (and plain text and numbers left alone), Excel split over sheets past its row limit
(issue 38)."""

from __future__ import annotations

import csv
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

import openpyxl
import pytest

from vitrina.present import excel as excel_module
from vitrina.present import stored
from vitrina.present.excel import write_excel
from vitrina.warehouse.result import QueryResult

ROWS = [
    ('=HYPERLINK("http://x")', -5, Decimal("1.50"), date(2025, 1, 2)),
    ("-x", 3, None, None),
    ("Москва", None, Decimal("2.25"), date(2025, 1, 3)),
    ("@SUM(A1)", 7, Decimal("0.10"), None),
]
RESULT = QueryResult(columns=["name", "n", "amount", "day"], rows=ROWS)


def test_parquet_keeps_every_row_and_type(tmp_path: Path) -> None:
    path = stored.write_parquet(RESULT, tmp_path / "r.parquet")
    assert stored.row_count(path) == 4
    assert list(stored.rows_of(path)) == ROWS


def test_csv_quotes_formula_text_only(tmp_path: Path) -> None:
    for source in (RESULT, stored.write_parquet(RESULT, tmp_path / "r.parquet")):
        path = stored.write_csv(source, tmp_path / "r.csv")
        with path.open(encoding="utf-8") as f:
            rows = list(csv.reader(f))
        assert rows[0] == ["name", "n", "amount", "day"]
        assert [r[0] for r in rows[1:]] == [
            '\'=HYPERLINK("http://x")',
            "'-x",
            "Москва",
            "'@SUM(A1)",
        ]
        assert rows[1][1:] == ["-5", "1.50", "2025-01-02"]  # a negative number is not text
        assert rows[2][1:] == ["3", "", ""]


def test_csv_of_mixed_and_duplicate_columns(tmp_path: Path) -> None:
    mixed = QueryResult(columns=["v", "v"], rows=[(1, "a"), ("b", None), ([1, 2], "=c")])
    path = stored.write_csv(mixed, tmp_path / "m.csv")
    with path.open(encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows == [["v", "v_2"], ["1", "a"], ["b", ""], ["[1, 2]", "'=c"]]
    nested = QueryResult(columns=["l", "s"], rows=[([1, 2], {"k": "v"}), (None, None)])
    path = stored.write_csv(
        stored.write_parquet(nested, tmp_path / "n.parquet"), tmp_path / "n.csv"
    )
    with path.open(encoding="utf-8") as f:
        assert list(csv.reader(f)) == [["l", "s"], ["[1, 2]", "{'k': 'v'}"], ["", ""]]
    empty = stored.write_csv(QueryResult(columns=["a", "b"], rows=[]), tmp_path / "e.csv")
    assert empty.read_text(encoding="utf-8").strip() == '"a","b"'


def test_excel_splits_rows_past_its_limit_over_sheets(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(excel_module, "EXCEL_MAX_ROWS", 4)  # 3 data rows a sheet
    result = QueryResult(columns=["n"], rows=[(n,) for n in range(8)])
    path = write_excel(result, [], tmp_path / "r.xlsx", lang="en", sheet_title="Data")
    book = openpyxl.load_workbook(path)
    assert book.sheetnames == ["Data", "Data (2)", "Data (3)", "Query"]
    values = [c.value for ws in book.worksheets[:3] for (c,) in ws.iter_rows(min_row=2)]
    assert values == list(range(8))
    note = next(r[1].value for r in book["Query"].iter_rows() if r[0].value == "Note")
    assert "split over 3 sheets" in note


def test_excel_streams_rows_it_is_given(tmp_path: Path) -> None:
    sample = QueryResult(columns=["n"], rows=[(0,), (1,)])  # what a checkpoint keeps
    every = ((n,) for n in range(50))
    path = write_excel(sample, [], tmp_path / "r.xlsx", lang="ru", rows=every, row_count=50)
    sheet = openpyxl.load_workbook(path).worksheets[0]
    assert sheet.max_row == 51 and sheet.cell(51, 1).value == 49


def test_the_png_is_drawn_from_the_prepared_chart_data(tmp_path: Path, monkeypatch) -> None:
    """A reloaded dialog holds a sample: the PNG comes from the data built over every row."""
    from vitrina.present import charts
    from vitrina.present.columns import ColumnMeta, ColumnRole, Grain

    metas = [
        ColumnMeta(
            name="month", role=ColumnRole.PERIOD, label_ru="М", label_en="M", grain=Grain.MONTH
        ),
        ColumnMeta(name="n", role=ColumnRole.METRIC, label_ru="Н", label_en="N"),
    ]
    full = QueryResult(columns=["month", "n"], rows=[(date(2025, m, 1), m) for m in range(1, 13)])
    spec, decision, _events = charts.decide_chart(full, metas, "en")
    assert spec is not None and decision is not None
    assert len(decision.prepared["data"]["labels"]) == 12 and decision.prepared["lang"] == "en"

    def no_rebuild(*args, **kwargs):
        raise AssertionError("chart data built again from the sample")

    monkeypatch.setattr(charts, "build_chart_data", no_rebuild)
    sample = QueryResult(columns=["month", "n"], rows=full.rows[:5])
    png, events = charts.safe_png(decision, sample, metas, "en", tmp_path / "c.png")
    assert png is not None and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", events
    other_lang, _ = charts.safe_png(decision, sample, metas, "ru", tmp_path / "r.png")
    assert other_lang is None  # another language is built again (here: refused by the plant)


@pytest.mark.parametrize(
    "values",
    [
        ["a", None, "=b"],
        [True, None, False],
        [1, None, 2**40],
        [1.5, None, 2],
        [Decimal("1.50"), None, Decimal("-123.4567"), Decimal("0.001"), Decimal("1E+3")],
        [date(2024, 1, 2), None],
        [datetime(2024, 1, 2, 3, 4, 5, 6), None],
        [None, None],
        [datetime(2024, 1, 2, tzinfo=UTC)],
        [Decimal("12345678901234567890.123456789012345678901")],
    ],
)
def test_a_column_is_typed_as_pyarrow_would_type_it(values: list) -> None:
    """`stored._array` types the kinds a driver gives itself (pyarrow.array imports pandas):
    the same type and values as pyarrow's own inference."""
    import pyarrow as pa

    expected = pa.array(values)
    got = stored._array(values)
    assert got.type == expected.type and got.to_pylist() == expected.to_pylist()


@pytest.mark.parametrize("values", [[1, "a"], [2**70], [Decimal("NaN")]])
def test_a_column_of_no_one_arrow_type_is_text(values: list) -> None:
    got = stored._array(values)
    assert got.to_pylist() == [str(v) for v in values]
