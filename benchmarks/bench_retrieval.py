"""Table retrieval on a 500-table catalog: recall, latency and the SQL prompt's size.

    .venv/bin/python benchmarks/bench_retrieval.py

The catalog is `synthetic_catalog(500)` (benchmarks/synthetic_catalog.py): the demo catalog plus
491 distractor tables. The questions are the answered cases of the golden set
(tests/golden/questions.yaml); a dialog is asked as its turns joined, a stand-in for the
resolver's standalone question. The right tables of a case are the tables its
`reference_sql` reads (sqlglot), without `dwh.dim_calendar` when the reference only
takes week starts from it (a grain the SQL generator writes with date_trunc).
recall@k is the mean, over cases, of the share of right tables in the top k.
The prompt is `build_sql_context` over the top `PROMPT_K` tables; tokens are estimated as
UTF-8 bytes / 4 (`vitrina.llm.accounting.estimate_tokens`), so Cyrillic counts double.
"""

from __future__ import annotations

import statistics
import time
from datetime import date
from pathlib import Path

import sqlglot
import yaml
from sqlglot import exp
from synthetic_catalog import synthetic_catalog

from vitrina.catalog.context_text import build_sql_context
from vitrina.catalog.retrieval import embeddings_available, rank_tables
from vitrina.language.periods import extract_period

try:
    from vitrina.llm.accounting import estimate_tokens
except ImportError:  # the LLM layer not installed: the same rule of thumb by characters

    def estimate_tokens(text: str) -> int:
        return len(text) // 4


ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "questions.yaml"
TODAY = date(2026, 11, 30)  # the golden set's today
CALENDAR = "dwh.dim_calendar"
WEEK_ONLY = {"week_start", "date_day"}
KS = (5, 8, 12)
PROMPT_K = 8  # candidates shown to the SQL generator in the worst case (no model selection)
TOKEN_BUDGET = 3000
TARGETS = {
    "bm25_recall@5": ">= 0.95",
    "bm25_recall@12": ">= 0.98",
    "bm25_query_ms_median": "< 5 ms",
    "prompt_tokens_max": f"<= {TOKEN_BUDGET} tokens",
}


def expected_tables(sql: str) -> set[str]:
    """Tables a reference SQL reads, without the calendar when it only gives week starts."""
    tree = sqlglot.parse_one(sql, read="duckdb")
    tables: dict[str, set[str]] = {}
    for table in tree.find_all(exp.Table):
        tables.setdefault(f"{table.db}.{table.name}".lower(), set()).add(
            table.alias_or_name.lower()
        )
    if CALENDAR in tables:
        aliases = tables[CALENDAR]
        used = {c.name.lower() for c in tree.find_all(exp.Column) if c.table.lower() in aliases}
        if used <= WEEK_ONLY:
            del tables[CALENDAR]
    return set(tables)


def golden_cases(path: Path = GOLDEN) -> list[tuple[str, str, set[str]]]:
    """(id, question, right tables) for every answered case of the golden set."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    out = []
    for case in data["cases"]:
        if case.get("expect") != "answered" or not case.get("reference_sql"):
            continue
        turns = case.get("turns") or [case["question"]]
        question = " ".join(t["q"] if isinstance(t, dict) else t for t in turns)
        out.append((case["id"], question, expected_tables(case["reference_sql"])))
    return out


def recall(cases: list[tuple[str, str, set[str]]], ranked: dict[str, list[str]], k: int) -> float:
    return statistics.fmean(
        len(right & set(ranked[cid][:k])) / len(right) for cid, _, right in cases
    )


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _topic(catalog, right: set[str]) -> str | None:
    facts = sorted(right, key=lambda n: ("fact_" not in n, n))
    return next((t for n in facts for t in catalog.tables[n].topics), None)


def run(n_tables: int = 500) -> dict[str, float]:
    figures: dict[str, float] = {}
    start = time.perf_counter()
    catalog = synthetic_catalog(n_tables)
    figures["catalog_tables"] = float(len(catalog.tables))
    cases = golden_cases()
    figures["golden_cases"] = float(len(cases))
    t0 = time.perf_counter()
    rank_tables("index", catalog, k=1)
    figures["bm25_index_build_ms"] = round((time.perf_counter() - t0) * 1000, 1)
    methods = ["bm25"] + (["embeddings", "hybrid"] if embeddings_available() else [])
    for method in methods:
        ranked: dict[str, list[str]] = {}
        times: list[float] = []
        if method != "bm25":
            t0 = time.perf_counter()
            rank_tables("index", catalog, k=1, method=method)
            figures[f"{method}_index_build_ms"] = round((time.perf_counter() - t0) * 1000, 1)
        for cid, question, _ in cases:
            for _ in range(5 if method == "bm25" else 1):
                t0 = time.perf_counter()
                result = rank_tables(question, catalog, k=max(KS), method=method)
                times.append((time.perf_counter() - t0) * 1000)
            ranked[cid] = [t.name for t in result]
        for k in KS:
            figures[f"{method}_recall@{k}"] = round(recall(cases, ranked, k), 4)
        figures[f"{method}_all_found@12"] = round(
            statistics.fmean(right <= set(ranked[cid]) for cid, _, right in cases), 4
        )
        figures[f"{method}_query_ms_median"] = round(statistics.median(times), 3)
        figures[f"{method}_query_ms_p95"] = round(_percentile(times, 0.95), 3)
    tokens = []
    for _, question, right in cases:
        period = extract_period(question, TODAY)
        label = f"{period.start} .. {period.end} ({period.label_en})" if period else None
        tables = rank_tables(question, catalog, k=PROMPT_K)
        tokens.append(
            estimate_tokens(
                build_sql_context(
                    question, catalog, tables, period_label=label, topic=_topic(catalog, right)
                )
            )
        )
    figures["prompt_tokens_median"] = float(statistics.median(tokens))
    figures["prompt_tokens_max"] = float(max(tokens))
    figures["prompt_token_budget"] = float(TOKEN_BUDGET)
    figures["seconds"] = round(time.perf_counter() - start, 1)
    return figures


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:28} {value:>10g}   {TARGETS.get(key, '')}")
