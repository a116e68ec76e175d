"""The JSON form of runs for `--json`: each run's summary (accuracy over decided cases,
decided share, right over all) and, for several runs, their rank by right over all cases."""

from __future__ import annotations

import json
from typing import Any

from vitrina.eval.metrics import summarize
from vitrina.eval.records import RunRecord
from vitrina.eval.report_terminal import ranked


def run_json(run: RunRecord, rank: int | None = None) -> dict[str, Any]:
    summary = summarize(run.cases)
    return {
        "id": run.id,
        "suite": run.suite,
        "config_name": run.config_name,
        "matrix_id": run.matrix_id,
        "started_at": run.started_at,
        "finished_at": run.finished_at,
        "rank": rank,
        "summary": {
            **summary.model_dump(),
            "right_of_all": summary.right_of_all,
            "decided_of_all": summary.decided_of_all,
        },
        "failures": [c.case_id for c in run.cases if c.final != "right"],
    }


def runs_json(runs: list[RunRecord], kind: str, ident: str | None = None) -> str:
    """`kind` is run, matrix or list; several runs of a matrix come best first, ranked."""
    if kind == "matrix":
        body = [run_json(r, n) for n, r in enumerate(ranked(runs), start=1)]
    else:
        body = [run_json(r) for r in runs]
    return json.dumps({"kind": kind, "id": ident, "runs": body}, ensure_ascii=False, indent=2)
