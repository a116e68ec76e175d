"""Figures computed over the FULL result: totals, extremes, first/last, distinct counts.

The answer text uses only these figures and the result values, so every number it states
can be traced back (see :func:`vitrina.present.numbers.allowed_numbers`).
"""

from __future__ import annotations

import heapq
import operator
from collections.abc import Iterable, Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, Field

from vitrina.present import columnar
from vitrina.present.columns import ColumnMeta, ColumnRole, ValueFormat
from vitrina.present.numbers import DASH, Lang, format_value, metas_for, to_decimal
from vitrina.warehouse.result import QueryResult

Shape = Literal["empty", "single", "breakdown", "series", "series_breakdown", "table"]

SUMMABLE = (ValueFormat.MONEY, ValueFormat.COUNT)
TOP_ROWS = 5


class MetricSummary(BaseModel):
    """Figures of one metric column."""

    column: str
    count: int = 0  # non-null numeric values
    nulls: int = 0
    total: Decimal | None = None  # only for money and counts
    mean: Decimal | None = None  # only for money and counts (total / count)
    min: Decimal | None = None
    min_row: int | None = None  # row index of the (first) minimum
    max: Decimal | None = None
    max_row: int | None = None
    first: Decimal | None = None  # series only: value at the earliest period
    first_row: int | None = None
    last: Decimal | None = None  # series only: value at the latest period
    last_row: int | None = None
    change: Decimal | None = None  # last - first
    change_pct: Decimal | None = None  # (last - first) / |first| * 100, when first != 0
    has_negative: bool = False
    # rows of the TOP_ROWS largest values, largest first (ties: the earlier row first): the
    # leaders an answer names, found in the one pass that finds the extremes
    top_rows: list[int] = Field(default_factory=list)


class ResultSummary(BaseModel):
    """What the answer writer knows about a result."""

    row_count: int
    truncated: bool = False
    shape: Shape
    period_columns: list[str] = Field(default_factory=list)
    dimension_columns: list[str] = Field(default_factory=list)
    metric_columns: list[str] = Field(default_factory=list)
    label_columns: list[str] = Field(default_factory=list)  # what names a row
    metrics: dict[str, MetricSummary] = Field(default_factory=dict)
    distinct: dict[str, int] = Field(default_factory=dict)  # per period / dimension column


# --- column classes shared by the table, the chart chooser and the answer ----------------


def is_period(meta: ColumnMeta) -> bool:
    """A period column: role PERIOD or any column with a grain (a month number is a period)."""
    return meta.role is ColumnRole.PERIOD or meta.grain is not None


def is_summable(meta: ColumnMeta) -> bool:
    """Totals make sense for additive money and counts, never for ids, distinct counts, averages
    or ratios."""
    return (
        meta.role is ColumnRole.METRIC
        and meta.fmt in SUMMABLE
        and meta.additive
        and not is_period(meta)
    )


def metric_columns(result: QueryResult, metas: Sequence[ColumnMeta]) -> list[ColumnMeta]:
    """METRIC columns (not periods) that hold at least one number."""
    out = []
    for i, meta in enumerate(metas):
        if meta.role is not ColumnRole.METRIC or is_period(meta):
            continue
        if meta.fmt in (ValueFormat.DATE,):
            continue
        if _has_number(result, i):
            out.append(meta)
    return out


def _has_number(result: QueryResult, i: int) -> bool:
    table = result.arrow
    if table is not None and columnar.exact_numbers(table, i):
        return columnar.non_null(table, i) > 0
    cells = columnar.values(table, i) if table is not None else (row[i] for row in result.rows)
    return any(to_decimal(v) is not None for v in cells)


def sort_key(value: Any) -> tuple[Any, ...]:
    """Orders mixed period/dimension values: None last, numbers, dates, then text."""
    if value is None:
        return (3, 0)
    if isinstance(value, datetime):
        return (1, value.replace(tzinfo=None).isoformat())
    if isinstance(value, date):
        return (1, value.isoformat())
    num = to_decimal(value)
    if num is not None and not isinstance(value, str):
        return (0, num)
    return (2, str(value))


def row_key(row: Sequence[Any], indexes: Sequence[int]) -> tuple[Any, ...]:
    """The values of some columns of a row."""
    return tuple(row[i] for i in indexes)


def row_label(
    result: QueryResult,
    metas: Sequence[ColumnMeta],
    index: int,
    lang: Lang | str,
    columns: Iterable[str] | None = None,
) -> str:
    """The formatted label of a row: its period and dimension values (or ids), joined."""
    metas = metas_for(result, metas)
    names = list(columns) if columns is not None else _label_columns(metas)
    row = result.rows[index]
    parts = [
        format_value(row[result.columns.index(n)], metas[result.columns.index(n)], lang)
        for n in names
    ]
    return ", ".join(parts) if parts else DASH


def _label_columns(metas: Sequence[ColumnMeta]) -> list[str]:
    labels = [m.name for m in metas if is_period(m) or m.role is ColumnRole.DIMENSION]
    if not labels:
        labels = [m.name for m in metas if m.role in (ColumnRole.ID, ColumnRole.ATTRIBUTE)][:2]
    return labels


# --- the pass -------------------------------------------------------------------------


