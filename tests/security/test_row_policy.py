"""Row-level policies on DuckDB and PostgreSQL: a token limited to Moscow gets Moscow numbers,
however its SQL is written, through every entry point; the numbers match independent SQL run
on the warehouse without Vitrina; a token without a policy sees everything.

The dodge corpus (CTEs, subqueries, UNION, aliases, quoted and schema-qualified names, joins
from the fact side, EXISTS, LATERAL) runs through the guard and then on the real engine: each
answer must equal what Moscow alone holds (or the query is refused)."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import psycopg
import pytest
import yaml

from vitrina.ask.service import AskService
from vitrina.catalog import load_catalog
from vitrina.config import load_settings
from vitrina.sql.guard import guard_with_catalog
from vitrina.sql.guard.policies import unfiltered_tables
from vitrina.sql.guard.tables import TableIndex
from vitrina.sql.policy import (
    PolicyCondition,
    PolicyError,
    RowPolicy,
    parse_condition,
    table_filters,
)
from vitrina.warehouse import Warehouse

TODAY = date(2026, 11, 30)
MOSCOW = "Москва"

# Independent truth: plain SQL on the engine, no Vitrina in between.
TRUTH = {
    "moscow_payments": (
        "SELECT SUM(p.amount_rub) FROM dwh.fact_payment p JOIN dwh.dim_client c "
        "ON c.client_id = p.client_id JOIN dwh.dim_region r ON r.region_id = c.region_id "
        "WHERE r.region_name = 'Москва'"
    ),
    "moscow_clients": (
        "SELECT COUNT(*) FROM dwh.dim_client c JOIN dwh.dim_region r ON r.region_id = c.region_id "
        "WHERE r.region_name = 'Москва'"
    ),
    "moscow_merchants": (
        "SELECT COUNT(*) FROM dwh.dim_merchant m JOIN dwh.dim_region r "
        "ON r.region_id = m.region_id WHERE r.region_name = 'Москва'"
    ),
    "all_payments": "SELECT SUM(amount_rub) FROM dwh.fact_payment",
    # the catalog's payment_amount metric (successful payments) in 2025, Moscow clients
    "moscow_volume_2025": (
        "SELECT SUM(p.amount_rub) FROM dwh.fact_payment p JOIN dwh.dim_client c "
        "ON c.client_id = p.client_id JOIN dwh.dim_region r ON r.region_id = c.region_id "
        "WHERE r.region_name = 'Москва' AND p.status = 'success' "
        "AND p.payment_date >= DATE '2025-01-01' AND p.payment_date < DATE '2026-01-01'"
    ),
    "all_clients": "SELECT COUNT(*) FROM dwh.dim_client",
    "one": "SELECT 1",
    "nothing": "SELECT NULL",
    "zero": "SELECT 0",
}

DODGES_PATH = Path(__file__).parent.parent / "data" / "row_policy_dodges.yaml"
DODGES: list[dict[str, str]] = yaml.safe_load(DODGES_PATH.read_text(encoding="utf-8"))
SQL = {item["id"]: item["sql"] for item in DODGES}


@dataclasses.dataclass
class Engine:
    dialect: str
    url: str  # the URL Vitrina uses
    truth: Any  # sql -> the one value it returns, run without Vitrina


def _scalar_duck(path: Path, sql: str) -> Any:
    with duckdb.connect(str(path), read_only=True) as conn:
        return conn.execute(sql).fetchone()[0]


@pytest.fixture(scope="module")
def duck(demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Engine:
    path = tmp_path_factory.mktemp("policy-duckdb") / "warehouse.duckdb"
    shutil.copyfile(demo_db, path)
    return Engine("duckdb", f"duckdb:///{path}", lambda sql: _scalar_duck(path, sql))


@pytest.fixture(scope="module")
def pg(pg_server_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """A small demo in a database of this module's own (dropped afterwards)."""
    from tests.conftest import _pg_database

    from vitrina.warehouse.demo import build_demo_warehouse
    from vitrina.warehouse.pg_load import load_demo_into_postgres

    small = tmp_path_factory.mktemp("policy-pg") / "small.duckdb"
    build_demo_warehouse(small, scale=0.05)
    databases = _pg_database(pg_server_url)
    url = next(databases)

    def truth(sql: str) -> Any:
        with psycopg.connect(url) as conn:
            return conn.execute(sql).fetchone()[0]

    try:
        load_demo_into_postgres(small, url)
        yield Engine("postgres", url, truth)
    finally:
        next(databases, None)  # drops the database


