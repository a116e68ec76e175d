"""`vitrina ask --json` cuts long text cells (decision 146), run as the console script runs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from vitrina.cli import main

CUT = re.compile(r"^.{200}… \(cut: (\d+) chars\)$", re.S)


def test_ask_json_cuts_long_cells(long_names_db: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("VITRINA_RESULT_CELL_MAX_CHARS", "200")
    question = "Сумма платежей по регионам за 3 квартал 2026"
    with pytest.raises(SystemExit) as done:
        main(["ask", question, "--db", f"duckdb:///{long_names_db}", "--json"])
    out = capsys.readouterr().out
    assert done.value.code == 0, out
    data = json.loads(out)
    assert data["status"] == "answered" and data["row_count"] == 12
    cells = [row[0] for row in data["rows"]] + [row[0] for row in data["table"]["rows"]]
    matches = [CUT.match(cell) for cell in cells]
    assert all(m is not None and int(m.group(1)) > 10_000 for m in matches), cells[0][-40:]
    assert data["cells_cut"] == len(cells) == 12 + len(data["table"]["rows"])
