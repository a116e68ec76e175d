"""Every benchmark states its goals the way `benchmarks/run.py` reads them: `make bench`
failed at the end of a long run once because one benchmark gave bare numbers."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
OPS = {"<", "<=", ">", ">=", "="}


def _load(path: Path):
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location(f"goals_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCHMARKS))
    return module


@pytest.mark.parametrize("path", sorted(BENCHMARKS.glob("bench_*.py")), ids=lambda p: p.stem)
def test_goals_are_op_and_number(path: Path) -> None:
    goals = getattr(_load(path), "GOALS", {})
    for key, goal in goals.items():
        assert isinstance(goal, tuple) and len(goal) == 2, (key, goal)
        op, number = goal
        assert op in OPS and isinstance(number, int | float), (key, goal)
    run = _load(BENCHMARKS / "run.py")
    for goal in goals.values():
        assert run.ratio(goal[1], goal)[1] in ("yes", "NO")  # run.py can judge it


@pytest.mark.parametrize("path", sorted(BENCHMARKS.glob("bench_*.py")), ids=lambda p: p.stem)
def test_headline_figures_have_goals(path: Path) -> None:
    """A headline figure (whose reproduction `make bench` checks) is judged against a goal."""
    module = _load(path)
    missing = set(getattr(module, "HEADLINE", ())) - set(getattr(module, "GOALS", {}))
    assert not missing, f"{path.name}: HEADLINE figures without a goal: {sorted(missing)}"


def test_reproduction_names_headline_figures_first() -> None:
    run = _load(BENCHMARKS / "run.py")
    verdict = run.reproduction({True: ["serve.pg_p95_ms_c8 +40%"], False: []})
    assert verdict.startswith("1 headline figure(s) moved more than 30%: serve.pg_p95_ms_c8")
    assert "every other figure with a goal within 30%" in verdict
    assert run.reproduction({True: [], False: ["guard.guard_ms_max +80%"]}).startswith(
        "every headline figure within 30%; other figures with a goal moved more than 30%: guard"
    )
