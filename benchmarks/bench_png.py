"""CPU time of one chart PNG (1000x560) for the three shapes answers draw most.

    .venv/bin/python benchmarks/bench_png.py

A PNG is drawn whenever an answer's files are asked for (CLI default, MCP, download), so
its cost is part of the ask's own time with files (bench_ask.py, < 50 ms). Each figure is
the median CPU time (time.process_time) of one draw_png call after a warm-up draw, which
loads the fonts; the chart data is built once, outside the timing.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from vitrina.present.charts import draw_png
from vitrina.present.charts.data import ChartData, Dataset
from vitrina.present.columns import ValueFormat

RUNS = 30
GOALS = {
    "png_line_12_months_cpu_ms": ("<", 8.0),
    "png_bar_10_cpu_ms": ("<", 8.0),
    "png_pie_cpu_ms": ("<", 8.0),
}
MONTHS_RU = ["янв", "фев", "мар", "апр", "май", "июн", "июл", "авг", "сен", "окт", "ноя", "дек"]

CHARTS = {
    "png_line_12_months_cpu_ms": ChartData(
        kind="line",
        title="Выручка по месяцам",
        labels=[f"{m} 2025" for m in MONTHS_RU],
        datasets=[
            Dataset(
                label="Выручка",
                column="revenue",
                values=[1_234_567.0 + 95_000 * i - 40_000 * (i % 3) for i in range(12)],
            )
        ],
        x_title="Месяц",
        y_title="Выручка, ₽",
        y_format=ValueFormat.MONEY,
    ),
    "png_bar_10_cpu_ms": ChartData(
        kind="bar",
        title="Количество кошельков по регионам",
        labels=[f"Регион {i}" for i in range(1, 11)],
        datasets=[
            Dataset(
                label="Кошельки", column="wallets", values=[9_800.0 - 850 * i for i in range(10)]
            )
        ],
        x_title="Регион",
        y_title="Кошельки",
        y_format=ValueFormat.COUNT,
    ),
    "png_pie_cpu_ms": ChartData(
        kind="pie",
        title="Доля платежей по каналам",
        labels=["Мобильное приложение", "Сайт", "Отделение", "Банкомат"],
        datasets=[Dataset(label="Доля", column="share", values=[46.0, 31.0, 15.0, 8.0])],
        y_format=ValueFormat.PERCENT,
    ),
}


def cpu_ms(data: ChartData, path: Path) -> float:
    """Median CPU milliseconds of drawing ``data`` to ``path``."""
    draw_png(data, "ru", path)  # warm-up: fonts, imports
    times = []
    for _ in range(RUNS):
        start = time.process_time()
        draw_png(data, "ru", path)
        times.append((time.process_time() - start) * 1000)
    return statistics.median(times)


def run() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        return {
            key: round(cpu_ms(data, Path(tmp) / f"{key}.png"), 2) for key, data in CHARTS.items()
        }


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:28} {value:>8g}   {' '.join(map(str, GOALS[key]))}")
