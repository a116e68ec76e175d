"""A verified answer is a full ask answer (issue 37, decision 196): it goes through the
graph's own tail (`check_result`, `answer`), so it has its table, chart and Excel file, it
is the dialog's checkpoint, and a follow-up that changes only a parameter (a period, a
value) re-matches the same entry with the new value. Through `AskService` and the compiled
graph on Chinook, and `vitrina ask --excel --csv` through the console script.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import openpyxl
import pytest
from tests.conftest import CHINOOK_TODAY, ROOT, cli_main

DATA = ROOT / "tests" / "data" / "verified"
PLAYLIST_SQL = """
SELECT p.Name, ROUND(SUM(il.UnitPrice * il.Quantity), 2) FROM playlisttrack pt
JOIN playlist p ON p.PlaylistId = pt.PlaylistId JOIN invoiceline il ON il.TrackId = pt.TrackId
JOIN invoice i ON i.InvoiceId = il.InvoiceId WHERE strftime('%Y', i.InvoiceDate) = ?
GROUP BY pt.PlaylistId
"""
DAYS_SQL = """
SELECT ROUND(AVG(julianday(nx) - julianday(d)), 4) FROM (SELECT i.InvoiceDate d,
LEAD(i.InvoiceDate) OVER (PARTITION BY i.CustomerId ORDER BY i.InvoiceDate) nx
FROM invoice i JOIN customer c ON c.CustomerId = i.CustomerId WHERE c.Country = ?)
"""


@pytest.fixture(scope="module")
def service(chinook: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    """Rules only, files written (as `vitrina chat` and the web chat do)."""
    from vitrina.ask.service import AskService
    from vitrina.catalog import load_catalog
    from vitrina.config import load_settings

    home = tmp_path_factory.mktemp("vhome")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("VITRINA_HOME", str(home))
        settings = load_settings(db_url=f"sqlite:///file:{chinook}?mode=ro&uri=true")
    shutil.copytree(DATA / "chinook", home / "verified")
    svc = AskService(
        settings,
        catalog=load_catalog(ROOT / "suites" / "chinook"),
        today=CHINOOK_TODAY,
        use_llm=False,
    )
    yield svc
    svc.close()


def _reference(chinook: str, sql: str, arg: str) -> list[tuple]:
    with sqlite3.connect(f"file:{chinook}?mode=ro", uri=True) as conn:
        return sorted(conn.execute(sql, (arg,)).fetchall())


def _rows(result, width: int = 2) -> list[tuple]:
    return sorted(
        tuple(round(float(v), 2) if isinstance(v, float) else v for v in r[:width])
        for r in result.rows
    )


def test_a_verified_answer_has_its_table_chart_excel_and_checkpoint(service, chinook) -> None:
    result = service.ask("Revenue by playlist in 2023", thread_id="files")
    assert result.status == "answered" and result.sql_source == "verified", result.answer
    assert result.answer.startswith("Answered by the verified query «revenue-by-playlist»")
    assert "Substituted: period_start = 2023-01-01, period_until = 2024-01-01." in result.answer
    assert result.run_id and result.table and result.table["rows"]
    assert "verified" in result.tags
    assert result.chart is not None and result.chart_png and Path(result.chart_png).is_file()
    sheet = openpyxl.load_workbook(result.excel).active
    values = [c.value for row in sheet.iter_rows() for c in row]
    assert "Music" in values  # the result is in the workbook, not an empty sheet
    assert _rows(result) == _reference(chinook, PLAYLIST_SQL, "2023")
    state = service.graph.get_state({"configurable": {"thread_id": "files"}}).values
    assert state["status"] == "answered" and state["sql_source"] == "verified"
    assert state["verified"]["entry"] == "revenue-by-playlist"
    assert state["history"][-1]["run_id"] == result.run_id  # the dialog's last answered turn
    assert {e.node for e in result.trace} >= {"verified", "check_result", "answer"}


@pytest.mark.parametrize(
    ("first", "follow_up", "year", "said"),
    [
        ("Revenue by playlist in 2023", "and in 2021?", "2021", "Substituted: period_start"),
        ("Выручка по плейлистам за 2023 год", "а за 2024?", "2024", "Подставлено: period_start"),
    ],
)
def test_a_follow_up_with_another_period_re_matches_the_entry(
    service, chinook, first: str, follow_up: str, year: str, said: str
) -> None:
    thread = f"period-{year}"
    assert service.ask(first, thread_id=thread).sql_source == "verified"
    result = service.ask(follow_up, thread_id=thread)
    assert result.status == "answered" and result.sql_source == "verified", result.answer
    assert f"{said} = {year}-01-01" in result.answer
    assert year in (result.rewritten_question or "")
    assert _rows(result) == _reference(chinook, PLAYLIST_SQL, year)
    assert result.excel and Path(result.excel).is_file()


def test_a_follow_up_with_another_value_re_matches_the_entry(service, chinook) -> None:
    first = service.ask(
        "Average days between consecutive invoices of customers from Brazil", thread_id="value"
    )
    assert first.sql_source == "verified" and "country = Brazil" in first.answer
    result = service.ask("and from Germany?", thread_id="value")
    assert result.status == "answered" and result.sql_source == "verified", result.answer
    assert "country = Germany" in result.answer
    [[want]] = _reference(chinook, DAYS_SQL, "Germany")
    assert round(float(result.rows[0][0]), 4) == want


def test_cli_ask_writes_the_verified_answers_files(
    chinook: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    cat = Path(shutil.copytree(ROOT / "suites" / "chinook", tmp_path / "chinook"))
    shutil.copytree(DATA / "chinook", cat / "verified")
    monkeypatch.setenv("VITRINA_HOME", str(tmp_path / "home"))
    xlsx, csv = tmp_path / "out" / "p.xlsx", tmp_path / "out" / "p.csv"
    code, out = cli_main(
        capsys,
        "ask",
        "Revenue by playlist in 2022",
        "--db",
        f"sqlite:///file:{chinook}?mode=ro&uri=true",
        "--catalog",
        str(cat),
        "--no-llm",
        "--excel",
        str(xlsx),
        "--csv",
        str(csv),
    )
    assert code == 0, out
    assert "not written" not in out and "revenue-by-playlist" in out
    assert xlsx.is_file() and xlsx.stat().st_size > 0
    lines = csv.read_text(encoding="utf-8").splitlines()
    assert len(lines) - 1 == len(_reference(chinook, PLAYLIST_SQL, "2022"))


def test_a_verified_answer_over_the_checkpoints_sample_has_every_row(service, chinook) -> None:
    """More rows than the checkpoint keeps (vitrina.ask.bounded): the live answer and its
    Excel file have every row, the checkpoint a sample and the full count."""
    import yaml

    from vitrina.ask.bounded import STATE_ROWS
    from vitrina.query.verified.store import Bank, bank_dir, read_entry

    bank = Bank(bank_dir(service.settings.catalog_dir, service.settings.home))
    path = bank.root / "tracks-never-sold.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "id": "tracks-never-sold",
                "wordings_en": ["Tracks that were never sold"],
                "sql": "SELECT t.TrackId, t.Name FROM track AS t WHERE NOT EXISTS "
                "(SELECT 1 FROM invoiceline AS il WHERE il.TrackId = t.TrackId)",
                "verified_by": "ivan.sokolov",
                "status": "verified",
            }
        ),
        encoding="utf-8",
    )
    assert read_entry(path).usable()
    try:
        result = service.ask("Which tracks were never sold?", thread_id="big")
    finally:
        path.unlink()
    with sqlite3.connect(f"file:{chinook}?mode=ro", uri=True) as conn:
        [[want]] = conn.execute(
            "SELECT COUNT(*) FROM track WHERE TrackId NOT IN (SELECT TrackId FROM invoiceline)"
        ).fetchall()
    assert result.sql_source == "verified", result.answer
    assert want > STATE_ROWS and result.row_count == len(result.rows) == want
    state = service.graph.get_state({"configurable": {"thread_id": "big"}}).values
    assert len(state["result"].rows) <= STATE_ROWS and state["result_rows"] == want
    sheet = openpyxl.load_workbook(result.excel, read_only=True).active
    assert sum(1 for _ in sheet.iter_rows()) >= want  # every row, with a header


TOP_ENTRY = """id: top-playlists
wordings_en: [Top 5 playlists by revenue in 2023]
wordings_ru: [Топ 5 плейлистов по выручке за 2023 год]
sql: |
  SELECT p.Name AS playlist, SUM(il.UnitPrice * il.Quantity) AS revenue
  FROM playlist AS p JOIN playlisttrack AS pt ON pt.PlaylistId = p.PlaylistId
  JOIN invoiceline AS il ON il.TrackId = pt.TrackId JOIN invoice AS i ON i.InvoiceId = il.InvoiceId
  WHERE i.InvoiceDate >= {{period_start:date}} AND i.InvoiceDate < {{period_until:date}}
  GROUP BY p.PlaylistId, p.Name ORDER BY revenue DESC, p.PlaylistId LIMIT {{top_n:int}}
