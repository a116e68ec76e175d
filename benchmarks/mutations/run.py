"""Run the mutation corpus through the whole ask model path with a scripted model.

Each corpus row is asked as its question by `AskService` with a real `LLMClient` over HTTP
to a local OpenAI-compatible server (scripted.py) whose model writes the row's SQL, with
`AskOptions(model_writes_sql=True)` so even a question the rules read fully goes through
the model path (tables, feasibility, SQL, guard, EXPLAIN, deterministic checks, the checks
of meaning, the model's own semantic check, execution, result checks, the answer).

Outcomes of a mutant that changes the result:
  caught   refused or failed, or answered with the right result (repaired);
  flagged  a wrong result with a caveat in the answer and in `checks`;
  passed   a wrong number shown as right (the failure this harness exists to count).
Outcomes of a harmless variant (the reference and its rewrites):
  accepted (answered, right), blocked (not answered), wrong (answered, not right).
A row whose question the rules refuse before the model is asked (a catalog gap: no date for
the metric, no path to the unit) is `not_reached`, counted apart from both. Every row keeps
its suite's name: the run reports per class and per suite.

    python benchmarks/mutations/run.py [--sample N] [--suites chinook_pg,rephrasings] [--show]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

from generate import OUT  # noqa: E402
from scripted import scripted_server_state, serve  # noqa: E402
from sources import available, suite_environment  # noqa: E402

from vitrina.ask import AskService  # noqa: E402
from vitrina.ask.context import AskOptions  # noqa: E402
from vitrina.catalog import load_catalog  # noqa: E402
from vitrina.eval.compare import compare_results  # noqa: E402
from vitrina.eval.runner import base_settings  # noqa: E402
from vitrina.eval.suite import load_suite  # noqa: E402
from vitrina.llm.factory import build_client  # noqa: E402

MUTANT_OUTCOMES = ("caught", "flagged", "passed")
HARMLESS_OUTCOMES = ("accepted", "blocked", "wrong")


@dataclass
class Outcome:
    row: dict[str, Any]
    outcome: str
    status: str
    answer: str


def load_corpus(path: Path = OUT) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _reached(result: Any) -> bool:
    """Whether the model wrote SQL this turn (else the rules refused before asking it)."""
    return any(e.node == "generate_sql" and "sql" in e.data for e in result.trace)


def _classify(row: dict[str, Any], result: Any, expected: list[Any]) -> str:
    answered = result.status == "answered"
    if not _reached(result):
        return "not_reached"
    right = answered and bool(compare_results(expected, result.rows, ordered=row["ordered"]))
    if row["kind"] == "harmless":
        return "accepted" if right else ("wrong" if answered else "blocked")
    if not answered or right:
        return "caught"
    caveat = [c for c in result.checks if c.get("check") == "meaning"]
    if caveat and all(c["message"] in (result.answer or "") for c in caveat):
        return "flagged"
    return "passed"


def _service(suite_name: str, today: date, base_url: str) -> AskService:
    """The ask service of suites/<suite_name>.yaml's warehouse and catalog, on `today`."""
    suite = load_suite(ROOT / "suites" / f"{suite_name}.yaml")
    settings = base_settings(suite).with_(
        llm_base_url=base_url,
        llm_model="scripted",
        llm_provider="openai",
        llm_api_key="scripted",
        llm_timeout_s=20.0,
        llm_max_retries=0,
    )
    from langgraph.checkpoint.memory import InMemorySaver

    from vitrina.checkpoint import serializer

    return AskService(
        settings,
        catalog=load_catalog(settings.catalog_dir),
        today=today,
        checkpointer=InMemorySaver(serde=serializer()),
        write_files=False,
        llm=build_client(settings),
        options=AskOptions(model_writes_sql=True),
    )


def run_rows(rows: Iterable[dict[str, Any]]) -> list[Outcome]:
    """Every row through the model path; a service per warehouse and day, one scripted
    server. Rows whose warehouse is not available here (no PostgreSQL) are left out."""
    by_warehouse: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_warehouse[(row["warehouse"], row["today"])].append(row)
    outcomes: list[Outcome] = []
    state, answering = scripted_server_state()
    with (
        tempfile.TemporaryDirectory() as tmp,
        suite_environment(Path(tmp), {w for w, _ in by_warehouse}),
        serve(state) as server,
    ):
        for (name, today), suite_rows in by_warehouse.items():
            if not available(name):
                continue
            service = _service(name, date.fromisoformat(today), server.base_url)
            references: dict[str, list[Any]] = {}
            try:
                for row in suite_rows:
                    ref = row["reference_sql"]
                    if ref not in references:
                        references[ref] = list(service.warehouse.execute(ref).rows)
                    answering.sql = row["sql"]
                    result = service.ask(row["question"], thread_id=row["id"])
                    outcome = _classify(row, result, references[ref])
                    outcomes.append(Outcome(row, outcome, result.status, result.answer or ""))
            finally:
                service.close()
    return outcomes