@pytest.fixture(params=["duckdb", "postgres"])
def engine(request: pytest.FixtureRequest) -> Engine:
    return request.getfixturevalue("duck" if request.param == "duckdb" else "pg")


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


@pytest.fixture(scope="module")
def moscow(catalog) -> RowPolicy:
    return RowPolicy(conditions=[parse_condition(f"dim_region.region_name={MOSCOW}", catalog)])


def _warehouse(engine: Engine) -> Warehouse:
    # the superuser owns this test database; the guard, not the role, is under test here
    return Warehouse(engine.url, timeout_s=60, row_cap=1000, allow_privileged=True)


def _same(got: Any, want: Any) -> bool:
    if got is None or want is None:
        return got is None and want is None
    return abs(float(got) - float(want)) < 0.005


# --- the policy itself --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "names"),
    [
        ("dim_region.region_nam=Москва", "dwh.dim_region.region_nam"),
        ("nowhere.region_name=Москва", "nowhere"),
        ("dim_region.region_name=Мосва", "Мосва"),
        ("dim_client.region_id=seventy", "seventy"),
        ("region_name", "region_name"),
    ],
)
def test_a_policy_the_catalog_cannot_hold_is_refused_by_name(catalog, written, names):
    with pytest.raises(PolicyError) as info:
        parse_condition(written, catalog)
    assert names in info.value.message_en and names in info.value.message_ru


def test_a_policy_is_stored_and_read_back(catalog, moscow):
    assert RowPolicy.loads(moscow.dumps()) == moscow
    assert RowPolicy.loads(None) is None
    two = parse_condition("dim_client.segment=B2B,B2C", catalog)
    assert two.values == ["B2B", "B2C"] and "IN (B2B, B2C)" in two.describe()


def test_every_table_that_reaches_the_region_is_filtered(catalog, moscow):
    filters = table_filters(moscow, catalog)
    assert set(filters) == set(catalog.tables) - {"dwh.dim_calendar"}
    # the payment reaches the region through its client (the catalog's default relation)
    payment = filters["dwh.fact_payment"].condition.sql()
    assert "dwh.dim_client" in payment and "dwh.dim_merchant" not in payment


def test_a_policy_whose_column_left_the_catalog_refuses_every_query(catalog):
    stale = RowPolicy(conditions=[PolicyCondition(column="dwh.dim_region.gone", values=["x"])])
    result = guard_with_catalog(
        "SELECT 1 FROM dwh.dim_calendar", catalog, dialect="duckdb", row_cap=10, policy=stale
    )
    assert not result.ok and result.violations[0].rule == "policy_invalid"
    assert "dwh.dim_region.gone" in result.violations[0].message_ru


# --- the independent check ----------------------------------------------------------------


def test_the_check_refuses_sql_that_reads_a_policed_table_unfiltered(catalog, moscow):
    filters = table_filters(moscow, catalog)
    index = TableIndex(catalog.tables)
    raw = "SELECT SUM(amount_rub) FROM dwh.fact_payment"
    assert unfiltered_tables(raw, "duckdb", index, filters) == ["dwh.fact_payment"]
    wrong_filter = (
        "SELECT COUNT(*) FROM (SELECT * FROM dwh.dim_region AS vp0 "
        "WHERE vp0.region_name IN ('Санкт-Петербург')) AS r"
    )
    assert unfiltered_tables(wrong_filter, "duckdb", index, filters) == ["dwh.dim_region"]
    extra_join = (
        "SELECT COUNT(*) FROM (SELECT * FROM dwh.dim_region AS vp0 JOIN dwh.dim_client ON TRUE "
        "WHERE vp0.region_name IN ('Москва')) AS r"
    )
    assert "dwh.dim_region" in unfiltered_tables(extra_join, "duckdb", index, filters)
    renamed = (  # the filter's column names another column of the table
        "SELECT COUNT(*) FROM (SELECT * FROM dwh.dim_region AS vp0(region_id, federal_district, "
        "region_name_en, region_name) WHERE vp0.region_name IN ('Москва')) AS r"
    )
    assert unfiltered_tables(renamed, "duckdb", index, filters) == ["dwh.dim_region"]
    guarded = guard_with_catalog(raw, load_catalog(), dialect="duckdb", row_cap=5, policy=moscow)
    assert unfiltered_tables(guarded.sql, "duckdb", index, filters) == []