verified_by: anna.petrova
status: verified
"""


@pytest.mark.parametrize(
    ("first", "turns"),
    [
        (
            "Top 5 playlists by revenue in 2023",
            [("and top 3?", 3, "2023"), ("and in 2021?", 3, "2021")],
        ),
        (
            "Топ 5 плейлистов по выручке за 2023 год",
            [("а топ 2?", 2, "2023"), ("а за 2022?", 2, "2022")],
        ),
    ],
)
def test_a_follow_up_with_another_top_n_re_matches_the_entry(
    service, chinook, first: str, turns: list
) -> None:
    """A new top N replaces the previous one (ask's follow-up rules), and the entry takes it."""
    from vitrina.query.verified.store import Bank, bank_dir

    path = Bank(bank_dir(service.settings.catalog_dir, service.settings.home)).root
    (path / "top-playlists.yaml").write_text(TOP_ENTRY, encoding="utf-8")
    thread = f"top-{first[:3]}"
    try:
        assert service.ask(first, thread_id=thread).row_count == 5
        for question, n, year in turns:
            result = service.ask(question, thread_id=thread)
            assert result.sql_source == "verified", (question, result.answer)
            assert (
                f"top_n = {n}" in result.answer and f"period_start = {year}-01-01" in result.answer
            )
            whole = sorted(_reference(chinook, PLAYLIST_SQL, year), key=lambda r: -r[1])
            assert [r[0] for r in result.rows] == [r[0] for r in whole[:n]]
    finally:
        (path / "top-playlists.yaml").unlink()
