"""The Excel file of an answer: the FULL result with native number formats, and the query.

Cells keep their types (numbers stay numbers, dates stay dates); formats, widths, a frozen
header and an autofilter make the sheet usable at once. Write-only mode keeps 100k rows fast.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from copy import copy
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.worksheet._write_only import WriteOnlyWorksheet

from vitrina.present.columns import ColumnMeta, ColumnRole, Grain, ValueFormat
from vitrina.present.numbers import Lang, format_value, metas_for
from vitrina.present.summary import is_period
from vitrina.warehouse.result import QueryResult

EXCEL_MAX_ROWS = 1_048_576
WIDTH_SAMPLE_ROWS = 500
MIN_WIDTH, MAX_WIDTH = 8, 60
_BAD_TITLE = re.compile(r"[\[\]:*?/\\]")

QUERY_SHEET = {"ru": "Запрос", "en": "Query"}
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


def excel_value(value: Any) -> Any:
    """A value openpyxl writes natively: numbers, dates, bools, text without control chars."""
    if value is None or isinstance(value, bool | int | Decimal | date | time | timedelta):
        if isinstance(value, Decimal) and not value.is_finite():
            return None
        if isinstance(value, datetime) and value.tzinfo is not None:
            return value.replace(tzinfo=None)
        if isinstance(value, time) and value.tzinfo is not None:
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
    return text[:32767]


def safe_sheet_title(title: str, fallback: str = "Data") -> str:
    """A valid sheet title: no []:*?/\\, at most 31 characters, never empty."""
    cleaned = _BAD_TITLE.sub(" ", title or "").strip().strip("'")[:31].strip()
    return cleaned or fallback


def _cell(ws: WriteOnlyWorksheet, value: Any, style: WriteOnlyCell | None) -> WriteOnlyCell:
    cell = WriteOnlyCell(ws, value=value)
    if cell.data_type == "f":  # text such as "=1+1" stays text, never a formula
        cell.data_type = "s"
    if style is not None:
        cell._style = copy(style._style)
    return cell


def _looks_like_formula(value: Any) -> bool:
    return isinstance(value, str) and value.startswith("=")


def _widths(result: QueryResult, metas: Sequence[ColumnMeta], lang: Lang | str) -> list[float]:
    widths = []
    sample = result.rows[:WIDTH_SAMPLE_ROWS]
    for i, meta in enumerate(metas):
        longest = len(meta.label(lang))
        for row in sample:
            longest = max(longest, len(format_value(row[i], meta, lang)))
        widths.append(float(min(MAX_WIDTH, max(MIN_WIDTH, longest + 2))))
    return widths


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
) -> Path:
    """Write the full result and a query sheet to ``path`` (.xlsx); return the path."""
    path = Path(path)
    metas = metas_for(result, metas)
    lang = "ru" if lang == "ru" else "en"
    wb = Workbook(write_only=True)
    ws = wb.create_sheet(safe_sheet_title(sheet_title, "Данные" if lang == "ru" else "Data"))

    n_cols = len(result.columns)
    widths = _widths(result, metas, lang)
    for i, width in enumerate(widths, start=1):
        ws.column_dimensions[get_column_letter(i)].width = width
    ws.freeze_panes = "A2"
    max_rows = EXCEL_MAX_ROWS - 1
    rows = result.rows[:max_rows]
    if n_cols:
        ws.auto_filter.ref = f"A1:{get_column_letter(n_cols)}{len(rows) + 1}"

    header_style = WriteOnlyCell(ws)
    header_style.font = Font(bold=True)
    header_style.fill = PatternFill("solid", fgColor="DDEBF7")
    header_style.alignment = Alignment(vertical="center", wrap_text=True)
    ws.append([_cell(ws, m.label(lang), header_style) for m in metas])

    styles: list[WriteOnlyCell | None] = []
    for meta in metas:
        fmt = number_format(meta, lang)
        if fmt is None:
            styles.append(None)
            continue
        template = WriteOnlyCell(ws)
        template.number_format = fmt
        styles.append(template)
    # One reusable cell per column: a write-only sheet writes each row as it is appended,
    # so the cell is free again for the next row (no new cell, no style copy per value).
    ids = [m.role is ColumnRole.ID for m in metas]
    slots = [_cell(ws, None, style) for style in styles]
    for row in rows:
        out: list[Any] = []
        for i, v in enumerate(row):
            value = _id_text(v) if ids[i] else excel_value(v)
            if value is None or (styles[i] is None and not _looks_like_formula(value)):
                out.append(value)  # plain values need no cell
                continue
            cell = slots[i]
            cell.value = value
            if cell.data_type == "f":  # text such as "=1+1" stays text, never a formula
                cell.data_type = "s"
            out.append(cell)
        ws.append(out)

    _write_query_sheet(
        wb,
        lang,
        question=question,
        sql=sql,
        period_label=period_label,
        generated_at=generated_at or datetime.now().replace(microsecond=0),
        rows=len(rows),
        note=_note(result, len(rows), lang),
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    wb.save(path)
    return path


def _id_text(value: Any) -> Any:
    """Ids longer than Excel's 15 significant digits are written as text."""
    value = excel_value(value)
    if isinstance(value, int | Decimal) and not isinstance(value, bool) and abs(value) >= 10**15:
        return str(value)
    return value


def _note(result: QueryResult, written: int, lang: str) -> str | None:
    notes = []
    if result.truncated:
        notes.append(
            "результат обрезан лимитом строк хранилища"
            if lang == "ru"
            else "the result was cut by the warehouse row cap"
        )
    if written < result.row_count:
        notes.append(
            f"Excel вмещает {written} строк из {result.row_count}"
            if lang == "ru"
            else f"Excel holds {written} of {result.row_count} rows"
        )
    return "; ".join(notes) or None


def _write_query_sheet(
    wb: Workbook,
    lang: str,
    *,
    question: str,
    sql: str,
    period_label: str | None,
    generated_at: datetime,
    rows: int,
    note: str | None,
) -> None:
    ws = wb.create_sheet(QUERY_SHEET[lang])
    ws.column_dimensions["A"].width = 16
    ws.column_dimensions["B"].width = 100
    bold = WriteOnlyCell(ws)
    bold.font = Font(bold=True)
    bold.alignment = Alignment(vertical="top")
    wrap = WriteOnlyCell(ws)
    wrap.alignment = Alignment(wrap_text=True, vertical="top")
    when = WriteOnlyCell(ws)
    when.number_format = "DD.MM.YYYY HH:MM:SS" if lang == "ru" else "YYYY-MM-DD HH:MM:SS"
    when.alignment = Alignment(horizontal="left")
    count = WriteOnlyCell(ws)
    count.alignment = Alignment(horizontal="left")
    labels = QUERY_LABELS[lang]
    values: list[tuple[Any, WriteOnlyCell]] = [
        (question, wrap),
        (sql, wrap),
        (period_label or "—", wrap),
        (excel_value(generated_at), when),
        (rows, count),
    ]
    if note:
        values.append((note, wrap))
    for label, (value, style) in zip(labels, values, strict=False):
        ws.append([_cell(ws, label, bold), _cell(ws, excel_value(value), style)])
