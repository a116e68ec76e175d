"""Run every benchmarks/bench_*.py, print one table, and rewrite benchmarks/RESULTS.md.

    make bench            # all of them
    .venv/bin/python benchmarks/run.py ask docs   # only bench_ask.py and bench_docs.py

Each module exposes run() -> dict[str, float] and may define TARGETS (metric -> text).
"""

from __future__ import annotations

import importlib.util
import os
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console
from rich.table import Table

HERE = Path(__file__).resolve().parent


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem_kb = next(
            int(line.split()[1])
            for line in Path("/proc/meminfo").read_text().splitlines()
            if line.startswith("MemTotal")
        )
        mem = f"{mem_kb / 1024 / 1024:.0f} GiB"
    except (OSError, StopIteration, ValueError):
        mem = "?"
    system = f"{platform.system()} {platform.release()}, Python {platform.python_version()}"
    return f"{cpu}, {os.cpu_count()} cores, {mem} RAM, {system}"


def load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(selected: list[str]) -> int:
    console = Console()
    paths = sorted(HERE.glob("bench_*.py"))
    if selected:
        paths = [p for p in paths if p.stem.removeprefix("bench_") in selected]
    rows: list[tuple[str, str, str, str]] = []
    failed = 0
    for path in paths:
        name = path.stem.removeprefix("bench_")
        console.print(f"[bold]running[/] {name} ...")
        start = time.perf_counter()
        try:
            module = load(path)
            figures = module.run()
        except Exception as exc:  # a broken benchmark is reported, the others still run
            failed += 1
            rows.append((name, "error", f"{type(exc).__name__}: {exc}", ""))
            continue
        targets = getattr(module, "TARGETS", {})
        for key, value in figures.items():
            rows.append(
                (
                    name,
                    key,
                    f"{value:g}" if isinstance(value, float) else str(value),
                    targets.get(key, ""),
                )
            )
        rows.append((name, "bench_seconds", f"{time.perf_counter() - start:.1f}", ""))
    table = Table(title="Vitrina benchmarks")
    for col in ("benchmark", "figure", "value", "target"):
        table.add_column(col)
    for row in rows:
        table.add_row(*row)
    console.print(table)
    if not selected:
        stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        lines = [
            "# Benchmark results",
            "",
            f"Written by `make bench` on {stamp}.",
            "",
            f"Machine: {machine()}.",
            "",
            "| benchmark | figure | value | target |",
            "| --- | --- | --- | --- |",
        ]
        lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
        (HERE / "RESULTS.md").write_text("\n".join(lines) + "\n" + NOTES, encoding="utf-8")
        console.print(f"written {HERE / 'RESULTS.md'}")
    return 1 if failed else 0


NOTES = """
## What the figures mean
- **ask**: every golden question (tests/golden/questions.yaml) asked on the full demo
  warehouse in rules mode. `pipeline_ms` is Vitrina's own time per question: wall time
  minus the time spent inside the warehouse engine (EXPLAIN, the query, join-key checks).
  `with_files_ms` also writes the Excel file and renders the PNG chart.
- **demo_build**: the full demo warehouse (1.25M payments, 1.64M rows) built from scratch;
  the PostgreSQL load when a server is reachable.
- **retrieval**: the 500-table synthetic catalog (the demo catalog plus distractors from 15
  domains); recall@k of the right tables (those named in each golden reference SQL) for
  BM25 (and embeddings / hybrid when `vitrina[embeddings]` is installed), query latency, and
  the size of the SQL-generation prompt in tokens against the budget.
- **unseen**: each eval suite's cases split into right / answered_wrong (a number or an answer
  that is not the expected one: the bad case) / refused / clarified, on the demo golden set,
  new wording on the demo (suites/demo_wording.yaml), Chinook (SQLite fixture) and the
  generated TPC-H-like star (benchmarks/unseen/tpch_like.py); target: answered_wrong 0.
- **docs**: documenting a synthetic model of 1,000 measures with SQL behind it, rules mode,
  end to end (seconds and peak RSS).
- **periods**: `extract_period` over every phrase of tests/data/periods.yaml, best of five
  passes, in microseconds per phrase.
- **present**: the Excel file of a 100,000-row result (the row cap), one write.
"""

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
