"""Chinook on MariaDB (issue 38): the project's own Chinook_MySql.sql loads as it is, and the
chinook suite's questions get the same rows there as on the Chinook SQLite file.

The script creates and fills database ``Chinook`` itself (DROP DATABASE IF EXISTS first),
so a named lock, held for the module, keeps two test runs on one server from loading it at
the same time. The catalog is suites/chinook/ with its SQLite schema ``main`` renamed
``Chinook``; MariaDB's table names are case-sensitive, the catalog's are lower-case, and
the backend puts the stored case back (decision 164).
"""

from __future__ import annotations

import re
import shutil
import uuid
from collections.abc import Iterator
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

import pytest
import yaml
from tests.conftest import cli_main

from vitrina.warehouse.mysql_load import admin_connection, ensure_mysql_reader, run_sql_script

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "suites" / "chinook.yaml"
TODAY = date(2026, 1, 15)
TABLES = [
    *("Album", "Artist", "Customer", "Employee", "Genre", "Invoice", "InvoiceLine"),
    *("MediaType", "Playlist", "PlaylistTrack", "Track"),
]

pytestmark = pytest.mark.mysql


@pytest.fixture(scope="module")
def chinook_mysql(mysql_server_url: str, shared_fixtures: Path) -> Iterator[str]:
    """Chinook_MySql.sql run as it is; yields a read-only account's URL on ``Chinook``."""
    script = shared_fixtures / "warehouses" / "chinook" / "Chinook_MySql.sql"
    lock = admin_connection(mysql_server_url)
    user = f"chinook_r_{uuid.uuid4().hex[:8]}"
    try:
        with lock.cursor() as cur:
            cur.execute("SELECT GET_LOCK('vitrina.test.chinook', 600)")
        statements = run_sql_script(mysql_server_url, script)
        assert statements > 50  # DROP, CREATE, USE, 11 tables, keys, inserts
        yield ensure_mysql_reader(mysql_server_url, "Chinook", user=user, reset_password=True).url
    finally:
        with lock.cursor() as cur:
            cur.execute(f"DROP USER IF EXISTS '{user}'@'%'")
            cur.execute("DROP DATABASE IF EXISTS `Chinook`")  # the script's own database
        lock.close()  # the lock goes with the session


def test_the_script_loads_as_it_is(chinook_mysql: str) -> None:
    from vitrina.warehouse import Warehouse

    wh = Warehouse(chinook_mysql)
    try:
        counts = {t: wh.execute(f"SELECT COUNT(*) FROM Chinook.{t}").rows[0][0] for t in TABLES}
    finally:
        wh.close()
    assert counts["Invoice"] == 412 and counts["InvoiceLine"] == 2240 and counts["Track"] == 3503
    assert all(counts.values())


def _mysql_catalog(out: Path, source: Path = ROOT / "suites" / "chinook") -> Path:
    """A copy of a Chinook SQLite catalog with schema ``main`` renamed ``Chinook``."""
    proper = {name.lower(): name for name in TABLES}
    shutil.copytree(source, out)
    for path in out.rglob("*.yaml"):
        text = path.read_text(encoding="utf-8")
        text = re.sub(r"\bmain\.(\w+)", lambda m: "Chinook." + proper.get(m[1].lower(), m[1]), text)
        path.write_text(text, encoding="utf-8")
    return out


def _cell(value: object) -> object:
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal | float):
        return round(float(value), 2)
    return value


def _rows(result: object, ordered: bool) -> list[tuple]:
    rows = [tuple(_cell(v) for v in row) for row in (getattr(result, "rows", None) or [])]
    return rows if ordered else sorted(rows, key=repr)


