"""The model path, measured (issue 36): the mutation corpus (tests/data/mutations.jsonl,
built by benchmarks/mutations/generate.py from the unseen suites' reference SQL) asked
through the whole ask model path, with a scripted model behind a real OpenAI-compatible
HTTP server writing each mutant (benchmarks/mutations/run.py).

Per class of plausible wrong SQL, among the mutants that change the result: caught
(refused, or answered right), flagged (answered with a caveat in the answer and in
`checks`), passed (a wrong number shown as right). The perfect model: the reference SQL
and harmless rewrites of it (aliases, a CTE, join order, BETWEEN vs >= <), accepted and
right; the questions the rules refuse before any model is asked are counted apart.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "mutations"))

TARGETS = {
    "passed_pct": "<= 5",
    "perfect_model_accepted_pct": ">= 98",
}


def run() -> dict[str, float]:
    from run import figures, load_corpus, run_rows

    started = time.perf_counter()
    outcomes = run_rows(load_corpus())
    out = figures(outcomes)
    out["bench_seconds"] = round(time.perf_counter() - started, 1)
    return out
