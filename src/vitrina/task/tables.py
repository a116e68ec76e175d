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

from vitrina.present.cells import cut_rows
from vitrina.present.formulas import csv_cell
from vitrina.task.quota import FolderQuota, QuotaExceeded
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


class _Budget:
    """A text file that refuses writes past ``left`` bytes (UTF-8), so a CSV over the task's
    folder quota stops being written at the quota, not after."""

    def __init__(self, fh: Any, left: int) -> None:
        self.fh = fh
        self.left = left

    def write(self, chunk: str) -> int:
        self.left -= len(chunk.encode("utf-8"))
        if self.left < 0:
            raise _Over
        return int(self.fh.write(chunk))


class _Over(Exception):
    pass


def save_table(
    folder: Path, name: str, columns: list[str], rows: list[Any], quota: FolderQuota | None = None
) -> Path:
    """Write `name`.json and `name`.csv; return the JSON path. With ``quota``, both files must
    fit in what is left of the task folder's quota: the JSON is sized before it is written and
    the CSV is stopped at the quota; either way nothing of the table stays and QuotaExceeded
    says why."""
    folder.mkdir(parents=True, exist_ok=True)
    plain = [[_plain(v) for v in row] for row in rows]
    path = folder / f"{name}.json"
    left = quota.left() if quota is not None else None
    # text alone, counted in characters (never more than its UTF-8 bytes), twice (JSON and
    # CSV, each with more around it): a table sure to be over is refused before it is encoded
    least = 2 * sum(len(v) for row in plain for v in row if isinstance(v, str))
    if quota is not None and left is not None and least >= left:
        raise quota.refusal(f"{name}.json + .csv", least)
    data = json.dumps({"columns": list(columns), "rows": plain}, ensure_ascii=False).encode()
    if quota is not None and left is not None and len(data) > left:
        raise quota.refusal(f"{name}.json", len(data))
    path.write_bytes(data)
    target = folder / f"{name}.csv"
    try:
        with target.open("w", encoding="utf-8-sig", newline="") as fh:
            sink = _Budget(fh, left - len(data) - 3) if left is not None else fh  # 3: the BOM
            writer = csv.writer(sink)
            writer.writerow([csv_cell(str(c)) for c in columns])
            writer.writerows([csv_cell(v) for v in row] for row in plain)
    except _Over:
        path.unlink(missing_ok=True)
        target.unlink(missing_ok=True)
        over = (left or 0) + 1  # what the CSV needed at least: more than was left
        raise QuotaExceeded(str(quota.refusal(f"{name}.csv", over) if quota else name)) from None
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


def preview(rows: list[Any], n: int, max_chars: int | None = None) -> list[list[Any]]:
    """The first ``n`` rows as plain values for the task's state; with ``max_chars``, long
    text cells cut with a marker (the state keeps a preview, the files keep the values)."""
    head = [[_plain(v) for v in row] for row in rows[:n]]
    return cut_rows(head, max_chars)[0] if max_chars is not None else head