@pytest.fixture(scope="module")
def mysql_service(chinook_mysql: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    from vitrina.ask.service import AskService
    from vitrina.catalog import load_catalog
    from vitrina.config import load_settings

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("VITRINA_HOME", str(tmp_path_factory.mktemp("home")))
        settings = load_settings(db_url=chinook_mysql)
    catalog = load_catalog(_mysql_catalog(tmp_path_factory.mktemp("cat") / "chinook"))
    service = AskService(settings, catalog=catalog, today=TODAY)
    yield service
    service.close()


def _ask(service: object, case: dict) -> object:
    """The case's question, or its turns in one thread (the last answer)."""
    turns = case.get("turns") or [case["question"]]
    result, thread = None, None
    for turn in turns:
        text = turn["q"] if isinstance(turn, dict) else turn
        result = service.ask(text, thread_id=thread)  # type: ignore[attr-defined]
        thread = result.thread_id
    return result


def test_the_chinook_questions_answer_alike_on_mariadb_and_sqlite(
    mysql_service: object, chinook_service: object
) -> None:
    """Every question the suite expects answered: the same status and the same rows."""
    cases = yaml.safe_load(SUITE.read_text(encoding="utf-8"))["cases"]
    assert len(cases) >= 50
    differ, answered = [], 0
    for case in cases:
        mine, theirs = _ask(mysql_service, case), _ask(chinook_service, case)
        ordered = bool(case.get("ordered"))
        if mine.status != theirs.status or _rows(mine, ordered) != _rows(theirs, ordered):
            differ.append((case["id"], mine.status, theirs.status, mine.sql))
        answered += mine.status == "answered"
    assert not differ, differ
    assert answered >= 40  # most of the suite is answered, not refused alike


def test_a_dashboard_by_month_is_built_on_mariadb(
    chinook_mysql: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The month buckets compile to MySQL's own date functions: the build finishes and the
    monthly series equals an independent query."""
    import json

    from vitrina.config import load_settings
    from vitrina.team.service import BuildService
    from vitrina.warehouse import Warehouse

    catalog = _mysql_catalog(tmp_path / "catalog", ROOT / "examples" / "chinook" / "catalog")
    brief = tmp_path / "brief.yaml"
    brief.write_text(
        "title: Revenue by month\nlanguage: en\nperiod: '2025'\nkpis:\n  - name: Revenue\n"
        "    by: month\n",
        encoding="utf-8",
    )
    settings = load_settings(db_url=chinook_mysql, catalog_dir=catalog)
    service = BuildService(
        settings, board=f"sqlite:///{tmp_path / 'board.sqlite'}", today=TODAY, browser=False
    )
    try:
        report = service.run(brief, out=tmp_path / "out")
    finally:
        service.close()
    assert report.status == "done", report.blocked
    bundle = json.loads((tmp_path / "out" / "dashboard.json").read_text(encoding="utf-8"))
    chart = next(e for e in bundle["elements"] if e["kind"] == "chart")
    points = chart["spec"]["data"]["datasets"][0]["data"]
    wh = Warehouse(chinook_mysql)
    try:
        monthly = wh.execute(  # my own SQL
            "SELECT SUM(Total) FROM Chinook.Invoice WHERE InvoiceDate >= '2025-01-01' AND "
            "InvoiceDate < '2026-01-01' GROUP BY YEAR(InvoiceDate), MONTH(InvoiceDate) "
            "ORDER BY YEAR(InvoiceDate), MONTH(InvoiceDate)"
        ).rows
    finally:
        wh.close()
    assert len(monthly) > 1
    assert [float(p) for p in points] == pytest.approx([float(m) for (m,) in monthly])


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """`vitrina ARGS` through the console script's entry point."""
    return cli_main(capsys, *args)


def test_catalog_init_then_ask_on_mariadb(
    chinook_mysql: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A new user's path: draft the catalog from the MariaDB database, then ask by month."""
    import json

    from vitrina.warehouse import Warehouse

    out = tmp_path / "catalog"
    code, text = _cli(capsys, "catalog", "init", "--db", chinook_mysql, "--out", str(out))
    assert code == 0, text
    assert (out / "tables" / "invoice.yaml").is_file()
    assert "chinook.invoice" in (out / "tables" / "invoice.yaml").read_text(encoding="utf-8")
    code, text = _cli(
        capsys, "ask", "--db", chinook_mysql, "--catalog", str(out), "--json",
        "Number of invoices by month in 2024",
    )  # fmt: skip
    assert code == 0, text
    reply = json.loads(text[text.index("{") :])
    assert reply["status"] == "answered" and len(reply["rows"]) == 12
    wh = Warehouse(chinook_mysql)
    try:
        (total,) = wh.execute(  # my own SQL
            "SELECT COUNT(*) FROM Chinook.Invoice WHERE YEAR(InvoiceDate) = 2024"
        ).rows[0]
    finally:
        wh.close()
    assert sum(row[1] for row in reply["rows"]) == total
