"""CSV and Parquet downloads of a run (issue 38): every row, made on the first download,
only for the token that owns the dialog, and from the stored rows when the checkpoint keeps
a sample."""

from __future__ import annotations

import csv
import io

import openpyxl
import pyarrow.parquet as pq

from vitrina.ask import bounded as bounded_module

from .helpers import ask, new_thread, new_token

QUESTION = "Количество платежей по месяцам в 2025 году"  # 12 rows


def _rows_of(client, auth, run_id: str) -> dict[str, int]:
    got = {}
    for kind in ("csv", "parquet", "excel"):
        resp = client.get(f"/api/runs/{run_id}/{kind}", headers=auth)
        assert resp.status_code == 200, (kind, resp.text)
        if kind == "csv":
            assert resp.headers["content-type"].startswith("text/csv")
            got[kind] = len(list(csv.reader(io.StringIO(resp.text)))) - 1
        elif kind == "parquet":
            got[kind] = pq.read_table(io.BytesIO(resp.content)).num_rows
        else:
            got[kind] = openpyxl.load_workbook(io.BytesIO(resp.content)).active.max_row - 1
    return got


def test_csv_and_parquet_downloads_hold_every_row(client, auth):
    thread = new_thread(client, auth)
    final = ask(client, auth, thread, QUESTION)[-1]
    result, run_id = final["result"], final["run_id"]
    assert result["csv_url"] == f"/api/runs/{run_id}/csv"
    assert result["parquet_url"] == f"/api/runs/{run_id}/parquet"
    assert _rows_of(client, auth, run_id) == {"csv": 12, "parquet": 12, "excel": 12}


def test_another_token_cannot_download(client, auth):
    thread = new_thread(client, auth)
    run_id = ask(client, auth, thread, QUESTION)[-1]["run_id"]
    other = new_token(client, "someone else")
    for kind in ("csv", "parquet"):
        resp = client.get(f"/api/runs/{run_id}/{kind}", headers=other)
        assert resp.status_code == 404 and resp.json()["error"]["code"] == "run_not_found"
    assert client.get(f"/api/runs/{run_id}/csv").status_code == 401  # no token at all


def test_a_sampled_result_downloads_from_its_stored_rows(client, auth, monkeypatch):
    monkeypatch.setattr(bounded_module, "STATE_ROWS", 5)
    monkeypatch.setattr(
        bounded_module, "STEPS", tuple((cut, min(n, 5)) for cut, n in bounded_module.STEPS)
    )
    thread = new_thread(client, auth)
    final = ask(client, auth, thread, QUESTION)[-1]
    run_id = final["run_id"]
    graph = client.app.state.vitrina.service.graph
    values = graph.get_state({"configurable": {"thread_id": thread}}).values
    assert values["result"].row_count == 5 and values["result_rows"] == 12  # the sample
    assert values["result_file"] == "result.parquet"
    assert _rows_of(client, auth, run_id) == {"csv": 12, "parquet": 12, "excel": 12}
