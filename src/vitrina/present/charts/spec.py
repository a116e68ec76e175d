"""Chart specs as JSON: a Chart.js v4 config (and a small Vega-Lite one) from a decision.

Values are plain numbers; labels and titles are formatted text in the answer's language.
A KPI card is not a Chart.js chart: its spec has ``"type": "kpi"`` and formatted values.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from vitrina.present.charts.choose import ChartDecision
from vitrina.present.charts.data import ChartData, build_chart_data
from vitrina.present.columns import ColumnMeta
from vitrina.present.numbers import Lang
from vitrina.warehouse.result import QueryResult

_CHARTJS_TYPE = {
    "line": "line",
    "bar": "bar",
    "grouped_bar": "bar",
    "stacked_bar": "bar",
    "pie": "pie",
}


def _kpi(data: ChartData) -> dict[str, Any]:
    return {
        "type": "kpi",
        "data": {
            "label": data.labels[0] if data.labels else data.title,
            "items": [
                {"label": ds.label, "value": text, "raw": ds.values[0]}
                for ds, text in zip(data.datasets, data.kpi_values, strict=True)
            ],
        },
        "options": {"plugins": {"title": {"display": True, "text": data.title}}},
    }


def chartjs_from_data(data: ChartData) -> dict[str, Any]:
    """The Chart.js v4 config of prepared chart data."""
    if data.kind == "kpi":
        return _kpi(data)
    kind = data.kind
    chart_type = _CHARTJS_TYPE[kind]
    options: dict[str, Any] = {
        "responsive": True,
        "maintainAspectRatio": False,
        "plugins": {
            "title": {"display": True, "text": data.title},
            "legend": {"display": kind == "pie" or len(data.datasets) > 1},
        },
    }
    if kind == "pie":
        datasets = [{"label": ds.label, "data": ds.values} for ds in data.datasets]
        return {
            "type": "pie",
            "data": {"labels": data.labels, "datasets": datasets},
            "options": options,
        }

    stacked = kind == "stacked_bar"
    datasets = []
    for ds in data.datasets:
        item: dict[str, Any] = {"label": ds.label, "data": ds.values, "yAxisID": ds.axis}
        if kind == "line":
            item.update({"fill": False, "tension": 0, "spanGaps": False})
        datasets.append(item)
    scales: dict[str, Any] = {
        "x": {
            "title": {"display": bool(data.x_title), "text": data.x_title or ""},
            "stacked": stacked,
        },
        "y": {
            "type": "linear",
            "position": "left",
            "beginAtZero": kind != "line",
            "stacked": stacked,
            "title": {"display": bool(data.y_title), "text": data.y_title or ""},
        },
    }
    if any(ds.axis == "y2" for ds in data.datasets):
        scales["y2"] = {
            "type": "linear",
            "position": "right",
            "beginAtZero": kind != "line",
            "grid": {"drawOnChartArea": False},
            "title": {"display": bool(data.y2_title), "text": data.y2_title or ""},
        }
    options["scales"] = scales
    return {
        "type": chart_type,
        "data": {"labels": data.labels, "datasets": datasets},
        "options": options,
    }


def to_chartjs(
    decision: ChartDecision, result: QueryResult, metas: Iterable[ColumnMeta], lang: Lang | str
) -> dict[str, Any]:
    """A Chart.js v4 config for the decision (raises for kind "none")."""
    return chartjs_from_data(build_chart_data(decision, result, metas, lang))


def to_vegalite(
    decision: ChartDecision, result: QueryResult, metas: Iterable[ColumnMeta], lang: Lang | str
) -> dict[str, Any]:
    """A Vega-Lite v5 spec with inline values (long form: label, series, value)."""
    data = build_chart_data(decision, result, metas, lang)
    values = [
        {"label": label, "series": ds.label, "axis": ds.axis, "value": v}
        for ds in data.datasets
        for label, v in zip(data.labels, ds.values, strict=True)
    ]
    spec: dict[str, Any] = {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "title": data.title,
        "data": {"values": values},
    }
    sort = list(data.labels)
    if data.kind == "kpi":
        spec["mark"] = "text"
        spec["encoding"] = {"text": {"field": "value", "type": "quantitative"}}
    elif data.kind == "pie":
        spec["mark"] = "arc"
        spec["encoding"] = {
            "theta": {"field": "value", "type": "quantitative"},
            "color": {"field": "label", "type": "nominal", "sort": sort},
        }
    else:
        x = {"field": "label", "type": "ordinal", "sort": sort, "title": data.x_title}
        y: dict[str, Any] = {"field": "value", "type": "quantitative", "title": data.y_title}
        if data.kind == "stacked_bar":
            y["stack"] = "zero"
        elif data.kind != "line":
            y["stack"] = None
        mark: Any = {"type": "line", "point": True} if data.kind == "line" else "bar"
        encoding: dict[str, Any] = {"x": x, "y": y, "color": {"field": "series", "type": "nominal"}}
        if data.kind == "grouped_bar":
            encoding["xOffset"] = {"field": "series"}
        if any(ds.axis == "y2" for ds in data.datasets):
            y2 = {**y, "title": data.y2_title, "axis": {"orient": "right"}}
            spec["layer"] = [
                {"transform": [{"filter": f"datum.axis == '{axis}'"}], "mark": mark,
                 "encoding": {**encoding, "y": y_enc}}
                for axis, y_enc in (("y", y), ("y2", y2))
            ]  # fmt: skip
            spec["resolve"] = {"scale": {"y": "independent"}}
        else:
            spec["mark"] = mark
            spec["encoding"] = encoding
    return spec
