"""Writing the Excel file of a result: an answer's few rows, and the row cap's 100,000 rows.

    .venv/bin/python benchmarks/bench_present.py

A small file is written whenever an answer's Excel is asked for (a download, `--excel`, the
CLI's default files), inside the ask's own-time budget of 50 ms with the PNG (issue #15), so
its CPU time is the figure: the median of repeated writes of a 10-row and a 100-row result.
The largest result the warehouse returns must still finish well within a request's patience:
one write of 100,000 rows of four typed columns, in seconds (wall and CPU).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from datetime import date
from decimal import Decimal
from pathlib import Path

from vitrina.present.columns import ColumnMeta, ColumnRole, Grain, ValueFormat
from vitrina.present.excel import write_excel
from vitrina.warehouse.result import QueryResult

ROWS = 100_000
SMALL = (10, 100)
REPEATS = 30  # writes per small size; the median is the figure
GOALS = {  # figure -> (op, number), as benchmarks/run.py reads every benchmark's goals
    "excel_100k_rows_s": ("<", 60.0),
    "excel_10_rows_cpu_ms": ("<", 10.0),
    "excel_100_rows_cpu_ms": ("<", 20.0),
}
METAS = [
    ColumnMeta(
        name="day", role=ColumnRole.PERIOD, label_ru="День", label_en="Day", grain=Grain.DAY
    ),
    ColumnMeta(name="region", role=ColumnRole.DIMENSION, label_ru="Регион", label_en="Region"),
    ColumnMeta(
        name="n", role=ColumnRole.METRIC, label_ru="Кол-во", label_en="Count", fmt=ValueFormat.COUNT
    ),
    ColumnMeta(
        name="amount",
        role=ColumnRole.METRIC,
        label_ru="Сумма",
        label_en="Amount",
        fmt=ValueFormat.MONEY,
        unit="RUB",
    ),
]


def _result(n: int) -> QueryResult:
    rows = [(date(2025, 1, 1 + i % 28), f"R{i % 50}", i, Decimal(i) / 7) for i in range(n)]
    return QueryResult(columns=[m.name for m in METAS], rows=rows)


def _write(result: QueryResult, path: Path) -> Path:
    return write_excel(
        result,
        METAS,
        path,
        lang="ru",
        sheet_title="big",
        question="Сумма по регионам и дням",
        sql="SELECT day, region, count(*) AS n, sum(amount) AS amount FROM t GROUP BY 1, 2",
        period_label=None,
    )


def run() -> dict[str, float]:
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in SMALL:
            result = _result(n)
            _write(result, Path(tmp) / "warm.xlsx")  # first call: imports, lazy tables
            cpu = []
            for i in range(REPEATS):
                start = time.process_time()
                _write(result, Path(tmp) / f"small-{n}-{i}.xlsx")
                cpu.append((time.process_time() - start) * 1000)
            figures[f"excel_{n}_rows_cpu_ms"] = round(statistics.median(cpu), 2)
        result = _result(ROWS)
        start, start_cpu = time.perf_counter(), time.process_time()
        path = _write(result, Path(tmp) / "big.xlsx")
        seconds, cpu_s = time.perf_counter() - start, time.process_time() - start_cpu
        mib = path.stat().st_size / 2**20
    return {
        "excel_rows": float(ROWS),
        "excel_100k_rows_s": round(seconds, 2),
        "excel_100k_rows_cpu_s": round(cpu_s, 2),
        "excel_file_mib": round(mib, 1),
        **figures,
    }


if __name__ == "__main__":
    for key, value in run().items():
        goal = GOALS.get(key)
        print(f"{key:24} {value:>10g}   {f'{goal[0]} {goal[1]:g}' if goal else ''}")
