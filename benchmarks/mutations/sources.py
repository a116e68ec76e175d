"""Where the mutation corpus comes from: every question with reference SQL in the unseen
suites, each asked on its own warehouse and catalog.

Why a module of its own: the suites are of two shapes. suites/*.yaml (chinook, chinook_pg,
tpch_like, demo_wording) hold their warehouse, catalog and "today"; the rephrasing set
(tests/data/ask_alignment.yaml, benchmarks/unseen/alignment.py) names one of three
warehouses per case, with a "today" of its own. Both become `Source`s: the rows they make
keep the suite's name (the run reports per suite) and the suite file whose warehouse and
catalog they are asked on. Chinook on PostgreSQL is loaded into a schema of its own for the
run (benchmarks/unseen/chinook_pg.py) and dropped afterwards.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "benchmarks" / "unseen"))

from vitrina.eval.suite import load_suite  # noqa: E402

SUITES = ("chinook", "chinook_pg", "tpch_like", "demo_wording")
REPHRASINGS = "rephrasings"
ALIGNMENT = ROOT / "tests" / "data" / "ask_alignment.yaml"
# the suite file whose warehouse and catalog each rephrasing warehouse is (checked in
# rephrasing_sources: the same catalog folder)
ALIGNMENT_SUITE = {"demo": "demo_wording", "tpch": "tpch_like", "chinook": "chinook"}
FIXTURES = Path(os.environ.get("SHARED_FIXTURES", ROOT.parent / "shared" / "fixtures"))
PG_SCRIPT = FIXTURES / "warehouses" / "chinook" / "Chinook_PostgreSql.sql"


@dataclass(frozen=True)
class Case:
    id: str
    question: str
    reference_sql: str
    ordered: bool


@dataclass(frozen=True)
class Source:
    """Questions with reference SQL asked on one suite file's warehouse and catalog."""

    suite: str  # the name every row keeps (the per-suite report)
    warehouse: str  # suites/<warehouse>.yaml: the warehouse URL and the catalog
    today: date
    cases: tuple[Case, ...]


def suite_source(name: str) -> Source:
    """The cases of suites/<name>.yaml that expect an answer to one message."""
    suite = load_suite(ROOT / "suites" / f"{name}.yaml")
    cases = tuple(
        Case(c.id, c.question, c.reference_sql, c.is_ordered)
        for c in suite.cases
        if c.reference_sql and c.expect == "answered" and c.turns is None
    )
    return Source(name, name, suite.today, cases)


def rephrasing_sources(path: Path = ALIGNMENT) -> tuple[list[Source], int]:
    """One source per warehouse of the rephrasing set, and how many of its cases have no
    reference SQL (skipped: nothing to mutate)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    rows = [[*c, None][:4] for c in data["cases"]]
    sources = []
    for name, spec in data["warehouses"].items():
        suite = load_suite(ROOT / "suites" / f"{ALIGNMENT_SUITE[name]}.yaml")
        mine = ROOT / spec["catalog"] if spec["catalog"] else None
        theirs = suite.catalog_dir()
        assert (mine and mine.resolve()) == (theirs and theirs.resolve()), (name, mine, theirs)
        cases = tuple(
            Case(f"{name}_{index:03d}", question, sql, False)
            for index, (warehouse, question, _expect, sql) in enumerate(rows)
            if warehouse == name and sql
        )
        sources.append(Source(REPHRASINGS, ALIGNMENT_SUITE[name], spec["today"], cases))
    return sources, sum(1 for r in rows if not r[3])


def sources(names: tuple[str, ...] = (*SUITES, REPHRASINGS)) -> list[Source]:
    out = [suite_source(n) for n in names if n != REPHRASINGS]
    if REPHRASINGS in names:
        out += rephrasing_sources()[0]
    return out


def pg_problem() -> str | None:
    """Why Chinook on PostgreSQL cannot run here (None: it can)."""
    if os.environ.get("CHINOOK_PG_URL") and os.environ.get("CHINOOK_PG_CATALOG"):
        return None
    if not PG_SCRIPT.is_file():
        return f"{PG_SCRIPT} not found"
    import psycopg
    from chinook_pg import ADMIN_URL

    from vitrina.warehouse.pg_load import pg_conninfo

    try:
        with psycopg.connect(pg_conninfo(ADMIN_URL), connect_timeout=5):
            return None
    except psycopg.Error as exc:
        return f"PostgreSQL at {ADMIN_URL} not reachable ({str(exc).strip()[:120]})"


def available(warehouse: str) -> bool:
    """Whether the suite file's warehouse can be reached in this environment."""
    if (
        warehouse in ("chinook", "chinook_pg")
        and not (FIXTURES / "warehouses" / "chinook").exists()
    ):
        return False
    return warehouse != "chinook_pg" or bool(os.environ.get("CHINOOK_PG_URL"))


@contextmanager
def suite_environment(tmp: Path, warehouses: set[str] | None = None) -> Iterator[None]:
    """The variables the suites' warehouse URLs name: the fixtures, a TPC-H-like file and,
    when asked for and PostgreSQL is reachable, Chinook loaded into a schema of this run's
    own (dropped on the way out)."""
    from tpch_like import generate

    os.environ.setdefault("SHARED_FIXTURES", str(FIXTURES))
    if "TPCH_LIKE_DB" not in os.environ:
        os.environ["TPCH_LIKE_DB"] = str(generate(tmp / "tpch_like.duckdb"))
    with ExitStack() as stack:
        if warehouses is None or "chinook_pg" in warehouses:
            problem = pg_problem()
            if problem is None:
                from score import warehouse_for

                stack.enter_context(warehouse_for("${CHINOOK_PG_URL}", tmp))
            else:
                print(f"chinook_pg skipped: {problem}", file=sys.stderr)
        yield
