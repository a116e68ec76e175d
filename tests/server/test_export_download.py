"""The Excel download of the web API with text from the warehouse that looks like a formula:
every such cell comes back as the same text with Excel's quote prefix (OWASP's rule), the
numbers beside it stay numbers. The warehouse is a copy of the demo with hostile region names."""

from __future__ import annotations

import io
import shutil

import duckdb
import openpyxl
from fastapi.testclient import TestClient

from vitrina.server import ServeOptions, create_app

from .helpers import ask, new_thread, new_token

HOSTILE = ["=cmd|' /C calc'!A0", '=HYPERLINK("http://evil.example","x")', "@SUM(1)", "-1+2"]


def test_the_excel_download_keeps_formula_like_names_as_text(make_service, demo_db, tmp_path):
    db = tmp_path / "hostile.duckdb"
    shutil.copyfile(demo_db, db)
    with duckdb.connect(str(db)) as con:
        ids = [r[0] for r in con.sql("SELECT region_id FROM dwh.dim_region ORDER BY 1").fetchall()]
        for region_id, name in zip(ids, HOSTILE, strict=False):
            con.execute(
                "UPDATE dwh.dim_region SET region_name = ?, region_name_en = ? WHERE region_id = ?",
                [name, name, region_id],
            )
    service = make_service(f"duckdb:///{db}")
    app = create_app(service.settings, ServeOptions(), service=service)
    with TestClient(app) as client:
        auth = new_token(client)
        thread = new_thread(client, auth)
        events = ask(client, auth, thread, "Сумма платежей по регионам в 2025 году")
        assert events[-1]["result"]["status"] == "answered", events[-1]
        excel = client.get(f"/api/runs/{events[-1]['run_id']}/excel", headers=auth)
        assert excel.status_code == 200
    sheet = openpyxl.load_workbook(io.BytesIO(excel.content)).worksheets[0]
    cells = {row[0].value: row for row in sheet.iter_rows(min_row=2)}
    for name in HOSTILE[: len(ids)]:
        name_cell, *numbers = cells[name]
        assert name_cell.data_type == "s" and name_cell.quotePrefix, name
        assert all(c.data_type == "n" and not c.quotePrefix for c in numbers if c.value is not None)
    plain = [row for value, row in cells.items() if value not in HOSTILE]
    assert plain and not any(row[0].quotePrefix for row in plain)
