"""Unseen warehouses: each suite's outcome split into right / answered-wrong / refused /
clarified (benchmarks/unseen/score.py), on the demo golden set, new wording on the demo,
Chinook (../shared/fixtures, skipped when absent) and the generated TPC-H-like star."""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
FIXTURES = ROOT.parent / "shared" / "fixtures"
TARGETS = {f"{s}_answered_wrong": "0" for s in ("demo", "demo_wording", "chinook", "tpch_like")}


def _score_module():
    path = HERE / "unseen" / "score.py"
    spec = importlib.util.spec_from_file_location("unseen_score", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def run() -> dict[str, float]:
    score = _score_module()
    sys.path.insert(0, str(HERE / "unseen"))
    from tpch_like import generate

    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["TPCH_LIKE_DB"] = str(generate(Path(tmp) / "tpch_like.duckdb"))
        os.environ.setdefault("SHARED_FIXTURES", str(FIXTURES))
        for name in ("demo", "demo_wording", "chinook", "tpch_like"):
            if name == "chinook" and not (FIXTURES / "warehouses" / "chinook").exists():
                continue
            counts = score.score(ROOT / "suites" / f"{name}.yaml", show=False)
            for bucket in score.BUCKETS:
                figures[f"{name}_{bucket}"] = counts[bucket]
    return figures