def test_the_guard_refuses_what_its_rewrite_left_unfiltered(catalog, moscow, monkeypatch):
    """A rewrite that missed a reference (simulated) is caught by the check on the final SQL."""
    import sys

    guard_module = sys.modules["vitrina.sql.guard"]

    monkeypatch.setattr(guard_module, "apply_row_filters", lambda *a, **k: None)
    result = guard_with_catalog(
        "SELECT SUM(amount_rub) FROM dwh.fact_payment",
        catalog,
        dialect="duckdb",
        row_cap=5,
        policy=moscow,
    )
    assert not result.ok and result.violations[0].rule == "policy_unfiltered"
    assert "dwh.fact_payment" in result.violations[0].message_en


def test_guarding_guarded_sql_again_keeps_the_filter(engine, catalog, moscow):
    """Build agents guard SQL that already ran (lint, review): the filter stays, nothing leaks."""
    first = guard_with_catalog(
        SQL["plain"], catalog, dialect=engine.dialect, row_cap=10, policy=moscow
    )
    again = guard_with_catalog(
        first.sql, catalog, dialect=engine.dialect, row_cap=10, policy=moscow
    )
    assert again.ok, again.violations
    warehouse = _warehouse(engine)
    try:
        got = warehouse.execute(again.sql).rows[0][0]
    finally:
        warehouse.close()
    assert _same(got, engine.truth(TRUTH["moscow_payments"]))


# --- the dodge corpus, on both engines ----------------------------------------------------


@pytest.mark.parametrize("item", DODGES, ids=[item["id"] for item in DODGES])
def test_a_dodge_gets_only_moscow(engine, catalog, moscow, item):
    checked = guard_with_catalog(
        item["sql"], catalog, dialect=engine.dialect, row_cap=100, policy=moscow
    )
    if item.get("refused"):  # refused outright by an earlier rule: nothing is read at all
        assert not checked.ok and item["refused"] in {v.rule for v in checked.violations}
        return
    assert checked.ok, checked.violations  # every other form is rewritten, not refused
    warehouse = _warehouse(engine)
    try:
        got = warehouse.execute(checked.sql).rows[0][0]
    finally:
        warehouse.close()
    assert _same(got, engine.truth(TRUTH[item["truth"]])), (got, checked.sql)


def test_the_policy_changes_the_numbers(engine):
    """Moscow is a part of the whole: the corpus's numbers would tell a policy that did nothing."""
    assert 0 < engine.truth(TRUTH["moscow_payments"]) < engine.truth(TRUTH["all_payments"])
    assert 0 < engine.truth(TRUTH["moscow_clients"]) < engine.truth(TRUTH["all_clients"])


def test_without_a_policy_everything_is_read(engine, catalog):
    warehouse = _warehouse(engine)
    try:
        checked = guard_with_catalog(SQL["plain"], catalog, dialect=engine.dialect, row_cap=10)
        got = warehouse.execute(checked.sql).rows[0][0]
    finally:
        warehouse.close()
    assert checked.ok and not checked.policed and "vp0" not in checked.sql
    assert _same(got, engine.truth(TRUTH["all_payments"]))


def test_two_conditions_both_hold(engine, catalog):
    both = RowPolicy(
        conditions=[
            parse_condition(f"dim_region.region_name={MOSCOW}", catalog),
            parse_condition("dim_client.segment=B2B", catalog),
        ]
    )
    warehouse = _warehouse(engine)
    try:
        checked = guard_with_catalog(
            "SELECT COUNT(*) FROM dwh.dim_client",
            catalog,
            dialect=engine.dialect,
            row_cap=5,
            policy=both,
        )
        got = warehouse.execute(checked.sql).rows[0][0]
    finally:
        warehouse.close()
    want = engine.truth(TRUTH["moscow_clients"] + " AND c.segment = 'B2B'")
    assert checked.ok and got == want and 0 < want < engine.truth(TRUTH["moscow_clients"])


# --- entry points ---------------------------------------------------------------------------


def test_ask_answers_with_moscow_numbers_and_says_so(engine, catalog, moscow):
    service = AskService(
        load_settings(db_url=engine.url, allow_privileged_warehouse=True),
        catalog=catalog,
        today=TODAY,
        write_files=False,
        use_llm=False,
    )
    try:
        question = "Сумма платежей по регионам в 2025 году"
        policed = service.ask(question, policy=moscow)
        everyone = service.ask(question)
    finally:
        service.close()
    assert policed.status == "answered", policed.answer
    assert [r[0] for r in policed.rows] == [MOSCOW]
    assert _same(policed.rows[0][1], engine.truth(TRUTH["moscow_volume_2025"]))
    assert "row_policy" in policed.tags
    assert any(c["check"] == "row_policy" for c in policed.checks)
    assert "политика доступа" in (policed.answer or "") and MOSCOW in (policed.answer or "")
    assert len(everyone.rows) > 1 and "row_policy" not in everyone.tags


