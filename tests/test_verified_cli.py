"""`vitrina verified ...` through the console script on Chinook (issue 37): an import of 50
tickets (tests/data/verified/tickets_chinook.json, each with the outcome it must get),
the review queue and `accept`, `add` (run and shown before it is kept), `check` and
`catalog check` flagging a stale entry that is then never used, `remove`, and a token's row
policy on a verified answer.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from datetime import date
from pathlib import Path

import pytest
import yaml
from tests.conftest import CHINOOK_TODAY, ROOT, cli_main

DATA = ROOT / "tests" / "data" / "verified"
TICKETS = DATA / "tickets_chinook.json"


@pytest.fixture
def cat(tmp_path: Path) -> Path:
    """A writable copy of the Chinook catalog (its bank is written into it)."""
    return Path(shutil.copytree(ROOT / "suites" / "chinook", tmp_path / "chinook"))


@pytest.fixture
def url(chinook: str) -> str:
    return f"sqlite:///file:{chinook}?mode=ro&uri=true"


def _service(cat: Path, url: str):
    from vitrina.ask.service import AskService
    from vitrina.config import load_settings

    settings = load_settings(db_url=url, catalog_dir=cat)
    return AskService(settings, today=CHINOOK_TODAY, use_llm=False, write_files=False)


def test_import_of_50_tickets_each_queued_or_refused_with_its_reason(
    cat: Path, url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from vitrina.catalog import load_catalog
    from vitrina.query.verified.importer import Importer
    from vitrina.query.verified.store import Bank
    from vitrina.warehouse import Warehouse

    tickets = json.loads(TICKETS.read_text(encoding="utf-8"))["tickets"]
    assert len(tickets) == 50
    warehouse = Warehouse(url, timeout_s=30, row_cap=1000)
    try:
        importer = Importer(
            Bank(tmp := cat / "probe"),
            load_catalog(cat),
            warehouse,
            today=CHINOOK_TODAY,
            row_cap=1000,
        )
        outcomes = importer.run(TICKETS)
    finally:
        warehouse.close()
    shutil.rmtree(tmp)
    assert len(outcomes) == 50
    for ticket, outcome in zip(tickets, outcomes, strict=True):
        said = "review queue" if outcome.accepted else outcome.reason or ""
        assert ticket["expect"] in said, (ticket["key"], said)
    queued = sum(o.accepted for o in outcomes)
    assert queued == 28
    code, out = cli_main(
        capsys, "verified", "import", str(TICKETS), "--catalog", str(cat), "--db", url,
        "--today", CHINOOK_TODAY.isoformat(),
    )  # fmt: skip
    assert code == 0, out
    assert "28 in the review queue" in out and "22 refused" in out
    pending = sorted((cat / "verified" / "pending").glob("*.yaml"))
    assert len(pending) == 28 and not list((cat / "verified").glob("*.yaml"))
    lapsed = yaml.safe_load((cat / "verified" / "pending" / "ticket-bi-119.yaml").read_text())
    assert lapsed["status"] == "pending" and "{{period2_start:date}}" in lapsed["sql"]


def test_pending_entries_answer_only_after_accept(
    cat: Path, url: str, chinook: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The imported ticket "bought in 2022 but not in 2023" answers "2021 but not 2023"
    (not adjacent years: each bound is its own placeholder) once a person accepts it."""
    code, out = cli_main(
        capsys, "verified", "import", str(TICKETS), "--catalog", str(cat), "--db", url,
        "--today", CHINOOK_TODAY.isoformat(),
    )  # fmt: skip
    assert code == 0, out
    question = "Customers who bought in 2021 but not in 2023"
    service = _service(cat, url)
    try:
        assert service.ask(question).status == "refused"  # pending: never used
        code, out = cli_main(
            capsys, "verified", "accept", "ticket-bi-119", "--by", "anna", "--catalog", str(cat)
        )
        assert code == 0, out
        result = service.ask(question)
    finally:
        service.close()
    assert result.status == "answered" and result.sql_source == "verified", result.answer
    assert "ticket-bi-119" in result.answer and "anna" in result.answer
    assert "period2_start = 2023-01-01" in result.answer
    with sqlite3.connect(f"file:{chinook}?mode=ro", uri=True) as conn:
        want = conn.execute(
            "SELECT CustomerId FROM invoice WHERE substr(InvoiceDate, 1, 4) = '2021' "
            "EXCEPT SELECT CustomerId FROM invoice WHERE substr(InvoiceDate, 1, 4) = '2023'"
        ).fetchall()
    assert sorted(r[0] for r in result.rows) == sorted(r[0] for r in want) and want


