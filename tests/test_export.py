"""The Excel export reopened with openpyxl: types, values, formats, header, filter, query sheet."""

from __future__ import annotations

import time as clock
import zipfile
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

from openpyxl import load_workbook

from vitrina.present.columns import ColumnMeta, ColumnRole, Grain, ValueFormat
from vitrina.present.excel import number_format, safe_sheet_title, write_excel
from vitrina.warehouse.result import QueryResult

METAS = [
    ColumnMeta(
        name="day", role=ColumnRole.PERIOD, label_ru="День", label_en="Day", grain=Grain.DAY
    ),
    ColumnMeta(name="client_id", role=ColumnRole.ID, label_ru="Клиент", label_en="Client"),
    ColumnMeta(name="region", role=ColumnRole.DIMENSION, label_ru="Регион", label_en="Region"),
    ColumnMeta(
        name="n", role=ColumnRole.METRIC, label_ru="Кол-во", label_en="Count", fmt=ValueFormat.COUNT
    ),
    ColumnMeta(
        name="amount",
        role=ColumnRole.METRIC,
        label_ru="Сумма",
        label_en="Amount",
        fmt=ValueFormat.MONEY,
        unit="RUB",
    ),
    ColumnMeta(
        name="share",
        role=ColumnRole.METRIC,
        label_ru="Доля",
        label_en="Share",
        fmt=ValueFormat.PERCENT,
    ),
    ColumnMeta(name="active", role=ColumnRole.ATTRIBUTE, label_ru="Активен", label_en="Active"),
    ColumnMeta(
        name="seen",
        role=ColumnRole.ATTRIBUTE,
        label_ru="Визит",
        label_en="Seen",
        fmt=ValueFormat.DATE,
    ),
]
COLUMNS = [m.name for m in METAS]


def test_types_values_formats_and_query_sheet(tmp_path: Path) -> None:
    rows = [
        (date(2025, 5, 1), 42, "Москва", 12345, Decimal("1234.50"), 12.5, True, datetime(2025, 5, 1, 10, 30)),
        (date(2025, 5, 2), 1234567890123456789, "=1+1", None, 0.005, None, False,
         datetime(2025, 5, 2, 9, 0, tzinfo=UTC)),
        (None, None, "bad\x01char", -7, Decimal("NaN"), float("nan"), None, None),
    ]  # fmt: skip
    result = QueryResult(columns=COLUMNS, rows=rows, truncated=True)
    path = write_excel(
        result, METAS, tmp_path / "out" / "a.xlsx", lang="ru", sheet_title="Кошельки: май/2025",
        question="Сколько кошельков?", sql="SELECT 1", period_label="май 2025",
    )  # fmt: skip
    assert path.exists()
    wb = load_workbook(path)
    assert wb.sheetnames == ["Кошельки  май 2025", "Запрос"]
    ws = wb.worksheets[0]
    assert [c.value for c in ws[1]] == [m.label_ru for m in METAS]
    assert ws[1][0].font.bold
    assert ws.freeze_panes == "A2"
    assert ws.auto_filter.ref == "A1:H4"
    assert ws.max_row == 4
    r2 = [c.value for c in ws[2]]
    assert r2[0] == datetime(2025, 5, 1) and r2[1] == 42 and r2[2] == "Москва"
    assert r2[3] == 12345 and r2[4] == 1234.5 and r2[5] == 12.5 and r2[6] is True
    assert r2[7] == datetime(2025, 5, 1, 10, 30)
    cells = ws[2]
    assert cells[0].number_format == "DD.MM.YYYY"
    assert cells[3].number_format == "#,##0"
    assert cells[4].number_format == '#,##0.00" ₽"'
    assert cells[5].number_format == '0.0"%"'
    assert cells[0].is_date and cells[4].data_type == "n"
    r3 = [c.value for c in ws[3]]
    assert r3[1] == "1234567890123456789"  # an id over 15 digits stays exact, as text
    assert r3[2] == "=1+1" and ws[3][2].data_type == "s"  # text, never a formula
    assert r3[3] is None and r3[4] == 0.005 and r3[6] is False
    assert r3[7] == datetime(2025, 5, 2, 9, 0)  # tz dropped, Excel has none
    r4 = [c.value for c in ws[4]]
    assert r4[2] == "badchar" and r4[3] == -7 and r4[4] is None and r4[5] is None
    assert ws.column_dimensions["C"].width >= 8
    q = wb["Запрос"]
    pairs = {row[0].value: row[1].value for row in q.iter_rows()}
    assert pairs["Вопрос"] == "Сколько кошельков?"
    assert pairs["SQL"] == "SELECT 1"
    assert pairs["Период"] == "май 2025"
    assert isinstance(pairs["Сформировано"], datetime)
    assert pairs["Строк"] == 3
    assert "обрезан" in pairs["Примечание"]


def test_english_formats_and_query_sheet(tmp_path: Path) -> None:
    result = QueryResult(columns=["day", "amount"], rows=[(date(2025, 5, 1), 10)])
    path = write_excel(
        result,
        METAS,
        tmp_path / "b.xlsx",
        lang="en",
        sheet_title="",
        question="q",
        sql="s",
        period_label=None,
    )
    wb = load_workbook(path)
    assert wb.sheetnames == ["Data", "Query"]
    ws = wb["Data"]
    assert ws["A2"].number_format == "YYYY-MM-DD"
    assert ws["B2"].number_format == '"RUB "#,##0.00'
    assert {r[0].value: r[1].value for r in wb["Query"].iter_rows()}["Period"] == "—"


def test_number_formats_by_meaning() -> None:
    month = ColumnMeta(
        name="m", role=ColumnRole.PERIOD, label_ru="", label_en="", grain=Grain.MONTH
    )
    assert number_format(month, "ru") == "MM.YYYY"
    assert number_format(METAS[2], "ru") is None
    assert safe_sheet_title("a" * 40) == "a" * 31
    assert safe_sheet_title("[]*?", "Data") == "Data"


def test_100k_rows_write_in_reasonable_time(tmp_path: Path) -> None:
    metas = [METAS[0], METAS[2], METAS[3], METAS[4]]
    rows = [(date(2025, 1, 1 + i % 28), f"R{i % 50}", i, Decimal(i) / 7) for i in range(100_000)]
    result = QueryResult(columns=[m.name for m in metas], rows=rows)
    start = clock.perf_counter()
    path = write_excel(
        result,
        metas,
        tmp_path / "big.xlsx",
        lang="ru",
        sheet_title="big",
        question="",
        sql="",
        period_label=None,
    )
    elapsed = clock.perf_counter() - start
    assert elapsed < 60, elapsed
    with zipfile.ZipFile(path) as z:
        xml = z.read("xl/worksheets/sheet1.xml").decode()
    assert '<row r="100001"' in xml and '<row r="100002"' not in xml
