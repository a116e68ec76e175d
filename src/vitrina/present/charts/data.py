"""Apply a chart decision to a result: ordered labels, cut points, folded series, datasets.

Both the Chart.js spec and the PNG are drawn from this one structure, so they always
show the same points.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, Field

from vitrina.present.charts import columnar
from vitrina.present.charts.choose import ChartDecision, ChartKind
from vitrina.present.columns import ColumnMeta, ValueFormat
from vitrina.present.numbers import Lang, format_value, metas_for, to_decimal
from vitrina.present.summary import is_summable, row_label, sort_key
from vitrina.warehouse.result import QueryResult

OTHER = {"ru": "Прочее", "en": "Other"}


class Dataset(BaseModel):
    """One line, one bar series or the pie slices."""

    label: str
    column: str  # the metric column
    values: list[float | None]
    axis: str = "y"


class ChartData(BaseModel):
    """Labels and datasets ready to draw; formats tell how to write the axis ticks."""

    kind: ChartKind
    title: str
    labels: list[str] = Field(default_factory=list)
    datasets: list[Dataset] = Field(default_factory=list)
    x_title: str | None = None
    y_title: str | None = None
    y2_title: str | None = None
    y_format: ValueFormat = ValueFormat.NUMBER
    y2_format: ValueFormat | None = None
    kpi_values: list[str] = Field(default_factory=list)  # formatted, for kpi cards


def _axis_title(metas: Iterable[ColumnMeta], lang: Lang | str) -> str | None:
    parts = []
    for m in metas:
        label = m.label(lang)
        if m.unit:
            label += f", {'₽' if lang == 'ru' and m.unit.upper() == 'RUB' else m.unit}"
        parts.append(label)
    return "; ".join(parts) or None


def _float(value: Decimal | None) -> float | None:
    return None if value is None else float(value)


def _add(a: Decimal | None, b: Decimal | None) -> Decimal | None:
    if a is None:
        return b
    if b is None:
        return a
    return a + b


Key = tuple[Any, ...]
Points = dict[Any, dict[Any, list[Decimal | None]]]


def _by_value(idx: list[int]) -> Callable[[tuple[Any, ...]], Any]:
    """A row's key: the one value itself (hashing a date is cheaper than its repr, a million
    times over), a tuple of several, () of none."""
    if len(idx) == 1:
        return operator.itemgetter(idx[0])
    if not idx:
        return lambda row: ()
    return operator.itemgetter(*idx)


def _by_text(idx: list[int]) -> Callable[[tuple[Any, ...]], Any]:
    """A row's key by the text of its values (a value that cannot be hashed)."""
    return lambda row: tuple([repr(row[i]) for i in idx]) if idx else ()


def _points(
    result: QueryResult,
    xi: list[int],
    si: list[int],
    yi: list[int],
    summable: list[bool],
    keyer: Callable[[list[int]], Callable[[tuple[Any, ...]], Any]],
) -> tuple[Points, dict[Any, Key], dict[Any, Key]]:
    """One point per (x, series): duplicates of summable metrics summed, else the first kept;
    and each key's values (`_by_text` keys when a value cannot be hashed)."""
    points: Points = {}
    x_raw: dict[Any, Key] = {}
    s_raw: dict[Any, Key] = {}
    x_key, s_key = keyer(xi), keyer(si)
    for row in result.rows:
        xk, sk = x_key(row), s_key(row)
        if xk not in x_raw:
            x_raw[xk] = tuple(row[i] for i in xi)
        if sk not in s_raw:
            s_raw[sk] = tuple(row[i] for i in si)
        values = [to_decimal(row[i]) for i in yi]
        cell = points.get(xk)
        if cell is None:
            cell = points[xk] = {}
        if sk not in cell:
            cell[sk] = values
        else:
            cell[sk] = [
                _add(old, new) if summ else old
                for old, new, summ in zip(cell[sk], values, summable, strict=True)
            ]
    return points, x_raw, s_raw


