"""Right / wrong / narrowed / refused on the alignment rephrasings (tests/data/ask_alignment.yaml),
read by the rules as select_tables reads them: run `python benchmarks/unseen/alignment.py`."""

from __future__ import annotations

import sys
from collections import Counter
from datetime import date
from pathlib import Path

import yaml

from vitrina.ask.nodes.select_tables import rules_verdict
from vitrina.catalog import load_catalog

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "data" / "ask_alignment.yaml"


def outcome(expect: object, verdict: dict) -> str:
    """right | wrong | narrowed | refused for one case."""
    plan = verdict["plan"]
    if plan is None:
        return "refused"
    if expect == "refuse":  # answered something no plan carries whole: fewer than asked
        return "narrowed"
    assert isinstance(expect, dict)
    metrics, want = set(plan.metrics), set(expect["metrics"])
    dims, want_dims = {d.column for d in plan.dimensions}, set(expect.get("dims", []))
    per, want_per = plan.derived == "per", bool(expect.get("per"))
    if (metrics, dims, per) == (want, want_dims, want_per):
        return "right"
    if metrics <= want and dims <= want_dims and per <= want_per:
        return "narrowed"
    return "wrong"


def run(path: Path = CASES) -> list[tuple[str, str, str]]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    catalogs = {
        name: (load_catalog(ROOT / w["catalog"] if w["catalog"] else None), w["today"])
        for name, w in data["warehouses"].items()
    }
    out = []
    for warehouse, question, expect in data["cases"]:
        catalog, today = catalogs[warehouse]
        verdict = rules_verdict(question, catalog, today if isinstance(today, date) else None)
        out.append((warehouse, question, outcome(expect, verdict)))
    return out


if __name__ == "__main__":
    results = run()
    for warehouse, question, result in results:
        if result != "right" or "-v" in sys.argv:
            print(f"{result:9} [{warehouse}] {question}")
    print(dict(Counter(r for _, _, r in results)), "of", len(results))
