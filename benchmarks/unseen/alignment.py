"""Right / wrong / narrowed / refused on the alignment rephrasings (tests/data/ask_alignment.yaml).

Two measures:

* plans (default): each case read by the rules as select_tables reads them, its plan
  compared with what was asked;
* ``--numbers``: every case with reference SQL asked through the real ask service on its
  warehouse, the answer's rows compared with the reference SQL's rows on the same engine
  (vitrina.eval.compare), and a partial period checked to be flagged.

    python benchmarks/unseen/alignment.py [-v] [--numbers]
"""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

import yaml

from vitrina.ask.nodes.select_tables import rules_verdict
from vitrina.catalog import load_catalog

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "data" / "ask_alignment.yaml"
CHINOOK = "warehouses/chinook/Chinook_Sqlite.sqlite"


def cases(path: Path = CASES) -> tuple[dict[str, Any], list[list[Any]]]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data["warehouses"], [[*c, None][:4] for c in data["cases"]]


def _carried(plan: Any) -> dict[str, Any]:
    return {
        "metrics": set(plan.metrics),
        "dims": {d.column for d in plan.dimensions},
        "per": plan.derived == "per",
        "compare": getattr(plan, "compared", None) is not None,
        "grain": plan.grain,
    }


def _asked(expect: dict) -> dict[str, Any]:
    return {
        "metrics": set(expect["metrics"]),
        "dims": set(expect.get("dims", [])),
        "per": bool(expect.get("per")),
        "compare": bool(expect.get("compare")),
        "grain": expect.get("grain"),
    }


def outcome(expect: object, verdict: dict) -> str:
    """right | wrong | narrowed | refused for one case."""
    plan = verdict["plan"]
    if plan is None:
        return "refused"
    if expect == "refuse":  # answered something no plan carries whole: fewer than asked
        return "narrowed"
    assert isinstance(expect, dict)
    got, want = _carried(plan), _asked(expect)
    if got == want:
        return "right"
    fewer = (
        got["metrics"] <= want["metrics"]
        and got["dims"] <= want["dims"]
        and got["per"] <= want["per"]
        and got["compare"] <= want["compare"]
        and got["grain"] in (None, want["grain"])
    )
    return "narrowed" if fewer else "wrong"


def run(path: Path = CASES) -> list[tuple[str, str, str]]:
    warehouses, rows = cases(path)
    catalogs = {
        name: (load_catalog(ROOT / w["catalog"] if w["catalog"] else None), w["today"])
        for name, w in warehouses.items()
    }
    out = []
    for warehouse, question, expect, _sql in rows:
        catalog, today = catalogs[warehouse]
        verdict = rules_verdict(question, catalog, today if isinstance(today, date) else None)
        out.append((warehouse, question, outcome(expect, verdict)))
    return out


def _number_outcome(expect: dict, answer: Any, reference: list, compare: Any) -> str:
    if answer.status != "answered":
        return "refused"
    if not compare(reference, answer.rows):
        return "wrong"
    flagged = any(c.get("check") == "partial_period" for c in answer.checks)
    return "right" if flagged == bool(expect.get("partial")) else "wrong"


def numbers(urls: dict[str, str], path: Path = CASES) -> list[tuple[str, str, str, str]]:
    """(warehouse, question, outcome, detail) for every case with reference SQL whose
    warehouse has a URL: the answer of the real service against the reference rows."""
    from vitrina.ask.service import AskService
    from vitrina.config import load_settings
    from vitrina.eval.compare import compare_results
    from vitrina.warehouse import Warehouse

    warehouses, rows = cases(path)
    out = []
    for name, spec in warehouses.items():
        url = urls.get(spec["db"])
        if url is None:
            continue
        catalog = load_catalog(ROOT / spec["catalog"] if spec["catalog"] else None)
        settings = load_settings(db_url=url)
        service = AskService(
            settings, catalog=catalog, today=spec["today"], write_files=False, use_llm=False
        )
        reference_db = Warehouse(url)
        try:
            for i, (warehouse, question, expect, sql) in enumerate(rows):
                if warehouse != name or not sql or not isinstance(expect, dict):
                    continue
                reference = reference_db.execute(sql).rows
                answer = service.ask(question, thread_id=f"n{i}")
                result = _number_outcome(expect, answer, reference, compare_results)
                detail = (answer.answer or "")[:160] if result != "right" else ""
                out.append((warehouse, question, result, detail))
        finally:
            service.close()
            reference_db.close()
    return out


def _module(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(
        name, ROOT / "benchmarks" / "unseen" / f"{name}.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def local_urls(tmp: Path | None) -> dict[str, str]:
    """The demo and TPC-H-like warehouses built into `tmp` (none when None), Chinook from
    the shared fixtures."""
    urls: dict[str, str] = {}
    if tmp is not None:
        from vitrina.warehouse.demo import build_demo_warehouse

        build_demo_warehouse(tmp / "demo.duckdb")
        _module("tpch_like").generate(tmp / "tpch.duckdb", orders=3000, seed=7)
        urls = {
            "demo": f"duckdb:///{tmp / 'demo.duckdb'}",
            "tpch": f"duckdb:///{tmp / 'tpch.duckdb'}",
        }
    shared = Path(os.environ.get("SHARED_FIXTURES", ROOT.parent / "shared" / "fixtures"))
    if (shared / CHINOOK).is_file():
        urls["chinook"] = f"sqlite:///file:{shared / CHINOOK}?mode=ro&uri=true"
    return urls


if __name__ == "__main__":
    if "--numbers" in sys.argv:
        given = dict(a.split("=", 1) for a in sys.argv if a.startswith(("demo=", "tpch=")))
        with tempfile.TemporaryDirectory() as tmp:
            urls = local_urls(Path(tmp)) if not given else {**given, **local_urls(None)}
            measured = numbers(urls)
        for warehouse, question, result, detail in measured:
            if result != "right" or "-v" in sys.argv:
                print(f"{result:9} [{warehouse}] {question}  {detail}")
        print(dict(Counter(r for _, _, r, _ in measured)), "of", len(measured))
    else:
        results = run()
        for warehouse, question, result in results:
            if result != "right" or "-v" in sys.argv:
                print(f"{result:9} [{warehouse}] {question}")
        print(dict(Counter(r for _, _, r in results)), "of", len(results))
