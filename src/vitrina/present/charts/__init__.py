"""Charts of an answer: rule-based choice, Chart.js / Vega-Lite specs, PNG, never raising.

``decide_chart`` (the choice and the Chart.js spec) and ``safe_png`` (the picture, drawn
only when someone asks for it) are the entry points; ``safe_chart`` does both. Any failure
becomes a suppressed decision-trace event, so a broken chart never loses the answer.
Pillow (the PNG renderer, `png.py`) is imported only when a PNG is drawn.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from vitrina.present.charts.choose import ChartDecision, choose_chart
from vitrina.present.charts.data import ChartData, build_chart_data
from vitrina.present.charts.spec import chartjs_from_data, to_chartjs, to_vegalite
from vitrina.present.columns import ColumnMeta
from vitrina.present.numbers import Lang
from vitrina.trace import Trace, TraceEvent
from vitrina.warehouse.result import QueryResult

__all__ = [
    "ChartData",
    "ChartDecision",
    "build_chart_data",
    "choose_chart",
    "decide_chart",
    "draw_png",
    "render_png",
    "safe_chart",
    "safe_png",
    "to_chartjs",
    "to_vegalite",
]


def draw_png(data: ChartData, lang: Lang | str, path: str | Path) -> Path:
    """Draw prepared chart data to a PNG file (Pillow is imported here, on first use)."""
    from vitrina.present.charts import png

    return png.draw_png(data, lang, path)


def render_png(
    decision: ChartDecision,
    result: QueryResult,
    metas: Iterable[ColumnMeta],
    lang: Lang | str,
    path: str | Path,
) -> Path:
    """Render the decided chart to ``path`` (raises for kind "none"; see ``safe_png``)."""
    return draw_png(build_chart_data(decision, result, metas, lang), lang, path)


def decide_chart(
    result: QueryResult,
    metas: Iterable[ColumnMeta],
    lang: Lang | str = "ru",
    *,
    node: str = "chart",
    decision: ChartDecision | None = None,
) -> tuple[dict[str, Any] | None, ChartDecision | None, list[TraceEvent]]:
    """Choose a chart and build its Chart.js spec; return (spec, decision, trace events).

    Nothing is drawn: the decision is what `safe_png` draws later, on request. The decision
    is None when no chart is drawn (kind "none", or choosing or building data failed).
    """
    trace = Trace(node)
    metas = list(metas)
    try:
        decision = decision or choose_chart(result, metas, lang)
    except Exception as exc:  # a chart must never lose the answer
        trace.suppressed("chart choice failed", error=f"{type(exc).__name__}: {exc}")
        return None, None, trace.events
    trace.branch(f"chart: {decision.kind}", chart=decision.kind, reason=decision.reason)
    if decision.dropped:
        trace.rejected("metrics not plotted", columns=decision.dropped, cut=decision.cut)
    if decision.cut:
        trace.warning(decision.cut, chart=decision.kind)
    if decision.kind == "none":
        return None, None, trace.events
    try:
        data = build_chart_data(decision, result, metas, lang)
    except Exception as exc:
        trace.suppressed("chart data failed", error=f"{type(exc).__name__}: {exc}")
        return None, None, trace.events
    spec: dict[str, Any] | None = None
    try:
        spec = chartjs_from_data(data)
    except Exception as exc:
        trace.suppressed("chart spec failed", error=f"{type(exc).__name__}: {exc}")
    prepared = {"lang": str(lang), "data": data.model_dump(mode="json")}
    return spec, decision.model_copy(update={"prepared": prepared}), trace.events


def safe_png(
    decision: ChartDecision,
    result: QueryResult,
    metas: Iterable[ColumnMeta],
    lang: Lang | str,
    png_path: str | Path,
    *,
    node: str = "chart",
) -> tuple[Path | None, list[TraceEvent]]:
    """Draw a decided chart to a PNG file; (path or None, trace events), never raise."""
    trace = Trace(node)
    start = time.perf_counter()
    try:
        prepared = decision.prepared or {}
        data = (
            ChartData.model_validate(prepared["data"])
            if prepared.get("lang") == str(lang) and "data" in prepared
            else build_chart_data(decision, result, list(metas), lang)
        )
        png = draw_png(data, lang, png_path)
    except Exception as exc:
        trace.suppressed("chart png failed", error=f"{type(exc).__name__}: {exc}")
        return None, trace.events
    ms = round((time.perf_counter() - start) * 1000, 3)
    trace.measurement("chart png rendered", chart=decision.kind, ms=ms)
    return png, trace.events


def safe_chart(
    result: QueryResult,
    metas: Iterable[ColumnMeta],
    lang: Lang | str = "ru",
    *,
    png_path: str | Path | None = None,
    node: str = "chart",
    decision: ChartDecision | None = None,
) -> tuple[dict[str, Any] | None, Path | None, list[TraceEvent]]:
    """Choose and draw a chart; return (Chart.js spec, PNG path, trace events), never raise.

    The spec is None for kind "none" or when building it failed; the PNG is None when no
    path was given, nothing is drawn, or drawing failed. Each failure is a SUPPRESSED event.
    """
    metas = list(metas)
    spec, decided, events = decide_chart(result, metas, lang, node=node, decision=decision)
    if png_path is None or decided is None:
        return spec, None, events
    png, more = safe_png(decided, result, metas, lang, png_path, node=node)
    return spec, png, [*events, *more]
