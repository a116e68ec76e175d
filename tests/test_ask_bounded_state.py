"""The ask dialog's checkpoint stays small whatever the result: a sample of the rows with the
full count, long strings cut, the whole under MAX_STATE_BYTES, a trace event that says so,
every row stored at once (result.parquet, the state's result_file) and the Excel file
written from it on request with every row (vitrina.ask.bounded, vitrina.ask.outputs)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import openpyxl
import pyarrow.parquet as pq

from vitrina.ask import bounded as bounded_module
from vitrina.ask.bounded import CUT_MESSAGE, MAX_STATE_BYTES, STATE_ROWS, bounded_update
from vitrina.ask.outputs import write_run_files
from vitrina.present.cells import json_size
from vitrina.warehouse.result import QueryResult

SPEC = {
    "lang": "en",
    "sheet_title": "Payments",
    "question": "q",
    "sql": "SELECT 1",
    "period_label": "2025",
    "chart_decision": None,
}


def _state(result: QueryResult) -> dict:
    return {"result": result, "run_id": "run1", "columns_meta": []}


def _answered(**extra) -> dict:
    return {"status": "answered", "answer": "ok", "outputs": SPEC, "trace": [], **extra}


def test_a_huge_result_leaves_a_sample_and_stores_every_row(tmp_path: Path) -> None:
    rows = [(n, f"client {n}", Decimal("-1.50"), date(2025, 1, 1)) for n in range(100_000)]
    result = QueryResult(columns=["n", "name", "amount", "day"], rows=rows)
    update = bounded_update(_state(result), _answered(), tmp_path)
    kept = update["result"]
    assert kept.row_count == STATE_ROWS and kept.rows[0] == rows[0]
    assert update["result_rows"] == 100_000 and kept.columns == result.columns
    assert update["trace"][-1].message == CUT_MESSAGE and update["trace"][-1].kind == "rejected"
    assert update["trace"][-1].data["kept_rows"] == STATE_ROWS
    assert update["result_file"] == "result.parquet"
    stored = pq.read_table(tmp_path / "run1" / "result.parquet")
    assert stored.num_rows == 100_000 and stored.slice(99_999).to_pylist()[0]["n"] == 99_999
    assert not (tmp_path / "run1" / "result.xlsx").exists()  # written on request, below
    files = write_run_files({**_state(result), **update}, tmp_path, ("excel",))
    sheet = openpyxl.load_workbook(files.excel, read_only=True).worksheets[0]
    assert sheet.max_row == 100_001  # the header and every row, not the sample


def test_one_huge_cell_is_cut_and_the_state_stays_under_the_cap(tmp_path: Path) -> None:
    cell = "я" * (30 << 20 >> 1)  # a 30 MB (UTF-8) cell
    result = QueryResult(columns=["x"], rows=[(cell,), ("small",)])
    table = {"columns": ["x"], "rows": [[cell], ["small"]]}
    update = bounded_update(_state(result), _answered(table=table), tmp_path)
    stored = update["result"].rows[0][0]
    assert len(stored) < 20_000 and "characters, cut in the dialog's saved state" in stored
    assert update["result"].rows[1] == ("small",) and update["result_rows"] == 2
    assert update["table"]["rows"][0][0].endswith("cut in the dialog's saved state]")
    assert update["table"]["rows"][1] == ["small"]
    event = update["trace"][-1]
    assert event.message == CUT_MESSAGE and event.data["cut_strings"] == 2
    files = write_run_files({**_state(result), **update}, tmp_path, ("excel",))
    sheet = openpyxl.load_workbook(files.excel).worksheets[0]
    assert len(sheet["A2"].value) == 32767  # the file has the cell as far as Excel holds it


def test_many_long_cells_tighten_the_caps_until_the_state_fits(tmp_path: Path) -> None:
    rows = [("w" * 9_000, "v" * 9_000) for _ in range(900)]  # 16 MB under the first caps
    result = QueryResult(columns=["a", "b"], rows=rows)
    table = {"rows": [list(r) for r in rows[:400]]}  # a table alone over the budget at first
    update = bounded_update(_state(result), _answered(table=table), tmp_path)
    size = json_size(
        {k: update[k] for k in ("answer", "table", "outputs")} | {"r": update["result"].rows}
    )
    assert size <= MAX_STATE_BYTES
    assert update["trace"][-1].data["longest_string"] < 9_000


def test_a_small_answer_is_left_as_it_is(tmp_path: Path) -> None:
    result = QueryResult(columns=["n"], rows=[(n,) for n in range(12)])
    update = _answered(table={"rows": [[1]]})
    assert bounded_update(_state(result), update, tmp_path) is update
    assert not (tmp_path / "run1").exists()


def test_a_real_turn_checkpoints_a_sample_and_answers_with_every_row(
    make_service, tmp_path: Path, monkeypatch
) -> None:
    """Through the ask service: the live answer has all 12 rows, the checkpoint 5 (with the
    count 12), its serialized size is that of the sample, the download has 12 rows."""
    monkeypatch.setattr(bounded_module, "STATE_ROWS", 5)
    monkeypatch.setattr(
        bounded_module,
        "STEPS",
        tuple((limit, min(rows, 5)) for limit, rows in bounded_module.STEPS),
    )
    service = make_service()
    result = service.ask("Сумма платежей по месяцам в 2025 году", thread_id="big")
    assert result.status == "answered" and result.row_count == 12 and len(result.rows) == 12
    assert any(e.message == CUT_MESSAGE for e in result.trace)
    values = service.graph.get_state({"configurable": {"thread_id": "big"}}).values
    assert values["result"].row_count == 5 and values["result_rows"] == 12
    _kind, blob = service.checkpointer.serde.dumps_typed(values["result"])
    assert len(blob) < 2_000
    files = service.run_files("big", result.run_id)
    assert files is not None and files.excel
    assert openpyxl.load_workbook(files.excel).worksheets[0].max_row == 13

    later = service.ask("Сколько кошельков открыли в мае 2025?", thread_id="big")  # next turn
    assert later.status == "answered"
    values = service.graph.get_state({"configurable": {"thread_id": "big"}}).values
    assert values["result_rows"] is None  # a small result: kept whole, no count of its own


def test_a_huge_blob_is_cut_too(tmp_path: Path) -> None:
    result = QueryResult(columns=["b", "n"], rows=[(b"\x00" * (5 << 20), -3)])
    update = bounded_update(_state(result), _answered(), tmp_path)
    assert update["result"].rows == [("[5242880 bytes, cut in the dialog's saved state]", -3)]
    assert update["trace"][-1].data["cut_strings"] == 1
