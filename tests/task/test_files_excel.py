"""The task's Excel file: a sheet per step, and result text that stays text."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import openpyxl

from vitrina.task.tables import save_table
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
