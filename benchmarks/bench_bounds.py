"""Wall-clock and CPU figures of bounds that tests check only functionally.

    .venv/bin/python benchmarks/bench_bounds.py

Tests never assert a time (a loaded machine makes them flaky); the figures they used to
assert live here: the SQL index over 1,000 procedures and over WWI (CPU seconds), and the
model layer's turn budget against a hanging or rambling scripted model (wall seconds).
"""

from __future__ import annotations

import ast
import sys
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel

from vitrina.docs.sqlindex import build_index
from vitrina.llm import LLMClient
from vitrina.llm.fake import ScriptedChatModel, Slow

ROOT = Path(__file__).resolve().parent.parent
WWI = ROOT.parent / "shared" / "fixtures" / "wwi" / "dw-ssdt"
CONSTRUCTS = ROOT / "tests" / "docs" / "test_sqlindex_constructs.py"
GOALS = {
    "sqlindex_1000_procedures_cpu_s": ("<", 20.0),
    "sqlindex_wwi_cpu_s": ("<", 5.0),
    "hanging_model_turn_s": ("<", 6.0),  # six slots, a 1 s budget: at most the budget plus margin
    "rambling_model_turn_s": ("<", 3.5),  # a 0.5 s budget on a model that streams for 4 s
    "timed_out_call_ms": ("<", 2000.0),  # a 0.3 s timeout on a model that answers after 5 s
}


class _Topic(BaseModel):
    topic: str


def _proc_template() -> str:
    """The 1,000-procedure template of the sqlindex test, read without importing the test."""
    tree = ast.parse(CONSTRUCTS.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            getattr(t, "id", "") == "PROC" for t in node.targets
        ):
            return ast.literal_eval(node.value)
    raise LookupError(f"PROC not found in {CONSTRUCTS}")


def _cpu(fn) -> float:
    started = time.process_time()
    fn()
    return round(time.process_time() - started, 2)


def _wall(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def run() -> dict[str, float]:
    figures: dict[str, float] = {}
    proc = _proc_template()
    with tempfile.TemporaryDirectory(prefix="vitrina-bench-bounds-") as tmp:
        for i in range(1000):
            (Path(tmp) / f"p{i:04}.sql").write_text(proc.format(i=i, j=i % 20))
        figures["sqlindex_1000_procedures_cpu_s"] = _cpu(lambda: build_index([Path(tmp)]))
    if WWI.is_dir():
        figures["sqlindex_wwi_cpu_s"] = _cpu(lambda: build_index([WWI]))

    hanging = LLMClient(
        ScriptedChatModel({"topic": [Slow('{"topic": "x"}', 30)] * 6}),
        timeout_s=10,
        sleep=lambda _s: None,
    )
    turn = hanging.turn(seconds=1.0)
    figures["hanging_model_turn_s"] = round(
        _wall(lambda: [turn.structured("topic", "q", _Topic) for _ in range(6)]), 2
    )
    rambling = LLMClient(
        ScriptedChatModel({"topic": [Slow('{"topic": "' + "слово " * 400, 0.01, per_chunk=True)]}),
        timeout_s=2.0,
        sleep=lambda _s: None,
    )
    turn = rambling.turn(seconds=0.5)
    figures["rambling_model_turn_s"] = round(
        _wall(lambda: turn.structured("topic", "q", _Topic)), 2
    )
    late = LLMClient(
        ScriptedChatModel({"t": [Slow("late", 5)]}), timeout_s=0.3, sleep=lambda _s: None
    )
    late.turn().text("t", "q")
    figures["timed_out_call_ms"] = round(late.calls[0].latency_ms, 1)
    return figures


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key}: {value}")
    sys.exit(0)
