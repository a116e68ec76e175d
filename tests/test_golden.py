"""The golden set: every question of tests/golden/questions.yaml asked end to end on the demo
warehouse (DuckDB, then the same data in PostgreSQL), its rows compared BY RESULT with a
reference SQL written by hand (src/vitrina/eval/compare.py says what "the same" means).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml

from vitrina.ask.service import AskResult, AskService
from vitrina.config import load_settings
from vitrina.eval.compare import compare_results

GOLDEN_FILE = Path(__file__).parent / "golden" / "questions.yaml"
TODAY = date(2026, 11, 30)
ENGINES = ("duckdb", "postgres")
KINDS = ("answered", "refused", "clarification")


@dataclass(frozen=True)
class Turn:
    """One message of a dialog, with the outcome it must have (None: not checked)."""

    question: str
    expect: str | None = None
    options: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Case:
    """One golden case: a question or a dialog, and what its last turn must give."""

    id: str
    turns: tuple[Turn, ...]
    expect: str
    segment: str = "auto"
    reference_sql: str | None = None
    ordered: bool = False
    xfail: str | None = None


def _turn(item: Any) -> Turn:
    if isinstance(item, str):
        return Turn(item)
    options = item.get("options")
    return Turn(str(item["q"]), item.get("expect"), tuple(options) if options else None)


def load_cases(path: Path = GOLDEN_FILE) -> list[Case]:
    """The cases of the golden file, checked for the fields each kind needs."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    cases: list[Case] = []
    for raw in data["cases"]:
        if "turns" in raw:
            turns = tuple(_turn(t) for t in raw["turns"])
        else:
            turns = (Turn(str(raw["question"])),)
        expect = raw["expect"]
        last = turns[-1]
        turns = (
            *turns[:-1],
            Turn(last.question, expect, tuple(raw["options"]) if raw.get("options") else None),
        )
        case = Case(
            id=raw["id"],
            turns=turns,
            expect=expect,
            segment=raw.get("segment", "auto"),
            reference_sql=raw.get("reference_sql"),
            ordered=bool(raw.get("ordered", False)),
            xfail=raw.get("xfail"),
        )
        assert expect in KINDS, f"{case.id}: expect must be one of {KINDS}"
        assert (expect == "answered") == bool(case.reference_sql), (
            f"{case.id}: an answered case needs reference_sql, and only it"
        )
        cases.append(case)
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids)), "case ids must be unique"
    return cases


CASES = load_cases()
REFUSALS: dict[str, dict[str, Any]] = yaml.safe_load(
    (GOLDEN_FILE.parent / "refusals.yaml").read_text(encoding="utf-8")
)


