"""The preview table of an answer: labelled columns and formatted cells, first N rows."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel
from rich.table import Table
from rich.text import Text

from vitrina.present.columns import ColumnMeta, ColumnRole, ValueFormat
from vitrina.present.numbers import Lang, format_count, format_value, metas_for
from vitrina.present.pivot import pivot
from vitrina.present.summary import is_period
from vitrina.warehouse.result import QueryResult

_NUMERIC = (ValueFormat.MONEY, ValueFormat.COUNT, ValueFormat.NUMBER, ValueFormat.PERCENT)


class TableView(BaseModel):
    """A table ready to print: every cell is already a formatted string."""

    columns: list[str]  # column labels in the answer's language
    rows: list[list[str]]
    shown: int
    total: int
    note: str | None = None  # "Показаны первые 20 из 134" / "Showing first 20 of 134"
    numeric: list[bool] = []  # right-align these columns
    # two breakdowns and one metric: the same rows as a cross table (present.pivot), shown
    # instead of the long form by the terminal and given to the web page
    pivot: dict[str, Any] | None = None


def table_note(shown: int, total: int, truncated: bool, lang: Lang | str) -> str | None:
    """The note under a preview; it also says when the warehouse row cap cut the result.

    >>> table_note(20, 134, False, "en")
    'Showing first 20 of 134'
    """
    ru = lang == "ru"
    parts = []
    if shown < total:
        t = format_count(total, lang)
        parts.append(f"Показаны первые {shown} из {t}" if ru else f"Showing first {shown} of {t}")
    if truncated:
        parts.append(
            "результат обрезан лимитом строк хранилища"
            if ru
            else "the result was cut by the warehouse row cap"
        )
    if not parts:
        return None
    text = "; ".join(parts)
    return text[0].upper() + text[1:]


def _is_numeric(meta: ColumnMeta) -> bool:
    return meta.role is ColumnRole.METRIC and meta.fmt in _NUMERIC and not is_period(meta)


def render_table(
    result: QueryResult, metas: Iterable[ColumnMeta], lang: Lang | str, limit: int | None = 20
) -> TableView:
    """Format the first ``limit`` rows (all when None) with labels from the column metas."""
    metas = metas_for(result, metas)
    total = result.row_count
    rows = result.rows if limit is None or limit < 0 else result.rows[:limit]
    body = [[format_value(v, m, lang) for v, m in zip(row, metas, strict=False)] for row in rows]
    crossed = pivot(result, metas) if not result.truncated else None
    return TableView(
        columns=[m.label(lang) for m in metas],
        rows=body,
        shown=len(body),
        total=total,
        note=table_note(len(body), total, result.truncated, lang),
        numeric=[_is_numeric(m) for m in metas],
        pivot=render_table(*crossed, lang, limit).model_dump() if crossed else None,
    )


def rich_table(view: TableView) -> Table:
    """A Rich table for the CLI: numbers right-aligned, the note as the caption.

    Cells are plain ``Text`` so values such as ``[red]`` are shown, never read as markup.
    """
    table = Table(caption=view.note, show_lines=False, header_style="bold")
    numeric = view.numeric or [False] * len(view.columns)
    for label, is_num in zip(view.columns, numeric, strict=False):
        table.add_column(Text(label), justify="right" if is_num else "left", overflow="fold")
    for row in view.rows:
        table.add_row(*(Text(cell) for cell in row))
    return table
