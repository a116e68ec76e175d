"""Period normalisation speed: every phrase of tests/data/periods.yaml, read once per question.

    .venv/bin/python benchmarks/bench_periods.py

`extract_period` runs once per question, so its cost per phrase must stay far below a
millisecond. The figure is the best of five passes over the whole table (the least
disturbed by other work on the machine), in microseconds per phrase.
"""

from __future__ import annotations

import time
from pathlib import Path

import yaml

from vitrina.language.periods import extract_period

CASES = Path(__file__).resolve().parent.parent / "tests" / "data" / "periods.yaml"
PASSES = 5
TARGETS = {"periods_us_per_phrase": "< 1000 µs"}


def run() -> dict[str, float]:
    cases = yaml.safe_load(CASES.read_text(encoding="utf-8"))
    phrases = [(c["phrase"], c["today"]) for c in cases]
    best = float("inf")
    for _ in range(PASSES):
        began = time.perf_counter()
        for phrase, today in phrases:
            extract_period(phrase, today)
        best = min(best, (time.perf_counter() - began) / len(phrases))
    return {"phrases": float(len(phrases)), "periods_us_per_phrase": round(best * 1e6, 1)}


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:24} {value:>10g}   {TARGETS.get(key, '')}")