def summarize(result: QueryResult, metas: Iterable[ColumnMeta]) -> ResultSummary:
    """Summarise the full result: per-metric figures, row count, distinct counts."""
    metas = metas_for(result, metas)
    periods = [m for m in metas if is_period(m)]
    dims = [m for m in metas if m.role is ColumnRole.DIMENSION and not is_period(m)]
    metrics = metric_columns(result, metas)
    idx = {name: i for i, name in enumerate(result.columns)}

    distinct = {m.name: _distinct(result, idx[m.name]) for m in periods + dims}

    n = result.row_count
    if n == 0:
        shape: Shape = "empty"
    elif n == 1 and metrics:
        shape = "single"
    elif not metrics:
        shape = "table"
    elif periods and dims:
        shape = "series_breakdown"
    elif periods:
        shape = "series"
    elif dims:
        shape = "breakdown"
    else:
        shape = "table"

    # a series has one row per period: first/last are defined then
    period_idx = [idx[m.name] for m in periods]
    series_order: list[int] | None = None
    if periods and not dims and n > 1:
        series_order = _series_order(result, period_idx)

    summaries = {m.name: _metric_summary(result, m, idx[m.name], series_order) for m in metrics}
    return ResultSummary(
        row_count=n,
        truncated=result.truncated,
        shape=shape,
        period_columns=[m.name for m in periods],
        dimension_columns=[m.name for m in dims],
        metric_columns=[m.name for m in metrics],
        label_columns=_label_columns(metas),
        metrics=summaries,
        distinct=distinct,
    )


def _distinct(result: QueryResult, i: int) -> int:
    """Distinct values of a column (by value; by text only when one cannot be hashed)."""
    if result.arrow is not None:
        return columnar.distinct(result.arrow, [i])
    try:
        return len(set(map(operator.itemgetter(i), result.rows)))
    except TypeError:
        return len({_hashable(row[i]) for row in result.rows})


def _series_order(result: QueryResult, period_idx: list[int]) -> list[int] | None:
    """The rows in period order when each row is one period (a series), else None."""
    if result.arrow is not None:
        return columnar.sorted_rows(result.arrow, period_idx)
    n = result.row_count
    keys = [tuple(sort_key(v) for v in row_key(row, period_idx)) for row in result.rows]
    return sorted(range(n), key=keys.__getitem__) if len(set(keys)) == n else None


def _hashable(value: Any) -> Any:
    try:
        hash(value)
    except TypeError:
        return repr(value)
    return value


def _scan(result: QueryResult, col: int) -> tuple[MetricSummary, Decimal]:
    """One pass over a metric column: counts, extremes, the leaders, and the total (a
    columnar result's integers and decimals by Arrow, the same figures)."""
    table = result.arrow
    if table is not None and columnar.exact_numbers(table, col):
        found = columnar.scan_exact(table, col, TOP_ROWS)
        low = found["min"]
        ms = MetricSummary(
            column=result.columns[col],
            count=found["count"],
            nulls=found["nulls"],
            min=low,
            min_row=found["min_row"],
            max=found["max"],
            max_row=found["max_row"],
            has_negative=low is not None and low < 0,
            top_rows=found["top"],
        )
        return ms, found["total"]
    cells = columnar.values(table, col) if table is not None else (row[col] for row in result.rows)
    return _scan_values(result.columns[col], cells)


def _scan_values(name: str, cells: Iterable[Any]) -> tuple[MetricSummary, Decimal]:
    total = Decimal(0)
    count = nulls = 0
    low = high = None
    low_row = high_row = None
    top: list[tuple[Decimal, int]] = []  # a min-heap of (value, -row): the TOP_ROWS largest
    for r, cell in enumerate(cells):  # plain locals: a model's setattr per row cost 2 s
        value = to_decimal(cell)
        if value is None:
            nulls += 1
            continue
        count += 1
        total += value
        if low is None or value < low:
            low, low_row = value, r
        if high is None or value > high:
            high, high_row = value, r
        if len(top) < TOP_ROWS:
            heapq.heappush(top, (value, -r))
        elif (value, -r) > top[0]:
            heapq.heapreplace(top, (value, -r))
    ms = MetricSummary(
        column=name,
        count=count,
        nulls=nulls,
        min=low,
        min_row=low_row,
        max=high,
        max_row=high_row,
        has_negative=low is not None and low < 0,
        top_rows=[-negative for _, negative in sorted(top, reverse=True)],
    )
    return ms, total


def _metric_summary(
    result: QueryResult, meta: ColumnMeta, col: int, series_order: list[int] | None
) -> MetricSummary:
    ms, total = _scan(result, col)
    ms.column = meta.name
    if is_summable(meta) and ms.count:
        ms.total = total
        ms.mean = total / ms.count
    if series_order:
        valued = _valued(result, col, series_order)
        if len(valued) >= 2:
            ms.first_row, ms.last_row = valued[0], valued[-1]
            ms.first = to_decimal(result.rows[valued[0]][col])
            ms.last = to_decimal(result.rows[valued[-1]][col])
            assert ms.first is not None and ms.last is not None
            ms.change = ms.last - ms.first
            if ms.first != 0:
                ms.change_pct = ms.change / abs(ms.first) * 100
    return ms


def _valued(result: QueryResult, col: int, order: list[int]) -> list[int]:
    """The rows of `order` whose metric holds a number (a columnar result: one column read)."""
    table = result.arrow
    if table is None:
        return [r for r in order if to_decimal(result.rows[r][col]) is not None]
    cells = table.column(col).take(order).to_pylist()
    return [r for r, v in zip(order, cells, strict=True) if to_decimal(v) is not None]
