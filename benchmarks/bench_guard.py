"""The guard on the hostile corpus: time per item, the slowest item, the biggest allowed text.

    .venv/bin/python benchmarks/bench_guard.py

Every item of tests/data/hostile_corpus.yaml (generated ones included: 100,000 nested
parentheses, a 30 MB literal) through ``guard_with_catalog`` on the dialects it names,
with the corpus's catalog (a star is accepted only as the SQL its ``safe_sql`` names).
The slowest item bounds what one hostile request costs; ``max_text_ms`` is a text of
exactly ``MAX_SQL_CHARS`` one-character tokens, the most the tokenizer is ever given.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from security.corpus import all_attacks, hidden_catalog  # noqa: E402
from vitrina.sql.guard import guard_with_catalog  # noqa: E402
from vitrina.sql.guard.limits import MAX_NESTING, MAX_SQL_CHARS, check_limits  # noqa: E402

TARGETS = {"guard_ms_max": "< 2000 ms", "accepted": "0", "oversize_refusal_ms": "< 100 ms"}


def run() -> dict[str, float]:
    catalog = hidden_catalog()  # the corpus's catalog: one warehouse column left out
    times, accepted = [], 0
    for attack in all_attacks():
        for dialect in attack.dialects:
            began = time.perf_counter()
            result = guard_with_catalog(attack.sql, catalog, dialect=dialect, row_cap=100)
            times.append(time.perf_counter() - began)
            accepted += result.ok and result.sql != attack.safe_sql
    text = "SELECT " + "1+" * ((MAX_SQL_CHARS - 8) // 2) + "1"
    began = time.perf_counter()
    guard_with_catalog(text, catalog, dialect="duckdb", row_cap=100)
    max_text = time.perf_counter() - began
    # a text one character over the limit is refused on its length, before any tokenizing
    # (moved here from tests/test_guard_allowlist.py, where it was a 100 ms wall-clock assert)
    oversize = "SELECT '" + "x" * MAX_SQL_CHARS + "'"
    began = time.perf_counter()
    check_limits(oversize, "postgres")
    oversize_refusal = time.perf_counter() - began
    return {
        "checks": float(len(times)),
        "accepted": float(accepted),
        "guard_ms_median": round(statistics.median(times) * 1000, 2),
        "guard_ms_max": round(max(times) * 1000, 1),
        "max_text_ms": round(max_text * 1000, 1),
        "oversize_refusal_ms": round(oversize_refusal * 1000, 3),
        "max_nesting": float(MAX_NESTING),
    }


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:24} {value:>10g}   {TARGETS.get(key, '')}")
