"""The chat table's whole result (issue 34, item 1): sorting, filtering, paging and totals
over every stored row of a run, owner-checked; hostile sort columns and filter values never
reach SQL as SQL."""

from __future__ import annotations

import duckdb
import pytest

from vitrina.ask import bounded as bounded_module

from .helpers import ask, new_thread, new_token

QUESTION = "Сумма платежей по дням в 2025 году"  # 365 rows
TOP_DAY_SQL = """
SELECT CAST(payment_date AS DATE) AS day, SUM(amount_rub) AS amount
FROM dwh.fact_payment
WHERE status = 'success' AND payment_date >= DATE '2025-01-01' AND payment_date < DATE '2026-01-01'
GROUP BY 1 ORDER BY amount DESC LIMIT 1
"""
TOTAL_SQL = (
    TOP_DAY_SQL.replace("ORDER BY amount DESC LIMIT 1", "")
    .replace(
        "SELECT CAST(payment_date AS DATE) AS day, SUM(amount_rub) AS amount",
        "SELECT SUM(amount_rub)",
    )
    .replace("GROUP BY 1", "")
)


@pytest.fixture
def answered(client, auth):
    thread = new_thread(client, auth)
    final = ask(client, auth, thread, QUESTION)[-1]
    assert final["type"] == "result" and final["result"]["status"] == "answered"
    assert final["result"]["row_count"] == 365
    return final["run_id"]


def _rows(client, auth, run_id, **params):
    resp = client.get(f"/api/runs/{run_id}/rows", params=params, headers=auth)
    assert resp.status_code == 200, resp.text
    return resp.json()


def _sql(demo_db, sql):
    conn = duckdb.connect(str(demo_db), read_only=True)
    try:
        return conn.execute(sql).fetchone()
    finally:
        conn.close()


def test_sorting_the_whole_result_finds_the_sqls_top_day(client, auth, answered, demo_db):
    names = [c["name"] for c in _rows(client, auth, answered)["columns"]]
    _day, amount = names
    top_day, top_amount = _sql(demo_db, TOP_DAY_SQL)
    page = _rows(client, auth, answered, sort=amount, desc="true", limit=20)
    assert page["matched"] == page["total_rows"] == 365 and len(page["rows"]) == 20
    assert page["sort"] == {"column": amount, "desc": True}
    assert page["rows"][0][0] == top_day.strftime("%d.%m.%Y")
    tsv = client.get(
        f"/api/runs/{answered}/rows.tsv", params={"sort": amount, "desc": "true"}, headers=auth
    )
    assert tsv.status_code == 200 and tsv.headers["x-vitrina-rows"] == "365"
    lines = tsv.text.splitlines()
    assert len(lines) == 366 and lines[0].split("\t")[0] == "День"
    first_day, first_amount = lines[1].split("\t")
    assert first_day == top_day.isoformat()
    assert float(first_amount.replace(",", ".")) == pytest.approx(float(top_amount))
    # the totals are the whole result's, not the page's
    (total,) = _sql(demo_db, TOTAL_SQL)
    totals = page["totals"]
    assert totals[0] is None and totals[1] is not None
    digits = "".join(ch for ch in totals[1] if ch.isdigit() or ch == ",")
    assert float(digits.replace(",", ".")) == pytest.approx(float(total), rel=1e-6, abs=1)


def test_paging_and_filtering_over_every_row(client, auth, answered):
    day, amount = [c["name"] for c in _rows(client, auth, answered)["columns"]]
    second = _rows(client, auth, answered, offset=20, limit=20)
    assert second["offset"] == 20 and len(second["rows"]) == 20
    assert second["rows"][0][0] == "21.01.2025"  # the stored order: day 21 of the year
    last = _rows(client, auth, answered, offset=360, limit=20)
    assert len(last["rows"]) == 5 and last["rows"][-1][0] == "31.12.2025"
    june = _rows(client, auth, answered, column=day, q="2025-06")
    assert june["matched"] == 30 and june["filter"] == {"column": day, "text": "2025-06"}
    big = _rows(client, auth, answered, column=amount, q="> 0", sort=amount)
    assert big["matched"] == 365
    anywhere = _rows(client, auth, answered, q="2025-12-3")
    assert anywhere["matched"] == 2  # 30 and 31 December


def test_hostile_sort_and_filter_are_refused_or_bound(client, auth, answered):
    for bad in ('day"; DROP TABLE x; --', "1", "file_row_number", "day DESC"):
        resp = client.get(f"/api/runs/{answered}/rows", params={"sort": bad}, headers=auth)
        assert resp.status_code == 422, resp.text
        error = resp.json()["error"]
        assert error["code"] == "unknown_column" and "столбц" in error["message_ru"]
    resp = client.get(f"/api/runs/{answered}/rows", params={"column": "x'--"}, headers=auth)
    assert resp.status_code == 422
    for value in ("%' OR 1=1 --", "_", "%", "'); SELECT 1; --"):
        assert _rows(client, auth, answered, q=value)["matched"] == 0, value
    for limit in (0, 201, -1):
        resp = client.get(f"/api/runs/{answered}/rows", params={"limit": limit}, headers=auth)
        assert resp.status_code == 422, limit
    long = client.get(f"/api/runs/{answered}/rows", params={"q": "x" * 201}, headers=auth)
    assert long.status_code == 422


def test_another_tokens_run_is_not_found_in_words(client, auth, answered):
    other = new_token(client, "someone else")
    for path in ("rows", "rows.tsv"):
        resp = client.get(f"/api/runs/{answered}/{path}", headers=other)
        assert resp.status_code == 404
        error = resp.json()["error"]
        assert error["code"] == "run_not_found" and "не найден" in error["message_ru"]
    assert client.get(f"/api/runs/{answered}/rows").status_code == 401
    assert client.get("/api/runs/no-such-run/rows", headers=auth).status_code == 404


def test_a_sampled_result_pages_from_its_stored_rows(client, auth, monkeypatch):
    """The checkpoint keeps 5 rows of 365: the pages still see every one."""
    monkeypatch.setattr(bounded_module, "STATE_ROWS", 5)
    monkeypatch.setattr(
        bounded_module, "STEPS", tuple((cut, min(n, 5)) for cut, n in bounded_module.STEPS)
    )
    thread = new_thread(client, auth)
    run_id = ask(client, auth, thread, QUESTION)[-1]["run_id"]
    page = _rows(client, auth, run_id, offset=100, limit=50)
    assert page["total_rows"] == 365 and len(page["rows"]) == 50
