"""Charts of an answer: rule-based choice, Chart.js / Vega-Lite specs, PNG, never raising.

``safe_chart`` is the entry point for the ask graph: any failure becomes a suppressed
decision-trace event, so a broken chart never loses the answer.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from vitrina.present.charts.choose import ChartDecision, choose_chart
from vitrina.present.charts.data import ChartData, build_chart_data
from vitrina.present.charts.png import draw_png, render_png
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
    "render_png",
    "safe_chart",
    "to_chartjs",
    "to_vegalite",
]


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
    png: Path | None = None
    if png_path is not None:
        start = time.perf_counter()
        try:
            png = draw_png(data, lang, png_path)
        except Exception as exc:
            trace.suppressed("chart png failed", error=f"{type(exc).__name__}: {exc}")
        else:
            ms = round((time.perf_counter() - start) * 1000, 3)
            trace.measurement("chart png rendered", chart=decision.kind, ms=ms)
    return spec, png, trace.events
