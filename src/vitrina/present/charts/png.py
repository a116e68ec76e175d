"""PNG charts with matplotlib (Agg canvas, no display, no pyplot global state).

Russian text renders with DejaVu Sans; axis ticks use the same number formatting as the
answer (``1 234 567`` / ``1,234,567``).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator

from vitrina.present.charts.choose import ChartDecision
from vitrina.present.charts.data import ChartData, build_chart_data
from vitrina.present.columns import ColumnMeta, ValueFormat
from vitrina.present.numbers import Lang, format_number, format_percent
from vitrina.warehouse.result import QueryResult

RC = {
    "font.family": "DejaVu Sans",
    "axes.unicode_minus": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
MAX_X_TICKS = 14
PALETTE = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
)  # fmt: skip


def _tick_formatter(fmt: ValueFormat, lang: Lang | str) -> FuncFormatter:
    def tick(value: float, _pos: int | None = None) -> str:
        if fmt is ValueFormat.PERCENT:
            return format_percent(value, lang)
        decimals = 0 if abs(value) >= 10 or float(value).is_integer() else 2
        return format_number(value, decimals, lang)

    return FuncFormatter(tick)


def _zeros(values: list[float | None]) -> list[float]:
    return [0.0 if v is None else v for v in values]


def _nan(values: list[float | None]) -> list[float]:
    return [float("nan") if v is None else v for v in values]


def _draw_kpi(fig: Figure, data: ChartData) -> None:
    n = len(data.datasets)
    for i, (ds, text) in enumerate(zip(data.datasets, data.kpi_values, strict=True)):
        x = (i + 0.5) / n
        fig.text(x, 0.55, text, ha="center", va="center", fontsize=30, weight="bold")
        fig.text(x, 0.3, ds.label, ha="center", va="center", fontsize=13, color="#555555")
    if data.labels and data.labels[0] != data.title:
        fig.suptitle(data.labels[0], fontsize=12)


def _draw_pie(fig: Figure, data: ChartData) -> None:
    ax = fig.add_subplot(1, 1, 1)
    values = _zeros(data.datasets[0].values)
    ax.pie(
        values, labels=data.labels, autopct="%1.1f%%" if len(values) > 1 else None, startangle=90
    )
    ax.set_aspect("equal")
    ax.set_title(data.title)


def _draw_xy(fig: Figure, data: ChartData, lang: Lang | str) -> None:
    ax = fig.add_subplot(1, 1, 1)
    ax2 = ax.twinx() if any(ds.axis == "y2" for ds in data.datasets) else None
    if ax2 is not None:
        ax2.spines["right"].set_visible(True)
    n = len(data.labels)
    xs = list(range(n))
    handles = []
    if data.kind == "line":
        marker = "o" if n <= 40 else None
        for j, ds in enumerate(data.datasets):
            on_y2 = ds.axis == "y2" and ax2 is not None
            target = ax2 if on_y2 else ax
            (line,) = target.plot(
                xs,
                _nan(ds.values),
                marker=marker,
                label=ds.label,
                linewidth=1.8,
                color=PALETTE[j % len(PALETTE)],
                linestyle="--" if on_y2 else "-",
            )
            handles.append(line)
    elif data.kind == "stacked_bar":
        bottom = [0.0] * n
        for j, ds in enumerate(data.datasets):
            values = _zeros(ds.values)
            color = PALETTE[j % len(PALETTE)]
            handles.append(ax.bar(xs, values, bottom=bottom, label=ds.label, color=color))
            bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    else:  # bar, grouped_bar
        k = len(data.datasets)
        width = 0.8 / k
        for j, ds in enumerate(data.datasets):
            target = ax2 if ds.axis == "y2" and ax2 is not None else ax
            offset = (j - (k - 1) / 2) * width
            bars = target.bar(
                [x + offset for x in xs], _zeros(ds.values), width=width, label=ds.label
            )
            handles.append(bars)
            if ax2 is not None:  # tell the axes apart: hatch the second-axis bars
                for b in bars:
                    b.set_hatch("//" if ds.axis == "y2" else "")

    step = max(1, -(-n // MAX_X_TICKS))
    ax.set_xticks(xs[::step])
    ax.set_xticklabels(
        data.labels[::step], rotation=30 if n > 5 else 0, ha="right" if n > 5 else "center"
    )
    ax.yaxis.set_major_formatter(_tick_formatter(data.y_format, lang))
    ax.yaxis.set_major_locator(MaxNLocator(nbins=6))
    ax.grid(axis="y", alpha=0.3)
    if data.x_title:
        ax.set_xlabel(data.x_title)
    if data.y_title:
        ax.set_ylabel(data.y_title)
    if ax2 is not None:
        ax2.yaxis.set_major_formatter(_tick_formatter(data.y2_format or data.y_format, lang))
        if data.y2_title:
            ax2.set_ylabel(data.y2_title)
    ax.set_title(data.title)
    if len(handles) > 1:
        ax.legend(handles=handles, fontsize=9, loc="best")


def draw_png(data: ChartData, lang: Lang | str, path: str | Path) -> Path:
    """Draw prepared chart data to a PNG file."""
    path = Path(path)
    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(10, 5.6), dpi=100)
        FigureCanvasAgg(fig)
        if data.kind == "kpi":
            _draw_kpi(fig, data)
        elif data.kind == "pie":
            _draw_pie(fig, data)
        else:
            _draw_xy(fig, data, lang)
        if data.kind != "kpi":
            fig.tight_layout()
        fig.savefig(path, format="png")
    return path


def render_png(
    decision: ChartDecision,
    result: QueryResult,
    metas: Iterable[ColumnMeta],
    lang: Lang | str,
    path: str | Path,
) -> Path:
    """Render the decided chart to ``path`` (raises for kind "none"; see ``safe_chart``)."""
    return draw_png(build_chart_data(decision, result, metas, lang), lang, path)