def _params() -> Iterator[Any]:
    for engine in ENGINES:
        for case in CASES:
            marks = [pytest.mark.xfail(reason=case.xfail, strict=True)] if case.xfail else []
            if engine == "postgres":
                marks.append(pytest.mark.postgres)
            yield pytest.param(engine, case, id=f"{engine}-{case.id}", marks=marks)


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def golden_duckdb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo warehouse at scale 1.0, built once per session (~3 s)."""
    from vitrina.warehouse.demo import build_demo_warehouse

    path = tmp_path_factory.mktemp("golden") / "demo.duckdb"
    build_demo_warehouse(path, scale=1.0)
    return path


@pytest.fixture(scope="module")
def golden_postgres(golden_duckdb: Path, pg_url: str) -> str:
    """The same demo loaded into PostgreSQL (schema dwh), once per module; the reader's libpq
    URL."""
    from vitrina.warehouse.pg_load import load_demo_into_postgres
    from vitrina.warehouse.reader_role import create_reader_role

    load_demo_into_postgres(golden_duckdb, pg_url)
    return create_reader_role(pg_url, ["dwh"])  # Vitrina refuses to run as the superuser


def _service(db_url: str, home: Path) -> AskService:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("VITRINA_HOME", str(home))
        for key in list(os.environ):
            if key.startswith("VITRINA_LLM_"):
                mp.delenv(key)
        settings = load_settings(db_url=db_url)
    return AskService(settings, today=TODAY, write_files=False)


class Engine:
    """The pipeline and an independent reference connection to one warehouse."""

    def __init__(self, name: str, service: AskService, run_reference: Any) -> None:
        self.name = name
        self.service = service
        self.run_reference = run_reference


@pytest.fixture(scope="module")
def duckdb_engine(
    golden_duckdb: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Engine]:
    service = _service(f"duckdb:///{golden_duckdb}", tmp_path_factory.mktemp("golden-home-duckdb"))

    def run(sql: str) -> list[tuple[Any, ...]]:
        with duckdb.connect(str(golden_duckdb), read_only=True) as con:
            return con.execute(sql).fetchall()

    yield Engine("duckdb", service, run)
    service.close()


@pytest.fixture(scope="module")
def postgres_engine(
    golden_postgres: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Engine]:
    import psycopg

    sa_url = golden_postgres.replace("postgresql://", "postgresql+psycopg://", 1)
    service = _service(sa_url, tmp_path_factory.mktemp("golden-home-postgres"))
    conn = psycopg.connect(golden_postgres, autocommit=True)

    def run(sql: str) -> list[tuple[Any, ...]]:
        with conn.cursor() as cur:
            cur.execute(sql)
            return cur.fetchall()

    yield Engine("postgres", service, run)
    conn.close()
    service.close()


@pytest.fixture
def engine(request: pytest.FixtureRequest) -> Engine:
    return request.getfixturevalue(f"{request.param}_engine")


# ---------------------------------------------------------------- the test


def _describe(case: Case, result: AskResult | None) -> str:
    lines = [f"case {case.id}"]
    for n, turn in enumerate(case.turns, start=1):
        lines.append(f"  turn {n}: {turn.question}")
    if case.segment != "auto":
        lines.append(f"  segment: {case.segment}")
    if result is not None:
        lines.append(
            f"  status: {result.status}; rewritten: {result.rewritten_question!r}; "
            f"topic: {result.topic}"
        )
        if result.answer:
            lines.append("  answer: " + " ".join(result.answer.split())[:300])
        if result.sql:
            lines.append("  pipeline SQL:\n    " + result.sql.replace("\n", "\n    "))
    if case.reference_sql:
        lines.append("  reference SQL:\n    " + case.reference_sql.strip().replace("\n", "\n    "))
    return "\n".join(lines)


def _fail(headline: str, case: Case, result: AskResult | None) -> None:
    """Fail with the question, what was expected and got, and both SQL texts; no traceback."""
    pytest.fail(f"{headline}\n{_describe(case, result)}", pytrace=False)


def _check_turn(case: Case, n: int, turn: Turn, result: AskResult) -> None:
    if turn.expect is not None and result.status != turn.expect:
        _fail(f"turn {n}: expected {turn.expect}, got {result.status}", case, result)
    if turn.expect is None and result.status == "failed":
        _fail(f"turn {n} failed", case, result)
    if turn.options is not None:
        got = tuple(o["id"] for o in (result.clarification or {}).get("options", []))
        if got != turn.options:
            _fail(f"turn {n}: expected options {list(turn.options)}, got {list(got)}", case, result)


def _check_refusal_reason(case: Case, result: AskResult) -> None:
    """The refusal names what is missing (tests/golden/refusals.yaml), a known gap xfails."""
    expected = REFUSALS[case.id]
    answer = (result.answer or "").casefold()
    named = any(name.casefold() in answer for name in expected["names"])
    if named and expected.get("gap"):
        _fail(
            f"known gap closed: remove its `gap` from refusals.yaml ({expected['gap']})",
            case,
            result,
        )
    if not named and expected.get("gap"):
        pytest.xfail(expected["gap"])
    if not named:
        _fail(f"the refusal names none of {expected['names']}", case, result)


@pytest.mark.parametrize(("engine", "case"), list(_params()), indirect=["engine"])
def test_golden(engine: Engine, case: Case) -> None:
    thread = f"golden-{engine.name}-{case.id}"
    result: AskResult | None = None
    for n, turn in enumerate(case.turns, start=1):
        result = engine.service.ask(turn.question, thread_id=thread, segment=case.segment)
        _check_turn(case, n, turn, result)
    assert result is not None
    if case.expect == "refused":
        _check_refusal_reason(case, result)
    if case.expect != "answered":
        return
    assert case.reference_sql is not None
    expected = engine.run_reference(case.reference_sql)
    comparison = compare_results(expected, result.rows, ordered=case.ordered)
    if not comparison:
        _fail(f"[{engine.name}] different result\n{comparison.diff}", case, result)


def test_golden_set_shape() -> None:
    """The set itself: size, languages and the kinds the issue asks for."""
    assert len(CASES) >= 90
    russian = [c for c in CASES if any("а" <= ch <= "я" for ch in c.turns[0].question.lower())]
    assert len(russian) * 2 >= len(CASES)
    assert sum(c.expect == "refused" for c in CASES) >= 10
    assert set(REFUSALS) == {c.id for c in CASES if c.expect == "refused"}  # every reason written
    assert sum(any(t.expect == "clarification" for t in c.turns) for c in CASES) >= 5
    assert (
        sum(len(c.turns) > 1 and all(t.expect != "clarification" for t in c.turns) for c in CASES)
        >= 8
    )
