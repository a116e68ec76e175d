"""The unseen-warehouse suites run through the real ask pipeline: Chinook (SQLite fixture,
and its PostgreSQL script loaded into a schema of this run's own) and the generated
TPC-H-like star. What they guard is the issue's bar: no answered-wrong case (a refusal is
honest, a wrong number is not), and the figure reached so far."""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path

import psycopg
import pytest

from vitrina.eval.runner import run_suite
from vitrina.eval.store import EvalStore
from vitrina.eval.suite import load_suite

ROOT = Path(__file__).resolve().parents[1]


def _module(name: str):
    path = ROOT / "benchmarks" / "unseen" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"unseen_{name}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _buckets(suite_path: Path, tmp_path: Path) -> dict[str, list[str]]:
    score = _module("score")
    run = run_suite(load_suite(suite_path), store=EvalStore(tmp_path / "eval.sqlite"))
    out: dict[str, list[str]] = {b: [] for b in score.BUCKETS}
    for case in run.cases:
        out[score.bucket(case.expect, case.status, case.final)].append(case.case_id)
    return out


def test_bucket_counts_a_wrong_number_apart_from_a_refusal() -> None:
    bucket = _module("score").bucket
    assert bucket("answered", "answered", "wrong") == "answered_wrong"
    assert bucket("answered", "refused", "wrong") == "refused"
    assert bucket("refused", "answered", "wrong") == "answered_wrong"
    assert bucket("answered", "clarification", "wrong") == "clarified"
    assert bucket("refused", "refused", "right") == "right"


def test_chinook_no_wrong_answers(
    shared_fixtures: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHARED_FIXTURES", str(shared_fixtures))
    buckets = _buckets(ROOT / "suites" / "chinook.yaml", tmp_path)
    assert buckets["answered_wrong"] == []
    assert len(buckets["right"]) >= 54, buckets  # 57 of 60 when written


@pytest.fixture()
def chinook_pg(shared_fixtures: Path, pg_server_url: str, tmp_path: Path, monkeypatch):
    """Chinook_PostgreSql.sql in a schema of its own with a reader role, catalog rendered for
    it; both dropped afterwards (skipped without PostgreSQL, failed under CI)."""
    loader = _module("score").chinook_pg()
    loaded = loader.load(pg_server_url)
    try:
        monkeypatch.setenv("CHINOOK_PG_URL", loaded.reader_url)
        monkeypatch.setenv(
            "CHINOOK_PG_CATALOG", str(loader.render_catalog(loaded.schema, tmp_path / "catalog"))
        )
        yield loaded
    finally:
        loader.drop(loaded)
    with psycopg.connect(loaded.admin_url) as admin:  # nothing of the run is left behind
        assert not admin.execute(
            "SELECT 1 FROM pg_namespace WHERE nspname = %s UNION ALL "
            "SELECT 1 FROM pg_roles WHERE rolname = %s",
            (loaded.schema, loaded.role),
        ).fetchall()


def test_chinook_pg_loader_reader_role_reads_only(chinook_pg) -> None:
    from vitrina.warehouse import Warehouse

    warehouse = Warehouse(chinook_pg.reader_url)  # a privileged role would be refused here
    try:
        assert warehouse.execute(f"SELECT count(*) FROM {chinook_pg.schema}.invoice_line").rows == [
            (2240,)
        ]
    finally:
        warehouse.close()
    with (
        psycopg.connect(chinook_pg.reader_url) as conn,
        pytest.raises(psycopg.errors.InsufficientPrivilege),
    ):
        conn.execute("SET default_transaction_read_only = off")
        conn.execute("DELETE FROM invoice_line")
    # loading again into the same schema drops and recreates it
    loader = _module("score").chinook_pg()
    again = loader.load(chinook_pg.admin_url, schema=chinook_pg.schema)
    with psycopg.connect(again.reader_url) as c:
        assert c.execute("SELECT count(*) FROM invoice").fetchone() == (412,)


def test_chinook_pg_catalog_init_then_the_edited_catalog_checks(chinook_pg, tmp_path: Path):
    """The trial's steps: draft as the reader role, then `catalog check` of the edited catalog
    against the warehouse; the edit kept every drafted table, column and declared relation."""
    from typer.testing import CliRunner

    from vitrina.catalog import load_catalog
    from vitrina.cli import app

    draft_dir = tmp_path / "draft"
    args = ["--db", chinook_pg.reader_url, "--schema", chinook_pg.schema, "--out", str(draft_dir)]
    drafted = CliRunner().invoke(app, ["catalog", "init", *args])
    assert drafted.exit_code == 0, drafted.output
    assert "can only read" in drafted.output and "CREATE ROLE" not in drafted.output
    as_admin = ["--db", chinook_pg.admin_url, *args[2:4], "--out", str(tmp_path / "admin")]
    by_admin = CliRunner().invoke(app, ["catalog", "init", *as_admin])  # a superuser: the recipe
    assert by_admin.exit_code == 0 and re.search(r"CREATE ROLE \S+_reader LOGIN", by_admin.output)
    edited_dir = Path(os.environ["CHINOOK_PG_CATALOG"])
    check = CliRunner().invoke(app, ["catalog", "check", str(edited_dir), "--db", args[1]])
    assert check.exit_code == 0, check.output
    draft, edited = load_catalog(draft_dir), load_catalog(edited_dir)
    assert {n: [c.name for c in t.columns] for n, t in draft.tables.items()} == {
        n: [c.name for c in t.columns] for n, t in edited.tables.items()
    }
    pairs = lambda c: {(r.left, r.right) for r in c.relations}  # noqa: E731
    assert pairs(draft) == pairs(edited)


def test_chinook_pg_reference_sql_matches_sqlite(chinook_pg) -> None:
    check = _module("check_chinook_pg")
    assert check.mismatches(chinook_pg.reader_url) == []


def test_chinook_pg_no_wrong_answers(chinook_pg, tmp_path: Path) -> None:
    buckets = _buckets(ROOT / "suites" / "chinook_pg.yaml", tmp_path)
    assert buckets["answered_wrong"] == []
    assert len(buckets["right"]) >= 54, buckets  # 57 of 60, as on SQLite


def test_tpch_like_no_wrong_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = _module("tpch_like").generate(tmp_path / "tpch_like.duckdb", orders=3000, seed=7)
    monkeypatch.setenv("TPCH_LIKE_DB", str(db))
    buckets = _buckets(ROOT / "suites" / "tpch_like.yaml", tmp_path)
    assert buckets["answered_wrong"] == []
    assert len(buckets["right"]) >= 24, buckets  # 25 of 30
    assert "revenue_by_customer_region_1996" in buckets["right"]  # the path through the customer


def test_demo_wording_no_wrong_answers(tmp_path: Path) -> None:
    buckets = _buckets(ROOT / "suites" / "demo_wording.yaml", tmp_path)
    assert buckets["answered_wrong"] == []
    assert len(buckets["right"]) >= 32, buckets  # 33 of 41