def test_mcp_run_sql_reads_through_the_callers_policy(engine, catalog, moscow, tmp_path):
    from vitrina.mcp import tools
    from vitrina.mcp.tools import Toolbox, ToolFailure
    from vitrina.server.tokens import create_token

    settings = load_settings(db_url=engine.url, allow_privileged_warehouse=True, row_cap=100)
    box = Toolbox(settings, docs_dir=tmp_path / "none")
    try:
        create_token(box.store, "moscow", "analyst", moscow)
        create_token(box.store, "everyone", "analyst")
        owners = {t.name: t.id for t in box.store.list_tokens()}
        sql = SQL["cte"]  # through a CTE
        policed = tools.run_sql(box, sql, owner=owners["moscow"])
        everyone = tools.run_sql(box, sql, owner=owners["everyone"])
        with pytest.raises(ToolFailure, match="policy"):
            stale = RowPolicy(
                conditions=[PolicyCondition(column="dwh.dim_region.gone", values=["x"])]
            )
            box.store.add_token("stale1234567", "stale", "0" * 64, "analyst", stale.dumps())
            tools.run_sql(box, sql, owner="stale1234567")
    finally:
        box.close()
    assert _same(policed["rows"][0][0], engine.truth(TRUTH["moscow_payments"]))
    assert policed["row_policy"] == moscow.describe()
    assert _same(everyone["rows"][0][0], engine.truth(TRUTH["all_payments"]))
    assert "row_policy" not in everyone


def test_a_task_sql_step_reads_through_its_owners_policy(engine, catalog, moscow, tmp_path):
    from vitrina.task import TaskService

    settings = load_settings(db_url=engine.url, allow_privileged_warehouse=True)
    warehouse = _warehouse(engine)
    service = TaskService(
        settings,
        catalog=catalog,
        warehouse=warehouse,
        ask=lambda q, policy=None: None,
        use_llm=False,
        today=TODAY,
        policy_of=lambda owner: moscow if owner == "moscow-token" else None,
    )
    steps = [{"title": "Сумма", "tool": "run_sql", "args": {"sql": SQL["union"]}}]  # a UNION
    answers = {}
    try:
        for owner in ("moscow-token", "someone-else"):
            view = service.start("Сумма платежей", owner=owner)
            view = service.decide(view.task_id, {"action": "edit", "steps": steps})
            view = service.decide(view.task_id, {"action": "approve"})
            output = view.plan[0].outputs[-1]
            assert output.ok, output.error
            answers[owner] = output
    finally:
        warehouse.close()
    policed, everyone = answers["moscow-token"], answers["someone-else"]
    assert _same(policed.preview[0][0], engine.truth(TRUTH["moscow_payments"]))
    assert "row policy applied" in policed.summary and policed.meta["row_policy"]
    assert _same(everyone.preview[0][0], engine.truth(TRUTH["all_payments"]))
    assert "row_policy" not in everyone.meta


def test_a_build_reads_through_its_policy(duck, tmp_path):
    """`vitrina build --policy`: the dashboard's numbers and its datasets' SQL are Moscow's."""
    import json

    from typer.testing import CliRunner

    from vitrina.cli import app

    brief = tmp_path / "brief.yaml"
    brief.write_text(
        "title: Карты 2025\nperiod: 2025 год\nkpis:\n  - name: Выпущено карт\n", encoding="utf-8"
    )
    out = tmp_path / "out"
    args = ["build", str(brief), "--db", duck.url, "--board", f"sqlite:///{tmp_path / 'b.sqlite'}"]
    args += [
        "--out",
        str(out),
        "--no-browser",
        "--json",
        "--policy",
        f"dim_region.region_name={MOSCOW}",
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["status"] == "done"
    dashboard = json.loads((out / "dashboard.json").read_text(encoding="utf-8"))
    card = next(e for e in dashboard["elements"] if e["kind"] == "card")
    want = duck.truth(
        "SELECT COUNT(*) FROM dwh.fact_card_issue f JOIN dwh.dim_region r "
        "ON r.region_id = f.region_id WHERE r.region_name = 'Москва' "
        "AND f.issue_date >= DATE '2025-01-01' AND f.issue_date < DATE '2026-01-01'"
    )
    assert card["spec"]["data"]["items"][0]["raw"] == want
    assert all("vp0" in ds["sql"] and MOSCOW in ds["sql"] for ds in dashboard["datasets"])
