"""Two breakdowns and one metric, pivoted: a row per value of one, a column per the other's.

"Количество платежей по каналам и месяцам" comes back long (month, channel, count: one row
per pair), which charts and Excel's own pivot tables want. People read the cross table:
months down the side, a column per channel. The time breakdown goes down the side; with
two dimensions the first stays on the side. No pivot when there are more than
MAX_COLUMNS values across, when a pair repeats, or when the result is not two keys and
one metric: the long form is then all there is.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from vitrina.present.columns import ColumnMeta, ColumnRole
from vitrina.present.numbers import format_value, metas_for
from vitrina.warehouse.result import QueryResult

MAX_COLUMNS = 24
KEYS = (ColumnRole.PERIOD, ColumnRole.DIMENSION)


def _roles(metas: list[ColumnMeta]) -> tuple[list[int], list[int]] | None:
    keys = [i for i, m in enumerate(metas) if m.role in KEYS]
    metrics = [i for i, m in enumerate(metas) if m.role is ColumnRole.METRIC]
    if len(keys) != 2 or len(metrics) != 1 or len(keys) + 1 != len(metas):
        return None
    side, across = keys
    if metas[across].role is ColumnRole.PERIOD and metas[side].role is not ColumnRole.PERIOD:
        side, across = across, side  # time down the side
    return [side, across], metrics


def _cells(
    rows: Iterable[tuple[Any, ...]], side: int, across: int, metric: int
) -> tuple[list[Any], list[Any], dict[tuple[Any, Any], Any]] | None:
    down, cols, cells = [], [], {}
    for row in rows:
        key = (row[side], row[across])
        if key in cells:
            return None  # a pair twice: not one value per cell
        cells[key] = row[metric]
        if row[side] not in down:
            down.append(row[side])
        if row[across] not in cols:
            cols.append(row[across])
            if len(cols) > MAX_COLUMNS:
                return None
    return down, cols, cells


def pivot(
    result: QueryResult, metas: Iterable[ColumnMeta]
) -> tuple[QueryResult, list[ColumnMeta]] | None:
    """The cross table of a two-breakdown, one-metric result, or None (see the module)."""
    metas = metas_for(result, metas)
    roles = _roles(metas)
    if roles is None or not result.rows:
        return None
    (side, across), (metric,) = roles
    found = _cells(result.rows, side, across, metric)
    if found is None:
        return None
    down, cols, cells = found
    value = metas[metric]
    out_metas = [metas[side]]
    for n, col in enumerate(cols):
        out_metas.append(
            value.model_copy(
                update={
                    "name": f"{value.name}__{n}",
                    "label_ru": format_value(col, metas[across], "ru"),
                    "label_en": format_value(col, metas[across], "en"),
                }
            )
        )
    rows = [tuple([key, *(cells.get((key, col)) for col in cols)]) for key in down]
    return QueryResult(columns=[m.name for m in out_metas], rows=rows), out_metas
