"""The Excel file of an answer: the FULL result with native number formats, and the query.

Cells keep their types (numbers stay numbers, dates stay dates); formats, widths, a frozen
header and an autofilter make the sheet usable at once. Written with XlsxWriter, which costs a
fraction of openpyxl's time (docs/decisions/125-excel-on-xlsxwriter.md); large results stream
row by row (constant-memory mode), small ones are zipped in memory without temporary files.

Text from a result never becomes a formula or a link: every value is written with its typed
writer (a string with `write_string`, never the guessing `write`), and the workbook's
string-to-formula, string-to-URL and string-to-number conversions are off as well. Text that
starts like a formula (`vitrina.present.formulas`) also carries Excel's quote prefix, so
editing the cell or saving the sheet as CSV keeps it text.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Iterable, Sequence
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import xlsxwriter
from xlsxwriter.exceptions import FileCreateError
from xlsxwriter.format import Format
from xlsxwriter.worksheet import Worksheet

from vitrina.present.columns import ColumnMeta, ColumnRole, Grain, ValueFormat
from vitrina.present.formulas import is_formula_text
from vitrina.present.numbers import Lang, format_value, metas_for
from vitrina.present.pivot import pivot
from vitrina.present.summary import is_period
from vitrina.warehouse.result import QueryResult

EXCEL_MAX_ROWS = 1_048_576
WIDTH_SAMPLE_ROWS = 500
MIN_WIDTH, MAX_WIDTH = 8, 60
TITLE_MAX = 31  # Excel's limit, counted in UTF-16 code units as Excel counts it
TEXT_MAX = 32767  # characters in one cell
# Above this many cells the sheet is streamed to a temporary file row by row (constant-memory
# mode: flat memory, same features); below it the whole file is built in memory, which spares
# the temporary files a small answer would otherwise pay for.
CONSTANT_MEMORY_CELLS = 10_000
_BAD_TITLE = re.compile(r"[\[\]:*?/\\]")
_TITLE_EDGES = re.compile(r"^[\s']+|[\s']+$")  # Excel refuses a title that starts/ends with '
# characters XML 1.0 cannot hold (control characters, lone surrogates, U+FFFE/U+FFFF)
ILLEGAL_CHARACTERS_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
# the format of a date value in a column without a date format (openpyxl's defaults)
DEFAULT_DATE_FORMATS: dict[type, str] = {
    datetime: "yyyy-mm-dd h:mm:ss",
    date: "yyyy-mm-dd",
    time: "h:mm:ss",
    timedelta: "[hh]:mm:ss",
}
HEADER_FILL = "#DDEBF7"
WORKBOOK_OPTIONS = {  # no value is ever reinterpreted: text stays text
    "strings_to_formulas": False,
    "strings_to_urls": False,
    "strings_to_numbers": False,
    "remove_timezone": True,
}

QUERY_SHEET = {"ru": "Запрос", "en": "Query"}
PIVOT_SHEET = {"ru": "Сводная", "en": "Pivot"}  # two breakdowns: the cross table
PIVOT_MAX_ROWS = 100_000  # the cross table is built in memory: only for results held whole
QUERY_LABELS = {
    "ru": ("Вопрос", "SQL", "Период", "Сформировано", "Строк", "Примечание"),
    "en": ("Question", "SQL", "Period", "Generated", "Rows", "Note"),
}


def number_format(meta: ColumnMeta, lang: Lang | str) -> str | None:
    """The Excel number format of a column (None: General)."""
    ru = lang == "ru"
    date_fmt = "DD.MM.YYYY" if ru else "YYYY-MM-DD"
    if is_period(meta):
        if meta.grain is Grain.MONTH:
            return "MM.YYYY" if ru else "YYYY-MM"
        if meta.grain is Grain.YEAR:
            return "YYYY"
        return date_fmt
    if meta.role is ColumnRole.ID:
        return "@" if meta.fmt is ValueFormat.TEXT else "0"
    if meta.fmt is ValueFormat.MONEY:
        if meta.unit and meta.unit.upper() == "RUB":
            return '#,##0.00" ₽"' if ru else '"RUB "#,##0.00'
        if meta.unit:
            return f'#,##0.00" {meta.unit}"' if ru else f'"{meta.unit} "#,##0.00'
        return "#,##0.00"
    if meta.fmt is ValueFormat.COUNT:
        return "#,##0"
    if meta.fmt is ValueFormat.PERCENT:
        return '0.0"%"'  # values are percent points: 12.5 means 12.5%
    if meta.fmt is ValueFormat.NUMBER:
        return "#,##0.00"
    if meta.fmt is ValueFormat.DATE:
        return date_fmt
    return None


def is_date_column(meta: ColumnMeta) -> bool:
    """A column whose number format is a date format (a period, or a DATE attribute)."""
    return is_period(meta) or (meta.role is not ColumnRole.ID and meta.fmt is ValueFormat.DATE)


def excel_value(value: Any) -> Any:
    """A value Excel holds natively: numbers, dates, bools, text without illegal characters
    (None: an empty cell, also for NaN and infinities, which Excel cannot hold)."""
    if value is None or isinstance(value, bool | int | Decimal | date | time | timedelta):
        if isinstance(value, Decimal) and not value.is_finite():
            return None
        if isinstance(value, datetime | time) and value.tzinfo is not None:
            return value.replace(tzinfo=None)
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    item = getattr(value, "item", None)
    if callable(item) and type(value).__module__.startswith("numpy"):
        return excel_value(item())
    if isinstance(value, bytes):
        value = value.hex()
    text = ILLEGAL_CHARACTERS_RE.sub("", str(value))
    return text[:TEXT_MAX]


def safe_sheet_title(title: str, fallback: str = "Data") -> str:
    """A valid sheet title: no []:*?/\\, no ' at either end, at most 31 UTF-16 units, never
    empty; "History" (reserved by Excel) becomes the fallback."""
    cleaned = ILLEGAL_CHARACTERS_RE.sub("", _BAD_TITLE.sub(" ", title or ""))
    cleaned = _TITLE_EDGES.sub("", _TITLE_EDGES.sub("", cleaned)[:TITLE_MAX])
    while len(cleaned.encode("utf-16-le")) > 2 * TITLE_MAX:  # astral characters count twice
        cleaned = _TITLE_EDGES.sub("", cleaned[:-1])
    if not cleaned or cleaned.lower() == "history":
        return fallback
    return cleaned


def _widths(result: QueryResult, metas: Sequence[ColumnMeta], lang: Lang | str) -> list[float]:
    """Each column as wide as its longest shown value in the first rows (formatting is most
    of a small file's cost, so a value met again in a column is not formatted again)."""
    widths = []
    sample = result.rows[:WIDTH_SAMPLE_ROWS]
    for i, meta in enumerate(metas):
        longest = len(meta.label(lang))
        seen: set[tuple[Any, ...]] = set()
        for row in sample:
            value = row[i]
            key = _width_key(value)
            if key is not None:
                if key in seen:
                    continue
                seen.add(key)
            longest = max(longest, len(format_value(value, meta, lang)))
        widths.append(float(min(MAX_WIDTH, max(MIN_WIDTH, longest + 2))))
    return widths


def _width_key(value: Any) -> tuple[Any, ...] | None:
    """What a value's shown length depends on: its type and value, and a Decimal's exponent
    (Decimal("1") shows as 1, Decimal("1.0") as 1.00); None for an unhashable value."""
    exponent = value.as_tuple().exponent if isinstance(value, Decimal) else None
    key = (type(value), value, exponent)
    try:
        hash(key)
    except TypeError:
        return None
    return key


class _Formats:
    """One XlsxWriter format per distinct look, made once per workbook."""

    def __init__(self, wb: xlsxwriter.Workbook) -> None:
        self._wb = wb
        self._made: dict[tuple[tuple[str, Any], ...], Format] = {}

    def get(self, **props: Any) -> Format | None:
        """The format of these properties (None when there are none: General)."""
        props = {k: v for k, v in props.items() if v is not None}
        if not props:
            return None
        key = tuple(sorted(props.items()))
        made = self._made.get(key)
        if made is None:
            made = self._made[key] = self._wb.add_format(props)
        return made


def _writer(
    ws: Worksheet,
    column_format: Format | None,
    date_format: Format | None,
    formats: _Formats,
    column_props: dict[str, Any] | None = None,
) -> Callable[[int, int, Any], None]:
    """The typed cell writer of one column: strings through `write_string` only (so "=..."
    stays text, with Excel's quote prefix when it starts like a formula), numbers and bools
    natively, dates with the column's date format when it has one, else with the default
    format of their type. None writes nothing. `column_props`: the properties of
    `column_format`, for its quote-prefixed twin."""
    write_string, write_number = ws.write_string, ws.write_number
    write_boolean, write_datetime = ws.write_boolean, ws.write_datetime
    # numbers in a date column (a month number, a year) are not serial dates: General
    number_format_ = None if date_format is not None else column_format
    quoted: list[Format | None] = []  # made on the first formula-like text of the column

    def write_text(row: int, col: int, value: str) -> None:
        if is_formula_text(value):
            if not quoted:
                quoted.append(formats.get(**(column_props or {}), quote_prefix=True))
            write_string(row, col, value, quoted[0])
        else:
            write_string(row, col, value, column_format)

    def write(row: int, col: int, value: Any) -> None:
        kind = type(value)
        if kind is str:
            write_text(row, col, value)
        elif kind is int or kind is float or kind is Decimal:
            write_number(row, col, value, number_format_)
        elif value is None:
            return
        elif isinstance(value, bool):
            write_boolean(row, col, value, column_format)
        elif isinstance(value, int | float | Decimal):
            write_number(row, col, value, number_format_)
        elif isinstance(value, datetime | date) and date_format is not None:
            write_datetime(row, col, value, date_format)
        elif isinstance(value, date | time | timedelta):
            default = next(f for t, f in DEFAULT_DATE_FORMATS.items() if isinstance(value, t))
            write_datetime(row, col, value, formats.get(num_format=default))
        else:
            write_text(row, col, str(value))

    return write


def typed_writer(wb: xlsxwriter.Workbook, ws: Worksheet) -> Callable[[int, int, Any], None]:
    """The cell writer of a plain sheet (no column formats): text as text, numbers and bools
    natively, dates in their type's default format. For sheets other than the answer's."""
    return _writer(ws, None, None, _Formats(wb))


MAX_SHEETS = 16  # data sheets of one file (16.7M rows); past it the file says what it holds


def _sheet_titles(title: str, sheets: int) -> list[str]:
    """The data sheets' titles: the answer's, then numbered copies within Excel's 31 units."""
    titles = [title]
    for n in range(2, sheets + 1):
        suffix = f" ({n})"
        titles.append(safe_sheet_title(title[: TITLE_MAX - len(suffix)] + suffix, title))
    return titles


def _data_sheet(
    wb: xlsxwriter.Workbook,
    formats: _Formats,
    title: str,
    metas: Sequence[ColumnMeta],
    widths: list[float],
    lang: Lang | str,
    rows: int,
) -> Callable[[int, tuple[Any, ...]], None]:
    """A data sheet with its header, widths and filter; returns its row writer."""
    n_cols = len(metas)
    ws = wb.add_worksheet(title)
    for i, width in enumerate(widths):
        ws.set_column(i, i, width)
    ws.freeze_panes(1, 0)
    if n_cols:
        ws.autofilter(0, 0, rows, n_cols - 1)
    header_props = {
        "bold": True,
        "pattern": 1,
        "bg_color": HEADER_FILL,
        "valign": "vcenter",
        "text_wrap": True,
    }
    write_header = _writer(ws, formats.get(**header_props), None, formats, header_props)
    for i, meta in enumerate(metas):
        write_header(0, i, str(excel_value(meta.label(lang))))
    writers, converts = [], []
    for meta in metas:
        props = {"num_format": number_format(meta, lang)}
        fmt = formats.get(**props)
        writers.append(_writer(ws, fmt, fmt if is_date_column(meta) else None, formats, props))
        converts.append(_id_text if meta.role is ColumnRole.ID else _worded(meta, lang))
    columns = list(zip(range(n_cols), converts, writers, strict=True))

    def write_row(r: int, row: tuple[Any, ...]) -> None:
        for (c, convert, write), v in zip(columns, row, strict=False):
            write(r, c, convert(v))

    return write_row


def _pivot_sheet(
    wb: xlsxwriter.Workbook,
    formats: _Formats,
    result: QueryResult,
    metas: Sequence[ColumnMeta],
    title: str,
    lang: Lang | str,
) -> None:
    """Two breakdowns, one metric: the cross table on a second sheet (`present.pivot`)."""
    crossed = pivot(result, list(metas))
    if crossed is None:
        return
    table, table_metas = crossed
    name = PIVOT_SHEET[lang] if PIVOT_SHEET[lang] != title else f"{PIVOT_SHEET[lang]} 2"
    widths = _widths(table, table_metas, lang)
    write_row = _data_sheet(wb, formats, name, table_metas, widths, lang, len(table.rows))
    for r, row in enumerate(table.rows, start=1):
        write_row(r, tuple(row))


def write_excel(
    result: QueryResult,
    metas: Iterable[ColumnMeta],
    path: str | Path,
    *,
    lang: Lang | str = "ru",
    sheet_title: str = "",
    question: str = "",
    sql: str = "",
    period_label: str | None = None,
    generated_at: datetime | None = None,
    rows: Iterable[tuple[Any, ...]] | None = None,
    row_count: int | None = None,
) -> Path:
    """Write the full result and a query sheet to ``path`` (.xlsx); return the path.

    ``rows`` / ``row_count``: every row when ``result`` holds a sample (a stored result read
    batch by batch); the rows are written one by one, never held. Past Excel's 1,048,576 rows
    a sheet the rows go on in numbered sheets (at most MAX_SHEETS), and the query sheet says
    how they are split. Raises OSError when the file cannot be written."""
    path = Path(path)
    metas = metas_for(result, metas)
    lang = "ru" if lang == "ru" else "en"
    total = result.row_count if row_count is None else row_count
    per_sheet = EXCEL_MAX_ROWS - 1
    written = min(total, per_sheet * MAX_SHEETS)
    sheets = max(1, -(-written // per_sheet))
    big = written * max(1, len(result.columns)) > CONSTANT_MEMORY_CELLS
    path.parent.mkdir(parents=True, exist_ok=True)
    wb = xlsxwriter.Workbook(
        str(path), {**WORKBOOK_OPTIONS, "constant_memory": big, "in_memory": not big}
    )
    formats = _Formats(wb)
    title = safe_sheet_title(sheet_title, "Данные" if lang == "ru" else "Data")
    titles = _sheet_titles(title, sheets)
    widths = _widths(result, metas, lang)
    source = iter(result.rows if rows is None else rows)
    for n, sheet in enumerate(titles):
        count = min(per_sheet, written - n * per_sheet)
        write_row = _data_sheet(wb, formats, sheet, metas, widths, lang, count)
        for r, row in enumerate(itertools.islice(source, count), start=1):
            write_row(r, row)
    if len(result.rows) == total <= PIVOT_MAX_ROWS:  # the result is held whole
        _pivot_sheet(wb, formats, result, metas, title, lang)

    _write_query_sheet(
        wb,
        formats,
        lang,
        title=_query_title(QUERY_SHEET[lang], title),
        question=question,
        sql=sql,
        period_label=period_label,
        generated_at=generated_at or datetime.now().replace(microsecond=0),
        rows=written,
        note=_note(result, written, total, sheets, lang),
    )
    try:
        wb.close()
    except FileCreateError as exc:  # the callers handle an unwritable file as an OSError
        cause = exc.args[0] if exc.args and isinstance(exc.args[0], OSError) else None
        raise (cause or OSError(str(exc))) from exc
    return path


def _worded(meta: ColumnMeta, lang: Lang | str) -> Callable[[Any], Any]:
    """The cell converter of a column: a coded column's values as the dictionary's words
    (the sheet is read by people; the SQL keeps the codes)."""
    labels = meta.value_labels_ru if lang == "ru" else meta.value_labels_en
    if not labels:
        return excel_value
    return lambda value: excel_value(labels.get(str(value), value) if value is not None else None)


def _id_text(value: Any) -> Any:
    """Ids longer than Excel's 15 significant digits are written as text."""
    value = excel_value(value)
    if isinstance(value, int | Decimal) and not isinstance(value, bool) and abs(value) >= 10**15:
        return str(value)
    return value


def _query_title(title: str, taken: str) -> str:
    """The query sheet's title, numbered when the data sheet already has it (as openpyxl did:
    Excel compares titles ignoring case)."""
    return f"{title}1" if title.lower() == taken.lower() else title


def _note(result: QueryResult, written: int, total: int, sheets: int, lang: str) -> str | None:
    notes = []
    if result.truncated:
        notes.append(
            "результат обрезан лимитом строк хранилища"
            if lang == "ru"
            else "the result was cut by the warehouse row cap"
        )
    if sheets > 1:
        notes.append(
            f"строки разбиты на {sheets} листа(ов) по {EXCEL_MAX_ROWS - 1:,} (предел Excel)"
            if lang == "ru"
            else f"the rows are split over {sheets} sheets of {EXCEL_MAX_ROWS - 1:,} "
            "(Excel's limit)"
        )
    if written < total:
        notes.append(
            f"Excel вмещает {written} строк из {total}: все строки есть в CSV и Parquet"
            if lang == "ru"
            else f"Excel holds {written} of {total} rows: CSV and Parquet have every row"
        )
    return "; ".join(notes) or None


def _write_query_sheet(
    wb: xlsxwriter.Workbook,
    formats: _Formats,
    lang: str,
    *,
    title: str,
    question: str,
    sql: str,
    period_label: str | None,
    generated_at: datetime,
    rows: int,
    note: str | None,
) -> None:
    ws = wb.add_worksheet(title)
    ws.set_column(0, 0, 16)
    ws.set_column(1, 1, 100)
    bold = formats.get(bold=True, valign="top")
    wrap_props = {"text_wrap": True, "valign": "top"}
    wrap = formats.get(**wrap_props)
    when = formats.get(
        num_format="DD.MM.YYYY HH:MM:SS" if lang == "ru" else "YYYY-MM-DD HH:MM:SS",
        align="left",
    )
    count = formats.get(align="left")
    values: list[tuple[Any, Format | None]] = [
        (question, wrap),
        (sql, wrap),
        (period_label or "—", wrap),
        (generated_at, when),
        (rows, count),
    ]
    if note:
        values.append((note, wrap))
    for r, (label, (value, style)) in enumerate(zip(QUERY_LABELS[lang], values, strict=False)):
        ws.write_string(r, 0, label, bold)
        props = wrap_props if style is wrap else None
        _writer(ws, style, style if style is when else None, formats, props)(
            r, 1, excel_value(value)
        )
