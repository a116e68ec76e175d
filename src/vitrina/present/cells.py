"""Length caps on result cells in replies: a long text cell is cut with a visible marker.

A warehouse can return one 100 MB string (``repeat('x', 100000000)``, a ``string_agg`` over a
cross join) well inside the row cap and the timeout. Every JSON reply (HTTP API, ``vitrina ask
--json``, MCP) and a task's state carry cells cut to ``result_cell_max_chars`` with the marker
below, and the reply counts the cut cells; the whole value stays only in the downloadable file
(Excel, a task's CSV) when that file is within its byte budget.

>>> cut_cell("abcdef", 3)
('abc… (cut: 6 chars)', True)
>>> cut_rows([["short", "x" * 10, 7]], 5)
([['short', 'xxxxx… (cut: 10 chars)', 7]], 1)
"""

from __future__ import annotations

import json
from typing import Any

MARK = "… (cut: {n} chars)"


def cut_cell(value: Any, max_chars: int) -> tuple[Any, bool]:
    """The value, or its first ``max_chars`` characters with the marker; and whether it was cut.
    Only text is cut (long binary values become their head as text, the marker counting
    bytes): numbers and dates are never long."""
    if isinstance(value, bytes | bytearray | memoryview) and len(value) > max_chars:
        head = bytes(value[:max_chars]).decode("utf-8", errors="replace")
        return f"{head}… (cut: {len(value)} bytes)", True
    if not isinstance(value, str) or len(value) <= max_chars:
        return value, False
    return value[:max_chars] + MARK.format(n=len(value)), True


def cut_rows(rows: Any, max_chars: int) -> tuple[list[list[Any]], int]:
    """Every row as a list with its long cells cut, and how many cells were cut."""
    out: list[list[Any]] = []
    cut = 0
    for row in rows or []:
        cells = []
        for value in row:
            value, was_cut = cut_cell(value, max_chars)
            cells.append(value)
            cut += was_cut
        out.append(cells)
    return out, cut


def cut_reply(data: dict[str, Any], max_chars: int) -> dict[str, Any]:
    """A dumped result (``rows`` and the preview ``table.rows``) with long cells cut and
    ``cells_cut`` set to the number of cut cells (0 when nothing was cut)."""
    out = dict(data)
    total = 0
    if isinstance(out.get("rows"), list):
        out["rows"], n = cut_rows(out["rows"], max_chars)
        total += n
    table = out.get("table")
    if isinstance(table, dict) and isinstance(table.get("rows"), list):
        rows, n = cut_rows(table["rows"], max_chars)
        out["table"] = {**table, "rows": rows}
        total += n
    out["cells_cut"] = total
    return out


def json_size(value: Any) -> int:
    """Bytes of ``value`` as compact JSON (UTF-8), as a reply would carry it."""
    return len(json.dumps(value, ensure_ascii=False, default=str).encode("utf-8"))


def rows_within(rows: list[Any], budget: int) -> list[Any]:
    """The longest head of ``rows`` whose JSON fits in ``budget`` bytes (one row at a time:
    the rows are already cell-capped, so each is small)."""
    kept: list[Any] = []
    used = 2  # the brackets
    for row in rows:
        size = json_size(row) + 1
        if used + size > budget:
            break
        kept.append(row)
        used += size
    return kept
