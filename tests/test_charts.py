"""Chart choice by rules for many result shapes, the Chart.js spec, the PNG, and safe_chart."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from PIL import Image

from vitrina.present import charts
from vitrina.present.charts import (
    build_chart_data,
    choose_chart,
    limits,
    render_png,
    safe_chart,
    to_chartjs,
    to_vegalite,
)
from vitrina.present.columns import ColumnMeta, ColumnRole, Grain, ValueFormat
from vitrina.trace import EventKind
from vitrina.warehouse.result import QueryResult

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def m(
    name: str, role: str, fmt: str = "text", grain: str | None = None, unit: str | None = None
) -> ColumnMeta:
    return ColumnMeta(
        name=name, role=ColumnRole(role), label_ru=f"{name} ру", label_en=name,
        fmt=ValueFormat(fmt), grain=Grain(grain) if grain else None, unit=unit,
    )  # fmt: skip


MONTH = m("month", "period", grain="month")
MONTH_NO = m("month_no", "period", "number", grain="month")
YEAR = m("year", "period", "number", grain="year")
REGION = m("region", "dimension")
SEGMENT = m("segment", "dimension")
CLIENT = m("client_id", "id", "count")
COUNT = m("wallets", "metric", "count")
MONEY = m("amount", "metric", "money", unit="RUB")
AVG = m("avg_check", "metric", "number")
SHARE = m("share", "metric", "percent")
TEXT_METRIC = m("status", "metric", "text")


def result(metas: list[ColumnMeta], rows: list[tuple[object, ...]]) -> QueryResult:
    return QueryResult(columns=[x.name for x in metas], rows=rows)


def months(n: int) -> list[date]:
    return [date(2000 + i // 12, i % 12 + 1, 1) for i in range(n)]


# --- the rules, table-driven -----------------------------------------------------------------

CASES = [
    # id, metas, rows, kind, x, series, y_columns
    ("series", [MONTH, COUNT], [(d, i) for i, d in enumerate(months(12))],
     "line", "month", None, ["wallets"]),
    ("series_3_points_bar", [MONTH, COUNT], [(d, i) for i, d in enumerate(months(3))],
     "bar", "month", None, ["wallets"]),
    ("month_number_is_x_not_metric", [MONTH_NO, COUNT], [(i, i * 10) for i in range(1, 13)],
     "line", "month_no", None, ["wallets"]),
    ("year_and_month_numbers_combine", [YEAR, MONTH_NO, COUNT],
     [(2025, i, i) for i in range(1, 13)],
     "line", "year", None, ["wallets"]),
    ("id_is_never_a_value", [CLIENT, MONEY], [(1000 + i, 50 - i) for i in range(10)],
     "bar", "client_id", None, ["amount"]),
    ("breakdown_bar", [REGION, COUNT], [(f"R{i}", i) for i in range(10)],
     "bar", "region", None, ["wallets"]),
    ("pie_for_shares", [REGION, SHARE], [("A", 50.0), ("B", 30.0), ("C", 20.0)],
     "pie", "region", None, ["share"]),
    ("pie_for_fractions", [REGION, SHARE], [("A", 0.5), ("B", 0.5)],
     "pie", "region", None, ["share"]),
    ("no_pie_for_counts", [REGION, COUNT], [("A", 5), ("B", 3)],
     "bar", "region", None, ["wallets"]),
    ("no_pie_when_not_a_whole", [REGION, SHARE], [("A", 50.0), ("B", 10.0)],
     "bar", "region", None, ["share"]),
    ("no_pie_with_negatives", [REGION, SHARE], [("A", 120.0), ("B", -20.0)],
     "bar", "region", None, ["share"]),
    ("no_pie_over_6", [REGION, SHARE], [(f"R{i}", 100 / 7) for i in range(7)],
     "bar", "region", None, ["share"]),
    ("period_dim_multiline", [MONTH, REGION, COUNT], [(d, r, 1) for d in months(6) for r in "AB"],
     "line", "month", "region", ["wallets"]),
    ("period_dim_few_points", [MONTH, REGION, COUNT], [(d, r, 1) for d in months(2) for r in "AB"],
     "grouped_bar", "month", "region", ["wallets"]),
    ("two_dims_stacked", [REGION, SEGMENT, COUNT], [(r, s, 1) for r in "ABCD" for s in "xy"],
     "stacked_bar", "region", "segment", ["wallets"]),
    ("two_dims_average_grouped", [REGION, SEGMENT, AVG],
     [(r, s, 1.5) for r in "ABCD" for s in "xy"],
     "grouped_bar", "region", "segment", ["avg_check"]),
    ("kpi", [COUNT], [(12345,)], "kpi", None, None, ["wallets"]),
    ("kpi_one_row_with_dims", [MONTH, REGION, COUNT, MONEY], [(date(2025, 5, 1), "A", 1, 2)],
     "kpi", None, None, ["wallets", "amount"]),
    ("several_metrics_by_dim", [REGION, COUNT, AVG], [(f"R{i}", i, i / 2) for i in range(5)],
     "grouped_bar", "region", None, ["wallets", "avg_check"]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("metas", "rows", "kind", "x", "series", "ys"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_choice(
    metas: list[ColumnMeta],
    rows: list[tuple[object, ...]],
    kind: str,
    x: str | None,
    series: str | None,
    ys: list[str],
) -> None:
    d = choose_chart(result(metas, rows), metas, "ru")
    assert (d.kind, d.x, d.series, d.y_columns) == (kind, x, series, ys), d.reason
    assert d.reason
    if kind not in ("none", "kpi"):
        spec = to_chartjs(d, result(metas, rows), metas, "en")
        json.dumps(spec)  # plain JSON


NONE_CASES = [
    ("empty", [MONTH, COUNT], []),
    ("only_ids_and_dims", [CLIENT, REGION], [(1, "A"), (2, "B")]),
    ("text_metric", [REGION, TEXT_METRIC], [("A", "ok"), ("B", "bad")]),
    ("metric_all_null", [REGION, COUNT], [("A", None), ("B", None)]),
    ("no_labels", [COUNT, MONEY], [(1, 2), (3, 4)]),
    (
        "three_dims",
        [REGION, SEGMENT, m("channel", "dimension"), COUNT],
        [("A", "x", "c", 1), ("B", "y", "d", 2)],
    ),
]


@pytest.mark.parametrize(
    ("metas", "rows"), [c[1:] for c in NONE_CASES], ids=[c[0] for c in NONE_CASES]
)
def test_none_with_a_reason(metas: list[ColumnMeta], rows: list[tuple[object, ...]]) -> None:
    d = choose_chart(result(metas, rows), metas, "en")
    assert d.kind == "none" and d.reason
    spec, png, events = safe_chart(result(metas, rows), metas, "en", png_path=None)
    assert spec is None and png is None
    assert events[0].kind is EventKind.BRANCH and events[0].data["chart"] == "none"


def test_ids_are_never_summed_or_plotted() -> None:
    metas = [MONTH, CLIENT, COUNT]
    r = result(metas, [(d, 100 + i, i) for i, d in enumerate(months(6))])
    d = choose_chart(r, metas, "ru")
    assert "client_id" not in d.y_columns
    spec = to_chartjs(d, r, metas, "ru")
    assert [ds["label"] for ds in spec["data"]["datasets"]] == ["wallets ру"]


def test_different_scales_go_to_a_second_axis() -> None:
    metas = [MONTH, COUNT, MONEY]
    r = result(metas, [(d, i, i * 1000.0) for i, d in enumerate(months(6), start=1)])
    d = choose_chart(r, metas, "en")
    assert d.axes == {"wallets": "y", "amount": "y2"}  # money vs count never share an axis
    spec = to_chartjs(d, r, metas, "en")
    assert [ds["yAxisID"] for ds in spec["data"]["datasets"]] == ["y", "y2"]
    assert spec["options"]["scales"]["y2"]["position"] == "right"
    assert spec["options"]["scales"]["y2"]["title"]["text"] == "amount, RUB"


def test_same_unit_but_20x_scale_splits_and_a_third_scale_is_dropped() -> None:
    small = m("small", "metric", "count")
    big = m("big", "metric", "count")
    money = m("money", "metric", "money")
    metas = [MONTH, COUNT, small, big, money]
    r = result(metas, [(d, 100 + i, 50 + i, 100_000 + i, 5.0) for i, d in enumerate(months(5))])
    d = choose_chart(r, metas, "en")
    assert d.axes == {"wallets": "y", "small": "y", "big": "y2"}
    assert d.dropped == ["money"]
    assert d.cut and "money" in d.cut


def test_line_cut_keeps_latest_points_with_a_note() -> None:
    metas = [MONTH, COUNT]
    dates = months(500)
    r = result(metas, [(dt, i) for i, dt in enumerate(reversed(dates))])  # unordered input
    d = choose_chart(r, metas, "ru")
    assert (
        d.kind == "line" and d.cut == f"Показаны последние {limits.LINE_MAX_POINTS} из 500 периодов"
    )
    data = build_chart_data(d, r, metas, "ru")
    assert len(data.labels) == limits.LINE_MAX_POINTS
    assert data.labels[-1] == "август 2041" and data.labels[0] == "май 2008"


def test_bar_cut_keeps_largest_sorted_desc() -> None:
    metas = [REGION, MONEY]
    r = result(metas, [(f"R{i}", Decimal(i)) for i in range(134)])
    d = choose_chart(r, metas, "en")
    assert d.kind == "bar" and d.cut == "Showing the 50 largest of 134"
    data = build_chart_data(d, r, metas, "en")
    assert data.labels[:2] == ["R133", "R132"] and len(data.labels) == 50
    assert data.datasets[0].values[:2] == [133.0, 132.0]


def test_series_over_limit_fold_into_other_for_counts_and_drop_for_averages() -> None:
    rows = [(d, f"S{s}", float(s + 1)) for d in months(5) for s in range(12)]
    metas = [MONTH, REGION, COUNT]
    d = choose_chart(result(metas, rows), metas, "ru")
    assert d.fold_other and "«Прочее»" in (d.cut or "")
    data = build_chart_data(d, result(metas, rows), metas, "ru")
    labels = [ds.label for ds in data.datasets]
    assert len(labels) == limits.SERIES_MAX and labels[-1] == "Прочее" and labels[0] == "S11"
    assert data.datasets[-1].values[0] == sum(range(1, 6))  # S0..S4 folded: 1+2+3+4+5
    metas = [MONTH, REGION, AVG]
    d = choose_chart(result(metas, rows), metas, "en")
    data = build_chart_data(d, result(metas, rows), metas, "en")
    assert not d.fold_other and len(data.datasets) == limits.SERIES_MAX
    assert "Other" not in [ds.label for ds in data.datasets]


def test_pie_and_kpi_specs() -> None:
    metas = [REGION, SHARE]
    r = result(metas, [("A", 20.0), ("B", 80.0)])
    spec = to_chartjs(choose_chart(r, metas, "ru"), r, metas, "ru")
    assert spec["type"] == "pie" and spec["data"]["labels"] == ["B", "A"]
    assert spec["data"]["datasets"][0]["data"] == [80.0, 20.0]
    k = result([COUNT], [(12345,)])
    spec = to_chartjs(choose_chart(k, [COUNT], "ru"), k, [COUNT], "ru")
    assert spec["type"] == "kpi" and spec["data"]["items"][0]["value"] == "12\u00a0345"


def test_chartjs_config_shape() -> None:
    metas = [MONTH, REGION, MONEY]
    r = result(metas, [(d, reg, Decimal("1.5")) for d in months(4) for reg in "AB"])
    spec = to_chartjs(choose_chart(r, metas, "en"), r, metas, "en")
    assert spec["type"] == "line"
    assert spec["data"]["labels"] == ["January 2000", "February 2000", "March 2000", "April 2000"]
    assert spec["data"]["datasets"][0]["data"] == [1.5, 1.5, 1.5, 1.5]
    assert spec["options"]["scales"]["x"]["title"]["text"] == "month"
    assert spec["options"]["plugins"]["title"]["text"] == "amount"
    vl = to_vegalite(choose_chart(r, metas, "en"), r, metas, "en")
    assert vl["mark"]["type"] == "line" and len(vl["data"]["values"]) == 8


@pytest.mark.parametrize("lang", ["ru", "en"])
@pytest.mark.parametrize(
    "case",
    [
        "series",
        "pie_for_shares",
        "two_dims_stacked",
        "kpi",
        "period_dim_few_points",
        "several_metrics_by_dim",
    ],
)
def test_png_is_written(tmp_path: Path, lang: str, case: str) -> None:
    _, metas, rows, *_ = next(c for c in CASES if c[0] == case)
    r = result(metas, rows)
    path = render_png(choose_chart(r, metas, lang), r, metas, lang, tmp_path / f"{case}.png")
    data = path.read_bytes()
    assert data.startswith(PNG_MAGIC) and len(data) > 2000
    with Image.open(path) as image:  # decodes, at the size of the old renderer, not blank
        assert image.size == (1000, 560)
        assert len(image.getcolors(1 << 16) or []) > 20


def test_safe_chart_success_events(tmp_path: Path) -> None:
    metas = [REGION, COUNT]
    r = result(metas, [(f"Регион {i}", i) for i in range(60)])
    spec, png, events = safe_chart(r, metas, "ru", png_path=tmp_path / "c.png")
    assert spec is not None and spec["type"] == "bar"
    assert png is not None and png.read_bytes().startswith(PNG_MAGIC)
    kinds = [e.kind for e in events]
    assert (
        EventKind.BRANCH in kinds and EventKind.WARNING in kinds and EventKind.MEASUREMENT in kinds
    )
    assert EventKind.SUPPRESSED not in kinds


def test_a_failure_inside_rendering_is_suppressed_not_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    metas = [MONTH, COUNT]
    r = result(metas, [(d, i) for i, d in enumerate(months(12))])

    def boom(*_: object, **__: object) -> None:
        raise RuntimeError("renderer exploded")

    monkeypatch.setattr(charts, "draw_png", boom)
    spec, png, events = safe_chart(r, metas, "ru", png_path=tmp_path / "c.png")
    assert spec is not None and png is None
    suppressed = [e for e in events if e.kind is EventKind.SUPPRESSED]
    assert len(suppressed) == 1 and "renderer exploded" in suppressed[0].data["error"]

    monkeypatch.setattr(charts, "chartjs_from_data", boom)
    spec, png, events = safe_chart(r, metas, "ru")
    assert spec is None and [e.kind for e in events].count(EventKind.SUPPRESSED) == 1

    monkeypatch.setattr(charts, "choose_chart", boom)
    assert safe_chart(r, metas, "ru")[:2] == (None, None)


def test_unwritable_png_path_is_suppressed(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    metas = [MONTH, COUNT]
    r = result(metas, [(d, i) for i, d in enumerate(months(5))])
    spec, png, events = safe_chart(r, metas, "en", png_path=blocker / "sub" / "c.png")
    assert spec is not None and png is None
    assert any(e.kind is EventKind.SUPPRESSED for e in events)


def test_garbage_values_never_raise(tmp_path: Path) -> None:
    metas = [MONTH, REGION, COUNT]
    rows = [
        (None, None, None),
        ("not a date", object(), "12"),
        (date(2025, 1, 1), ["x"], float("nan")),
    ]
    _spec, _png, events = safe_chart(result(metas, rows), metas, "ru", png_path=tmp_path / "g.png")
    assert isinstance(events, list)
