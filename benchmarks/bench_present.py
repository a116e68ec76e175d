"""Writing the Excel file of a result at the row cap: 100,000 rows of four typed columns.

    .venv/bin/python benchmarks/bench_present.py

The export must finish well within a request's patience even for the largest result the
warehouse returns; the figure is one write to a temporary folder, in seconds.
"""

from __future__ import annotations

import tempfile
import time
from datetime import date
from decimal import Decimal
from pathlib import Path

from vitrina.present.columns import ColumnMeta, ColumnRole, Grain, ValueFormat
from vitrina.present.excel import write_excel
from vitrina.warehouse.result import QueryResult

ROWS = 100_000
TARGETS = {"excel_100k_rows_s": "< 60 s"}
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


def run() -> dict[str, float]:
    rows = [(date(2025, 1, 1 + i % 28), f"R{i % 50}", i, Decimal(i) / 7) for i in range(ROWS)]
    result = QueryResult(columns=[m.name for m in METAS], rows=rows)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        path = write_excel(
            result,
            METAS,
            Path(tmp) / "big.xlsx",
            lang="ru",
            sheet_title="big",
            question="",
            sql="",
            period_label=None,
        )
        seconds = time.perf_counter() - start
        mib = path.stat().st_size / 2**20
    return {
        "excel_rows": float(ROWS),
        "excel_100k_rows_s": round(seconds, 2),
        "excel_file_mib": round(mib, 1),
    }


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:24} {value:>10g}   {TARGETS.get(key, '')}")