def tally(outcomes: list[Outcome]) -> dict[str, Counter[str]]:
    """Per class: outcomes of the mutants that change the result, and harmless outcomes."""
    table: dict[str, Counter[str]] = defaultdict(Counter)
    for o in outcomes:
        if o.outcome == "not_reached":
            table["not_reached"][o.row["kind"]] += 1
            continue
        if o.row["kind"] == "mutant" and not o.row["changes_result"]:
            table[o.row["class"]]["same_result"] += 1
            continue
        table[o.row["class"] if o.row["kind"] == "mutant" else "harmless"][o.outcome] += 1
    return table


def figures(outcomes: list[Outcome]) -> dict[str, float]:
    """The bench's figures: passed per class and overall, the perfect model's acceptance."""
    table = tally(outcomes)
    out: dict[str, float] = {}
    changing = 0
    passed = 0
    for name, counts in sorted(table.items()):
        if name in ("harmless", "not_reached"):
            continue
        for outcome in MUTANT_OUTCOMES:
            out[f"{name}_{outcome}"] = counts[outcome]
        changing += sum(counts[o] for o in MUTANT_OUTCOMES)
        passed += counts["passed"]
    out["mutants_changing_result"] = changing
    out["not_reached_mutants"] = table.get("not_reached", Counter())["mutant"]
    out["not_reached_harmless"] = table.get("not_reached", Counter())["harmless"]
    out["passed_pct"] = round(100.0 * passed / changing, 1) if changing else 0.0
    harmless = table.get("harmless", Counter())
    total = sum(harmless.values())
    out["perfect_model_accepted_pct"] = (
        round(100.0 * harmless["accepted"] / total, 1) if total else 0.0
    )
    for suite, counts in sorted(per_suite(outcomes).items()):
        out[f"{suite}_mutants_changing_result"] = sum(counts[o] for o in MUTANT_OUTCOMES)
        out[f"{suite}_passed"] = counts["passed"]
        reached = sum(counts[o] for o in HARMLESS_OUTCOMES)
        out[f"{suite}_perfect_model_accepted_pct"] = (
            round(100.0 * counts["accepted"] / reached, 1) if reached else 0.0
        )
    return out


def per_suite(outcomes: list[Outcome]) -> dict[str, Counter[str]]:
    """Per suite: the outcomes of its mutants that change the result and of its harmless
    rows (not_reached and same_result counted apart)."""
    table: dict[str, Counter[str]] = defaultdict(Counter)
    for o in outcomes:
        if o.outcome == "not_reached":
            table[o.row["suite"]][f"not_reached_{o.row['kind']}"] += 1
        elif o.row["kind"] == "mutant" and not o.row["changes_result"]:
            table[o.row["suite"]]["same_result"] += 1
        else:
            table[o.row["suite"]][o.outcome] += 1
    return table


def sample_rows(rows: list[dict[str, Any]], n: int, seed: int = 36) -> list[dict[str, Any]]:
    """`n` rows spread over the classes (a stable sample for the suite's test)."""
    by_class: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_class[row["class"]].append(row)
    rng = random.Random(seed)
    picked: list[dict[str, Any]] = []
    for index in range(n):
        names = sorted(by_class)
        group = by_class[names[index % len(names)]]
        if group:
            picked.append(group.pop(rng.randrange(len(group))))
    return picked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=0, help="run N rows spread over classes")
    parser.add_argument("--suites", default="", help="only these suites (comma-separated)")
    parser.add_argument("--show", action="store_true", help="print every passed / blocked row")
    args = parser.parse_args()
    os.environ.setdefault("VITRINA_HOME", tempfile.mkdtemp(prefix="vitrina-mutations-"))
    rows = load_corpus()
    if args.suites:
        rows = [r for r in rows if r["suite"] in args.suites.split(",")]
    if args.sample:
        rows = sample_rows(rows, args.sample)
    outcomes = run_rows(rows)
    for name, counts in sorted(tally(outcomes).items()):
        print(f"{name:26} " + " ".join(f"{k}={v}" for k, v in sorted(counts.items())))
    for name, counts in sorted(per_suite(outcomes).items()):
        print(f"suite {name:20} " + " ".join(f"{k}={v}" for k, v in sorted(counts.items())))
    print(json.dumps(figures(outcomes)))
    if args.show:
        for o in outcomes:
            if o.outcome in ("passed", "blocked", "wrong"):
                print(
                    f"{o.outcome:8} {o.row['id']}: {o.row['sql'][:200]}\n         {o.answer[:200]}"
                )


if __name__ == "__main__":
    main()
