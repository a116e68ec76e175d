"""The same team on other backends: the board in PostgreSQL, the Chinook warehouse in SQLite."""

from __future__ import annotations

import shutil
import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest

from vitrina.team.lifecycle import TaskKind

from .conftest import EXAMPLES
from .test_crash_restart import assert_nothing_twice


@pytest.mark.postgres
def test_a_build_on_a_postgresql_board(run_build, pg_url: str) -> None:
    brief = "title: Карты 2025\nperiod: 2025 год\nkpis:\n  - name: Выпущено карт\n    by: месяц\n"
    brief += "  - name: Открыто кошельков\n    by: регион\n  - Новые клиенты\n"
    service, report = run_build(brief, board=pg_url)
    assert report.status == "done", report.blocked
    assert service.store.engine.dialect.name == "postgresql"
    assert_nothing_twice(service.store, report.build.id)
    _again_service, again = run_build(
        brief, board=pg_url
    )  # a second run of a finished build adds nothing
    assert again.build.id == report.build.id and len(again.tasks) == len(report.tasks)


@pytest.mark.fixtures
def test_chinook_brief_end_to_end(run_build, shared_fixtures: Path, tmp_path: Path) -> None:
    """A warehouse nobody here designed, with the catalog drafted by `catalog init` and edited by
    hand."""
    db = tmp_path / "chinook.sqlite"
    shutil.copyfile(shared_fixtures / "warehouses" / "chinook" / "Chinook_Sqlite.sqlite", db)
    db.chmod(0o600)
    out = tmp_path / "out"
    _service, report = run_build(
        EXAMPLES / "chinook" / "brief.yaml",
        db=f"sqlite:///{db}",
        catalog=EXAMPLES / "chinook" / "catalog",
        out=out,
    )
    assert report.status == "done", report.blocked
    assert sum(1 for t in report.tasks if t.kind is TaskKind.WORK) == 6
    import json

    bundle = json.loads((out / "dashboard.json").read_text(encoding="utf-8"))
    cards = {
        e["kpi"]: Decimal(str(e["spec"]["data"]["items"][0]["raw"]))
        for e in bundle["elements"]
        if e["kind"] == "card"
    }
    with sqlite3.connect(db) as conn:  # my own SQL, written before looking at the team's
        revenue, invoices, average, customers = conn.execute(
            "SELECT SUM(Total), COUNT(*), AVG(Total), COUNT(DISTINCT CustomerId) FROM Invoice "
            "WHERE InvoiceDate >= '2025-01-01' AND InvoiceDate < '2026-01-01'"
        ).fetchone()
        usa = conn.execute(
            "SELECT SUM(Total) FROM Invoice WHERE BillingCountry = 'USA' "
            "AND strftime('%Y', InvoiceDate) = '2025'"
        ).fetchone()[0]
        by_rep = dict(
            conn.execute(
                "SELECT e.LastName, COUNT(*) FROM Invoice i JOIN Customer c ON "
                "c.CustomerId = i.CustomerId "
                "JOIN Employee e ON e.EmployeeId = c.SupportRepId WHERE strftime('%Y', "
                "i.InvoiceDate) = '2025' GROUP BY 1"
            ).fetchall()
        )
    assert float(cards["revenue_by_billingcountry"]) == pytest.approx(
        revenue
    )  # SQLite sums REAL: a float
    card = next(e for e in bundle["elements"] if e["id"] == "revenue_by_billingcountry__card")
    assert card["spec"]["data"]["items"][0]["value"] == "USD\u00a0450.58"
    assert cards["invoice_count_by_lastname"] == invoices
    assert abs(cards["average_invoice"] - Decimal(str(average))) < Decimal("0.000001")
    assert cards["paying_customers_by_country"] == customers
    chart = next(e for e in bundle["elements"] if e["id"] == "revenue_by_billingcountry__chart")
    labels, values = chart["spec"]["data"]["labels"], chart["spec"]["data"]["datasets"][0]["data"]
    assert values[labels.index("USA")] == pytest.approx(usa)
    reps = next(e for e in bundle["elements"] if e["id"] == "invoice_count_by_lastname__chart")
    assert (
        dict(
            zip(
                reps["spec"]["data"]["labels"],
                reps["spec"]["data"]["datasets"][0]["data"],
                strict=True,
            )
        )
        == by_rep
    )


@pytest.mark.fixtures
def test_chinook_month_grain_is_built_with_sqlites_own_date_functions(
    run_build, shared_fixtures: Path, tmp_path: Path
) -> None:
    """SQLite has no DATE_TRUNC: the month buckets are compiled with SQLite's own date
    functions, so the build finishes and the monthly series equals an independent query."""
    import json

    db = tmp_path / "chinook.sqlite"
    shutil.copyfile(shared_fixtures / "warehouses" / "chinook" / "Chinook_Sqlite.sqlite", db)
    db.chmod(0o600)
    out = tmp_path / "out"
    brief = (
        "title: Revenue by month\nlanguage: en\nperiod: '2025'\nkpis:\n  - name: Revenue\n   "
        " by: month\n"
    )
    _, report = run_build(
        brief, db=f"sqlite:///{db}", catalog=EXAMPLES / "chinook" / "catalog", out=out
    )
    assert report.status == "done", report.blocked
    bundle = json.loads((out / "dashboard.json").read_text(encoding="utf-8"))
    chart = next(e for e in bundle["elements"] if e["kind"] == "chart")
    points = chart["spec"]["data"]["datasets"][0]["data"]
    with sqlite3.connect(db) as conn:  # my own SQL
        monthly = [
            total
            for (total,) in conn.execute(
                "SELECT SUM(Total) FROM Invoice WHERE InvoiceDate >= '2025-01-01' "
                "AND InvoiceDate < '2026-01-01' GROUP BY strftime('%Y-%m', InvoiceDate) "
                "ORDER BY strftime('%Y-%m', InvoiceDate)"
            )
        ]
    assert len(monthly) > 1
    assert [float(p) for p in points] == pytest.approx(monthly)
