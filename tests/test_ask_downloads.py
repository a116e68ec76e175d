"""Downloads of an answer's full result through the CLI (`vitrina.cli.main`, as the console
script runs): `--json --excel` writes the file (the --json branch used to drop it), `--csv`
and `--parquet` write every row, and a result larger than the checkpoint keeps is written
from its stored rows, not from the sample (issue 38)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import openpyxl
import pyarrow.parquet as pq
import pytest

from vitrina.ask import bounded as bounded_module
from vitrina.cli import main

QUESTION = "Количество платежей по месяцам в 2025 году"  # 12 rows


def _ask(capsys, *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as done:
        main(["ask", *args])
    return int(done.value.code or 0), capsys.readouterr().out


def test_json_with_excel_writes_the_file(demo_db: Path, tmp_path: Path, capsys) -> None:
    xlsx = tmp_path / "answer.xlsx"
    code, out = _ask(
        capsys, QUESTION, "--db", f"duckdb:///{demo_db}", "--json", "--excel", str(xlsx)
    )
    assert code == 0, out
    data = json.loads(out[: out.rindex("}") + 1])
    assert data["status"] == "answered" and data["excel"]  # the reply names the file too
    sheet = openpyxl.load_workbook(xlsx, read_only=True).worksheets[0]
    assert sheet.max_row == 13  # the header and 12 months


def test_csv_and_parquet_hold_every_row(demo_db: Path, tmp_path: Path, capsys) -> None:
    out_csv, out_parquet = tmp_path / "r.csv", tmp_path / "r.parquet"
    code, out = _ask(
        capsys, QUESTION, "--db", f"duckdb:///{demo_db}", "--json",
        "--csv", str(out_csv), "--parquet", str(out_parquet),
    )  # fmt: skip
    assert code == 0, out
    data = json.loads(out[: out.index("\n}") + 2])
    with out_csv.open(encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert len(rows) == 13 and len(rows[0]) == len(data["columns"])
    table = pq.read_table(out_parquet)
    assert table.num_rows == 12
    assert table.column(1).to_pylist()[0] == data["rows"][0][1]


def test_a_cut_result_downloads_every_row_from_the_stored_result(
    demo_db: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    """The checkpoint keeps 5 of 12 rows: CSV, Parquet and Excel still have all 12."""
    monkeypatch.setattr(bounded_module, "STATE_ROWS", 5)
    monkeypatch.setattr(
        bounded_module, "STEPS", tuple((cut, min(n, 5)) for cut, n in bounded_module.STEPS)
    )
    paths = {k: tmp_path / f"r.{k}" for k in ("csv", "parquet", "xlsx", "png")}
    code, out = _ask(
        capsys, QUESTION, "--db", f"duckdb:///{demo_db}",
        "--csv", str(paths["csv"]), "--parquet", str(paths["parquet"]),
        "--excel", str(paths["xlsx"]), "--chart", str(paths["png"]),
    )  # fmt: skip
    assert code == 0, out
    # the PNG is drawn from the chart data built over every row, not from the 5-row sample
    assert paths["png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(paths["csv"].read_text(encoding="utf-8").splitlines()) == 13
    assert pq.read_table(paths["parquet"]).num_rows == 12
    sheet = openpyxl.load_workbook(paths["xlsx"], read_only=True).worksheets[0]
    assert sheet.max_row == 13


def test_no_file_for_a_refusal(demo_db: Path, tmp_path: Path, capsys) -> None:
    target = tmp_path / "none.csv"
    _code, out = _ask(
        capsys, "Какая зарплата у сотрудников?", "--db", f"duckdb:///{demo_db}", "--json",
        "--csv", str(target),
    )  # fmt: skip
    assert json.loads(out[: out.index("\n}") + 2])["status"] != "answered", out
    assert not target.exists()
