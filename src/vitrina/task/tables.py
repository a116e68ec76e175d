"""Step tables on disk: JSON (columns and rows) for later steps and the sandbox, CSV for people.

The CSV is the copy a person opens in a spreadsheet: text that starts like a formula is written
behind a ``'`` (`vitrina.present.formulas`); the JSON keeps every value as it came."""

from __future__ import annotations

import csv
import json
import re
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from vitrina.present.formulas import csv_cell
from vitrina.warehouse import QueryResult

ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
MAX_TABLE_BYTES = 200 << 20


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def save_table(folder: Path, name: str, columns: list[str], rows: list[Any]) -> Path:
    """Write `name`.json and `name`.csv; return the JSON path."""
    folder.mkdir(parents=True, exist_ok=True)
    plain = [[_plain(v) for v in row] for row in rows]
    path = folder / f"{name}.json"
    path.write_text(
        json.dumps({"columns": list(columns), "rows": plain}, ensure_ascii=False), encoding="utf-8"
    )
    with (folder / f"{name}.csv").open("w", encoding="utf-8-sig", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow([csv_cell(str(c)) for c in columns])
        writer.writerows([csv_cell(v) for v in row] for row in plain)
    return path


def load_table(path: str | Path) -> QueryResult:
    """A saved table as a QueryResult; ISO dates become dates again."""
    path = Path(path)
    if path.stat().st_size > MAX_TABLE_BYTES:
        raise ValueError(f"table file too large: {path}")
    data = json.loads(path.read_text(encoding="utf-8"))
    rows = []
    for row in data.get("rows", []):
        rows.append(
            tuple(
                date.fromisoformat(v) if isinstance(v, str) and ISO_DATE.match(v) else v
                for v in row
            )
        )
    return QueryResult(columns=list(data.get("columns", [])), rows=rows)


def preview(rows: list[Any], n: int) -> list[list[Any]]:
    return [[_plain(v) for v in row] for row in rows[:n]]
