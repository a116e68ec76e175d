"""Cold start: fresh `vitrina` processes, as a user runs them.

    .venv/bin/python benchmarks/bench_cold.py

`vitrina --help`, and `vitrina ask --no-llm` on the demo warehouse (built before timing).
Each is run RUNS times; the figures are medians of wall seconds and of CPU seconds (user +
system of the child, which a loaded machine moves less than wall time). `ask_answer_s` is
when the answer was on the screen (the line "thread ... run ..."), before the default
files are written; `ask_s` is the whole process, files included.

Bytecode: an installed Vitrina runs from compiled `.pyc` files, so the processes here may
write and read them (in a cache folder of the run, `PYTHONPYCACHEPREFIX`, never in the tree)
even where the caller sets `PYTHONDONTWRITEBYTECODE`: compiling every module from source on
each start costs ~0.1 s for Vitrina's own code and seconds for the libraries, which is not
what a user's start costs. The first run fills the cache and is not counted.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from vitrina.warehouse.demo import build_demo_warehouse

RUNS = 5
QUESTION = "Сколько кошельков открыли в мае 2025?"
GOALS = {
    "help_s": ("<", 0.5),
    "help_cpu_s": ("<", 0.5),
    "ask_s": ("<", 1.5),
    "ask_cpu_s": ("<", 1.5),
}
# the figures issue 15 states a goal for: `make bench` checks that they reproduce
HEADLINE = ("help_s", "ask_s")


def _timed(
    args: list[str], env: dict[str, str], marker: str | None = None
) -> tuple[float, float, float]:
    """(wall s, CPU s, s until `marker` appeared on stdout) of one fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    seen = float("nan")
    with subprocess.Popen(
        args, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    ) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            if marker and marker in line and seen != seen:
                seen = time.perf_counter() - start
        code = proc.wait()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if code != 0:
        raise RuntimeError(f"{' '.join(args)} exited with {code}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, seen


def run() -> dict[str, float]:
    vitrina = [sys.executable, "-m", "vitrina"]
    with tempfile.TemporaryDirectory(prefix="vitrina-bench-cold-") as tmp:
        db = Path(tmp) / "warehouse.duckdb"
        build_demo_warehouse(db)
        env = {
            **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
            "PYTHONPYCACHEPREFIX": str(Path(tmp) / "pycache"),
            "VITRINA_HOME": str(Path(tmp) / "home"),
            "VITRINA_DB_URL": f"duckdb:///{db}",
            "COLUMNS": "100",
        }
        _timed([*vitrina, "ask", "--no-llm", QUESTION], env)  # first run: state file, bytecode
        _timed([*vitrina, "--help"], env)
        helps = [_timed([*vitrina, "--help"], env) for _ in range(RUNS)]
        asks = [
            _timed([*vitrina, "ask", "--no-llm", QUESTION], env, marker=" · run ")
            for _ in range(RUNS)
        ]
    med = lambda values: round(statistics.median(values), 3)  # noqa: E731
    return {
        "help_s": med([w for w, _, _ in helps]),
        "help_cpu_s": med([c for _, c, _ in helps]),
        "ask_s": med([w for w, _, _ in asks]),
        "ask_cpu_s": med([c for _, c, _ in asks]),
        "ask_answer_s": med([s for _, _, s in asks]),
    }


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key}: {value}")
