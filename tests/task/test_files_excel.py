"""The task's Excel file: a sheet per step, and result text that stays text."""

from __future__ import annotations

import csv
from datetime import date
from decimal import Decimal
from pathlib import Path

import openpyxl

from vitrina.task.tables import load_table, save_table
from vitrina.task.tools.files import _excel

HOSTILE = ['=HYPERLINK("http://x.test","click")', "=cmd|' /C calc'!A0", "+1+2", "@SUM(A1)"]


def test_hostile_text_from_the_warehouse_is_written_as_plain_text(tmp_path: Path) -> None:
    rows = [[text, Decimal("12.5"), date(2026, 5, 1), None] for text in HOSTILE]
    table = save_table(tmp_path, "t1", ["name", "amount", "day", "empty"], rows)
    out = tmp_path / "results.xlsx"
    _excel([(1, "=1+1 title", table), (2, "Второй шаг", table)], out, "ru")
    book = openpyxl.load_workbook(out)
    assert book.sheetnames == ["Шаг 1", "Шаг 2"]
    sheet = book["Шаг 1"]
    assert sheet["A1"].value == "=1+1 title" and sheet["A1"].data_type == "s"
    assert [c.value for c in sheet[2]] == ["name", "amount", "day", "empty"]
    for n, text in enumerate(HOSTILE, start=3):
        cell = sheet.cell(row=n, column=1)
        assert cell.value == text and cell.data_type == "s", text
        assert cell.hyperlink is None
        assert sheet.cell(row=n, column=2).value == 12.5
        assert sheet.cell(row=n, column=3).value.date() == date(2026, 5, 1)
        assert sheet.cell(row=n, column=4).value is None


def test_formula_like_text_is_neutralised_in_the_csv_and_the_excel(tmp_path: Path) -> None:
    """OWASP's rule: in the CSV a text cell starting with = + - @ tab or CR gets a leading ';
    in the .xlsx it keeps its value with Excel's quote prefix. Numbers (a negative one too)
    stay numbers; the JSON later steps read keeps every value as it came."""
    texts = [*HOSTILE, "-2+3", "\tcmd", "\rcmd", "Москва"]
    rows = [[text, -5, Decimal("-1.5")] for text in texts]
    table = save_table(tmp_path, "t1", ["=name", "n", "x"], rows)
    with table.with_suffix(".csv").open(encoding="utf-8-sig", newline="") as fh:
        read = list(csv.reader(fh))
    assert read[0] == ["'=name", "n", "x"]
    for text, row in zip(texts, read[1:], strict=True):
        expected = text if text == "Москва" else "'" + text
        assert row == [expected, "-5", "-1.5"], row
    assert load_table(table).rows[0][0] == HOSTILE[0]  # the JSON is untouched

    out = tmp_path / "results.xlsx"
    _excel([(1, "-title", table)], out, "en")
    sheet = openpyxl.load_workbook(out)["Step 1"]
    assert sheet["A1"].value == "-title" and sheet["A1"].quotePrefix
    assert sheet["A2"].value == "=name" and sheet["A2"].quotePrefix and not sheet["B2"].quotePrefix
    for n, text in enumerate(texts, start=3):
        cell = sheet.cell(row=n, column=1)
        value = cell.value.replace("_x000D_", "\r")  # openpyxl leaves Excel's CR escape
        assert value == text and cell.data_type == "s"
        assert cell.quotePrefix == (text != "Москва"), text
        assert sheet.cell(row=n, column=2).value == -5
        assert sheet.cell(row=n, column=2).data_type == "n"
        assert sheet.cell(row=n, column=3).value == -1.5