def build_chart_data(
    decision: ChartDecision, result: QueryResult, metas: Iterable[ColumnMeta], lang: Lang | str
) -> ChartData:
    """Order, cut and fold the result as the decision says; raise for kind "none"."""
    if decision.kind == "none":
        raise ValueError(f"nothing to draw: {decision.reason}")
    metas = metas_for(result, metas)
    by_name = {m.name: m for m in metas}
    idx = {c: i for i, c in enumerate(result.columns)}
    ys = [by_name[c] for c in decision.y_columns]
    title = "; ".join(m.label(lang) for m in ys)
    y_metas = [m for m in ys if decision.axes.get(m.name, "y") == "y"]
    y2_metas = [m for m in ys if decision.axes.get(m.name) == "y2"]

    if decision.kind == "kpi":
        row = result.rows[0]
        label = row_label(result, metas, 0, lang) if len(result.columns) > len(ys) else title
        return ChartData(
            kind="kpi",
            title=title,
            labels=[label],
            datasets=[
                Dataset(
                    label=m.label(lang),
                    column=m.name,
                    values=[_float(to_decimal(row[idx[m.name]]))],
                )
                for m in ys
            ],
            kpi_values=[format_value(row[idx[m.name]], m, lang) for m in ys],
            y_format=ys[0].fmt,
        )

    xi = [idx[c] for c in decision.x_columns]
    si = [idx[c] for c in decision.series_columns]
    yi = [idx[m.name] for m in ys]
    summable = [is_summable(m) for m in ys]

    base: dict[str, Any] = {
        "kind": decision.kind,
        "title": title,
        "x_title": " · ".join(by_name[c].label(lang) for c in decision.x_columns) or None,
        "y_title": _axis_title(y_metas, lang),
        "y2_title": _axis_title(y2_metas, lang),
        "y_format": ys[0].fmt,
        "y2_format": y2_metas[0].fmt if y2_metas else None,
    }
    table = result.arrow
    if table is not None and columnar.supported(table, xi, si, yi):  # a large result
        drawn = _columnar_data(decision, table, (xi, si, yi), summable, ys, by_name, lang, base)
        if drawn is not None:
            return drawn

    try:
        points, x_raw, s_raw = _points(result, xi, si, yi, summable, _by_value)
    except TypeError:  # a list or a dict in a key cell: keyed by its text
        points, x_raw, s_raw = _points(result, xi, si, yi, summable, _by_text)

    def x_total(xk: tuple[Any, ...]) -> Decimal:
        return sum((v[0] for v in points[xk].values() if v[0] is not None), Decimal(0))

    x_keys = list(points)
    if decision.order == "x":
        x_keys.sort(key=lambda k: tuple(sort_key(v) for v in x_raw[k]))
        if decision.max_points and len(x_keys) > decision.max_points:
            x_keys = x_keys[-decision.max_points :]  # the latest periods
    else:
        x_keys.sort(key=x_total, reverse=True)
        if decision.max_points and len(x_keys) > decision.max_points:
            x_keys = x_keys[: decision.max_points]  # the largest

    base["labels"] = [_label(x_raw[k], decision.x_columns, by_name, lang, " · ") for k in x_keys]

    if not decision.series_columns:
        datasets = [
            Dataset(
                label=m.label(lang),
                column=m.name,
                values=[_float(points[k][()][j]) for k in x_keys],
                axis=decision.axes.get(m.name, "y"),
            )
            for j, m in enumerate(ys)
        ]
        return ChartData(datasets=datasets, **base)

    metric = ys[0]
    s_totals: dict[tuple[Any, ...], Decimal] = {}
    for k in x_keys:
        for sk, values in points[k].items():
            if values[0] is not None:
                s_totals[sk] = s_totals.get(sk, Decimal(0)) + abs(values[0])
            else:
                s_totals.setdefault(sk, Decimal(0))
    s_keys = sorted(s_totals, key=lambda sk: (-s_totals[sk], tuple(sort_key(v) for v in s_raw[sk])))
    other: list[tuple[Any, ...]] = []
    if len(s_keys) > decision.max_series:
        keep = decision.max_series - 1 if decision.fold_other else decision.max_series
        s_keys, other = s_keys[:keep], s_keys[keep:]

    datasets = [
        Dataset(
            label=_label(s_raw[sk], decision.series_columns, by_name, lang, " / "),
            column=metric.name,
            values=[_float(points[k].get(sk, [None])[0]) for k in x_keys],
        )
        for sk in s_keys
    ]
    if other and decision.fold_other:
        # the series at each x that are not shown, not every x times every folded series: at a
        # million rows the product cost 57% of a turn (issue 38); the sum is the same
        shown = set(s_keys)
        folded = []
        for k in x_keys:
            total: Decimal | None = None
            for sk, values in points[k].items():
                if sk not in shown:
                    total = _add(total, values[0])
            folded.append(_float(total))
        datasets.append(
            Dataset(label=OTHER.get(str(lang), OTHER["en"]), column=metric.name, values=folded)
        )
    return ChartData(datasets=datasets, **base)


def _label(
    raw: tuple[Any, ...], columns: list[str], by_name: dict[str, ColumnMeta], lang: str, sep: str
) -> str:
    """An x or series label: its values formatted, joined."""
    return sep.join(format_value(v, by_name[c], lang) for v, c in zip(raw, columns, strict=True))


def _columnar_data(
    decision: ChartDecision,
    table: Any,
    indexes: tuple[list[int], list[int], list[int]],
    summable: list[bool],
    ys: list[ColumnMeta],
    by_name: dict[str, ColumnMeta],
    lang: Lang | str,
    base: dict[str, Any],
) -> ChartData | None:
    """The chart data of a columnar result (`charts.columnar`): the same labels and values
    (None when its keys cannot be grouped by their codes: the rows are read then)."""
    xi, si, yi = indexes
    found = columnar.columnar_points(decision, table, xi[0], si[0] if si else None, yi, summable)
    if found is None:
        return None
    base["labels"] = [
        _label((x,), decision.x_columns, by_name, lang, " · ") for x in found.x_values
    ]
    if not decision.series_columns:
        datasets = [
            Dataset(
                label=m.label(lang),
                column=m.name,
                values=[_float(v) for v in found.metric_values[j]],
                axis=decision.axes.get(m.name, "y"),
            )
            for j, m in enumerate(ys)
        ]
        return ChartData(datasets=datasets, **base)
    metric = ys[0]
    datasets = [
        Dataset(
            label=_label((s,), decision.series_columns, by_name, lang, " / "),
            column=metric.name,
            values=[_float(v) for v in values],
        )
        for s, values in found.series
    ]
    if found.other is not None:
        other = [_float(v) for v in found.other]
        datasets.append(
            Dataset(label=OTHER.get(str(lang), OTHER["en"]), column=metric.name, values=other)
        )
    return ChartData(datasets=datasets, **base)