def test_add_list_check_stale_and_remove(
    cat: Path, url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    sql = (
        "SELECT COUNT(DISTINCT i.CustomerId) FROM invoice i JOIN invoiceline il ON "
        "il.InvoiceId = i.InvoiceId JOIN track t ON t.TrackId = il.TrackId JOIN genre g ON "
        "g.GenreId = t.GenreId WHERE g.Name = 'Jazz' AND i.InvoiceDate >= '2022-01-01' "
        "AND i.InvoiceDate < '2023-01-01'"
    )
    code, out = cli_main(
        capsys, "verified", "add", "--catalog", str(cat), "--db", url, "--by", "ivan",
        "--id", "jazz-buyers", "-q", "Number of distinct customers who bought Jazz tracks in 2022",
        "-q", "Сколько разных клиентов купили треки Jazz в 2022 году", "--sql", sql,
    )  # fmt: skip
    assert code == 0, out
    assert "jazz-buyers" in out and "genre" in out and "1 rows" in out
    code, out = cli_main(capsys, "verified", "list", "--catalog", str(cat))
    assert code == 0 and "jazz-buyers" in out and "ivan" in out
    code, out = cli_main(capsys, "verified", "check", "--catalog", str(cat), "--db", url)
    assert code == 0 and "OK" in out, out
    question = "Number of distinct customers who bought Rock tracks in 2024"
    service = _service(cat, url)
    try:
        assert service.ask(question).sql_source == "verified"
    finally:
        service.close()
    # the warehouse's column changes under the catalog: the type of Total is edited
    tables = cat / "tables.yaml"
    tables.write_text(
        tables.read_text(encoding="utf-8").replace(
            "{name: Name, type: varchar, role: dimension, dictionary: true, label_ru: Жанр",
            "{name: Name, type: text, role: dimension, dictionary: true, label_ru: Жанр",
        ),
        encoding="utf-8",
    )
    service = _service(cat, url)
    try:
        stale_answer = service.ask(question)
    finally:
        service.close()
    assert stale_answer.sql_source != "verified" and stale_answer.status == "refused"
    assert any("stale" in e.message for e in stale_answer.trace)
    code, out = cli_main(capsys, "verified", "check", "--catalog", str(cat), "--db", url)
    assert code == 1 and "jazz-buyers" in out and "stale" in out, out
    entry = yaml.safe_load((cat / "verified" / "jazz-buyers.yaml").read_text(encoding="utf-8"))
    assert entry["status"] == "stale" and "main.genre" in entry["stale_reason"]
    code, out = cli_main(capsys, "catalog", "check", str(cat), "--db", url)
    assert code == 1 and "verified query jazz-buyers: stale" in out, out
    code, out = cli_main(capsys, "verified", "remove", "jazz-buyers", "--catalog", str(cat))
    assert code == 0 and not (cat / "verified" / "jazz-buyers.yaml").exists()
    code, out = cli_main(capsys, "verified", "remove", "jazz-buyers", "--catalog", str(cat))
    assert code == 2 and "no entry 'jazz-buyers'" in out


def test_add_refuses_what_the_guard_refuses_and_a_wording_without_the_parameters(
    cat: Path, url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = cli_main(
        capsys, "verified", "add", "--catalog", str(cat), "--db", url, "--by", "ivan",
        "-q", "Invoices in 2022", "--sql", "SELECT * FROM sqlite_master",
    )  # fmt: skip
    assert code == 2 and "guard" in out, out
    code, out = cli_main(
        capsys, "verified", "add", "--catalog", str(cat), "--db", url, "--by", "ivan",
        "-q", "Invoices in 2022", "-q", "Invoices per year",
        "--sql", "SELECT COUNT(*) FROM invoice WHERE InvoiceDate >= '2022-01-01' "
        "AND InvoiceDate < '2023-01-01'",
    )  # fmt: skip
    assert code == 2 and "'Invoices per year' does not give" in out, out
    assert not (cat / "verified").exists() or not list((cat / "verified").glob("*.yaml"))


def test_a_token_row_policy_applies_to_a_verified_answer(cat: Path, url: str) -> None:
    from vitrina.query.verified.store import Bank, read_entry
    from vitrina.sql.policy import PolicyCondition, RowPolicy

    bank = Bank(cat / "verified")
    bank.save(read_entry(DATA / "chinook" / "lapsed-customers.yaml"))
    policy = RowPolicy(conditions=[PolicyCondition(column="main.customer.Country", values=["USA"])])
    service = _service(cat, url)
    try:
        whole = service.ask("Which customers bought in 2021 but not in 2022?")
        policed = service.ask("Which customers bought in 2021 but not in 2022?", policy=policy)
    finally:
        service.close()
    assert whole.sql_source == policed.sql_source == "verified"
    assert "row_policy" in policed.tags and "USA" in policed.answer
    assert all(r[3] == "USA" for r in policed.rows) and policed.row_count < whole.row_count
    assert {r[3] for r in whole.rows} != {"USA"}
    assert whole.table is not None and "Customer's country" in whole.table["columns"]


def test_placeholders_are_bound_as_literals_not_text() -> None:
    """A value with a quote stays inside its string literal (sqlglot renders it)."""
    from vitrina.query.verified.params import bind

    sql = "SELECT COUNT(*) FROM genre WHERE Name = {{g:value(main.genre.Name)}} LIMIT {{top_n:int}}"
    bound = bind(sql, {"g": "Rock' OR '1'='1", "top_n": 5}, "sqlite")
    assert bound == "SELECT COUNT(*) FROM genre WHERE Name = 'Rock'' OR ''1''=''1' LIMIT 5"
    bound = bind(
        "SELECT 1 FROM invoice WHERE InvoiceDate >= {{period_start:date}}",
        {"period_start": date(2024, 1, 1)},
        "postgres",
    )
    assert "CAST('2024-01-01' AS DATE)" in bound


def test_parameters_lifted_from_a_rules_plan_round_trip(chinook: str) -> None:
    """An answer judged right (a rules plan) becomes an entry's SQL with its period and
    filter value as placeholders (lifted by code from the plan, not by re-reading the
    question); bound back to the plan's own values it returns the plan's rows, and bound to
    another year and country it returns that year's and country's."""
    from vitrina.catalog import load_catalog
    from vitrina.language.periods import extract_period
    from vitrina.query import PeriodRef, build_plan, compile_plan, read_question
    from vitrina.query.verified.authoring import params_of_plan
    from vitrina.query.verified.params import bind, lift
    from vitrina.trace import Trace
    from vitrina.warehouse import Warehouse

    catalog = load_catalog(ROOT / "suites" / "chinook")
    question = "Revenue from Brazil in 2023"
    period = extract_period(question, CHINOOK_TODAY)
    assert period is not None
    ref = PeriodRef.of(period)
    reading = read_question(question, catalog)
    plan = build_plan(
        reading, catalog, topic="sales", lang="en", period=ref, segment=None, trace=Trace("t")
    ).plan
    assert plan is not None and plan.filters
    warehouse = Warehouse(f"sqlite:///file:{chinook}?mode=ro&uri=true", timeout_s=30)
    try:
        sql = compile_plan(plan, catalog, warehouse.dialect)
        lifted = lift(sql, params_of_plan(plan, question), warehouse.dialect)
        names = {p.name for p in lifted.params}
        assert {"period_start", "period_until"} <= names and any(
            p.type == "value" for p in lifted.params
        ), lifted.sql
        value = next(p.name for p in lifted.params if p.type == "value")
        same = {"period_start": date(2023, 1, 1), "period_until": date(2024, 1, 1), value: "Brazil"}
        other = {"period_start": date(2022, 1, 1), "period_until": date(2023, 1, 1), value: "USA"}
        original = warehouse.execute(sql).rows
        assert warehouse.execute(bind(lifted.sql, same, warehouse.dialect)).rows == original
        got = warehouse.execute(bind(lifted.sql, other, warehouse.dialect)).rows
    finally:
        warehouse.close()
    with sqlite3.connect(f"file:{chinook}?mode=ro", uri=True) as conn:
        want = conn.execute(
            "SELECT SUM(Total) FROM invoice WHERE BillingCountry = 'USA' "
            "AND InvoiceDate LIKE '2022%'"
        ).fetchone()
    assert round(float(got[0][0]), 2) == round(float(want[0]), 2) and want[0]


def test_an_entry_outside_the_allow_lists_never_answers(cat: Path, url: str) -> None:
    """A bank file edited by hand to read a system catalog matches its wording, and the
    guard still refuses it: the turn stays refused and the trace says why."""
    from vitrina.query.verified.model import Entry
    from vitrina.query.verified.store import Bank

    Bank(cat / "verified").save(
        Entry(
            id="sneaky",
            wordings_en=["Tables of the store"],
            sql="SELECT name FROM sqlite_master",
            verified_by="mallory",
            status="verified",
        )
    )
    service = _service(cat, url)
    try:
        result = service.ask("Tables of the store")
    finally:
        service.close()
    assert result.status == "refused" and result.sql_source != "verified"
    assert any("guard" in e.message for e in result.trace)


PLAYLIST_SQL = (
    "SELECT p.Name, SUM(il.UnitPrice * il.Quantity) AS revenue FROM playlist p "
    "JOIN playlisttrack pt ON pt.PlaylistId = p.PlaylistId JOIN invoiceline il ON "
    "il.TrackId = pt.TrackId JOIN invoice i ON i.InvoiceId = il.InvoiceId "
    "WHERE i.InvoiceDate >= '2022-01-01' AND i.InvoiceDate < '2023-01-01' "
    "GROUP BY p.PlaylistId, p.Name"
)


def test_a_reviewed_answer_becomes_an_entry_through_eval_verify(
    cat: Path, url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """From the review queue: a case judged right (its SQL as it ran) or a pending one
    with the reviewer's corrected SQL becomes an entry; a pending one without SQL does not."""
    from vitrina.config import load_settings
    from vitrina.eval.records import CaseRecord, RunRecord
    from vitrina.eval.store import EvalStore

    store = EvalStore.from_settings(load_settings())
    common = {"kind": "feedback", "expect": ""}
    store.save_run(
        RunRecord(
            id="fb1",
            suite="user-feedback",
            config_name="rules",
            started_at="2026-12-01T10:00:00",
            cases=[
                CaseRecord(
                    case_id="c1", question="Revenue by playlist in 2022", verdict="right",
                    sql=PLAYLIST_SQL, **common,
                ),
                CaseRecord(
                    case_id="c2", question="Revenue of each playlist for 2021", verdict="pending",
                    **common,
                ),
            ],
        )
    )  # fmt: skip
    store.close()
    base = ("--catalog", str(cat), "--db", url, "--by", "anna")
    code, out = cli_main(capsys, "eval", "verify", "fb1", "c2", *base)
    assert code == 2 and "not judged right" in out, out
    code, out = cli_main(capsys, "eval", "verify", "fb1", "c1", *base, "--id", "playlists")
    assert code == 0 and "period_start" in out and "rows" in out, out
    corrected = PLAYLIST_SQL.replace("2022-01-01", "2021-01-01").replace("2023-01-01", "2022-01-01")
    code, out = cli_main(
        capsys, "eval", "verify", "fb1", "c2", *base, "--id", "playlists-2", "--sql", corrected
    )
    assert code == 0, out
    service = _service(cat, url)
    try:
        result = service.ask("Выручка по плейлистам за 2024 год")  # no wording in Russian
        assert result.sql_source != "verified"
        result = service.ask("Revenue by playlist in March 2023")
    finally:
        service.close()
    assert result.sql_source == "verified" and "«playlists»" in result.answer, result.answer
    assert "period_start = 2023-03-01" in result.answer and result.row_count > 0
