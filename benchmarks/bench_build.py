"""Time `vitrina build` in rules mode on the 6-KPI brief (examples/briefs/payments-2025.yaml).

    .venv/bin/python benchmarks/bench_build.py

One whole build, as `vitrina build` runs it: the ten roles, every review (the browser review
in chromium included), git merges and the HTML publication, on the full-size demo warehouse
built beforehand (its build time is bench_demo_build's). Also the time of a rerun of the
finished build (it resumes, finds everything done, adds nothing), and the board's size.
"""

from __future__ import annotations

import os
import tempfile
import time
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
BRIEF = HERE.parent / "examples" / "briefs" / "payments-2025.yaml"
TARGETS = {"build_6_kpis_seconds": "< 60 s", "rerun_done_build_seconds": "< 2 s"}


def run() -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="vitrina-bench-build-") as tmp:
        os.environ["VITRINA_HOME"] = tmp
        from vitrina.config import load_settings
        from vitrina.team.review.browser import chromium_problem
        from vitrina.team.service import BuildService
        from vitrina.warehouse.demo import build_demo_warehouse

        db = Path(tmp) / "demo.duckdb"
        build_demo_warehouse(db)
        settings = load_settings(db_url=f"duckdb:///{db}")
        browser = chromium_problem() is None
        service = BuildService(settings, today=date(2026, 11, 30), browser=browser)
        try:
            start = time.perf_counter()
            report = service.run(BRIEF, out=Path(tmp) / "out")
            elapsed = time.perf_counter() - start
            if report.status != "done":
                raise RuntimeError(f"the build ended {report.status}: {report.blocked}")
            again = time.perf_counter()
            service.run(BRIEF, out=Path(tmp) / "out")
            rerun = time.perf_counter() - again
            comments = sum(len(service.store.comments(t.id)) for t in report.tasks)
        finally:
            service.close()
    return {
        "build_6_kpis_seconds": round(elapsed, 2),
        "rerun_done_build_seconds": round(rerun, 3),
        "tasks": len(report.tasks),
        "comments": comments,
        "browser_review": 1.0 if browser else 0.0,
    }


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key}: {value}")
