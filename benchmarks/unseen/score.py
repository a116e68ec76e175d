"""Run eval suites and split every outcome the way the ask-unseen issue counts it.

`vitrina eval run` says right or wrong; for an unseen warehouse what matters is *how* a case
went wrong: a confident wrong number is far worse than a refusal. Each case lands in one of

* ``right``: the expected outcome (the right rows, or the refusal / clarification asked for);
* ``answered_wrong``: an answer was given and it is not the expected one (the bad case);
* ``refused``: expected an answer, got a refusal or a failure (honest, but a miss);
* ``clarified``: expected an answer, got a clarifying question nobody answered;

    python benchmarks/unseen/score.py suites/chinook.yaml suites/tpch_like.yaml [--show]

A suite over ``${CHINOOK_PG_URL}`` (suites/chinook_pg.yaml) runs on PostgreSQL: unless that
variable is set, the scorer loads the Chinook script into a schema of its own (see
chinook_pg.py; ``VITRINA_TEST_PG_URL`` names the server), runs, and drops it.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from vitrina.eval.errors import EvalError
from vitrina.eval.runner import run_suite
from vitrina.eval.store import EvalStore
from vitrina.eval.suite import load_suite

BUCKETS = ("right", "answered_wrong", "refused", "clarified")
PG_URL_VAR, PG_CATALOG_VAR = "CHINOOK_PG_URL", "CHINOOK_PG_CATALOG"


def chinook_pg():
    """benchmarks/unseen/chinook_pg.py (a script folder, not a package)."""
    path = Path(__file__).resolve().parent / "chinook_pg.py"
    spec = importlib.util.spec_from_file_location("unseen_chinook_pg", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@contextlib.contextmanager
def warehouse_for(suite_warehouse: str, tmp: Path) -> Iterator[None]:
    """Chinook loaded into PostgreSQL for the run when the suite asks for it and no
    CHINOOK_PG_URL is given: schema, reader role and rendered catalog, dropped afterwards."""
    if f"${{{PG_URL_VAR}}}" not in suite_warehouse or os.environ.get(PG_URL_VAR):
        yield
        return
    loader = chinook_pg()
    loaded = loader.load()
    saved = {k: os.environ.get(k) for k in (PG_URL_VAR, PG_CATALOG_VAR)}
    try:
        os.environ[PG_URL_VAR] = loaded.reader_url
        os.environ[PG_CATALOG_VAR] = str(loader.render_catalog(loaded.schema, tmp / "catalog"))
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        loader.drop(loaded)


def bucket(expect: str, status: str | None, final: str) -> str:
    """Which of BUCKETS one case's outcome belongs to."""
    if final == "right":
        return "right"
    if status == "answered":
        return "answered_wrong"
    if status == "clarification":
        return "clarified"
    if expect == "answered":
        return "refused"
    return "answered_wrong" if status == "answered" else "refused"


def score(path: Path, *, show: bool) -> Counter[str]:
    suite = load_suite(path)
    with tempfile.TemporaryDirectory() as tmp, warehouse_for(suite.warehouse, Path(tmp)):
        run = run_suite(suite, store=EvalStore(Path(tmp) / "eval.sqlite"))
    counts: Counter[str] = Counter()
    for case in run.cases:
        b = bucket(case.expect, case.status, case.final)
        counts[b] += 1
        if show and b != "right":
            print(
                f"  {b:15} {case.case_id}: {case.question} -> {case.status}: "
                f"{(case.answer or '')[:140]!r}"
            )
            if case.reason:
                print(f"                  {case.reason[:200]}")
    answered = counts["right"] + counts["answered_wrong"]
    wrong_rate = counts["answered_wrong"] / answered if answered else 0.0
    print(
        f"{suite.name}: "
        + " ".join(f"{b}={counts[b]}" for b in BUCKETS)
        + f" of {len(run.cases)}; wrong among answered {wrong_rate:.1%}"
    )
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suites", nargs="+", type=Path)
    parser.add_argument("--show", action="store_true", help="print every case that is not right")
    args = parser.parse_args()
    for path in args.suites:
        try:
            score(path, show=args.show)
        except EvalError as exc:  # an unset ${VARIABLE}, a bad suite file: one line, no traceback
            sys.exit(f"{path}: {exc}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
