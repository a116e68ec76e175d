"""A bound on every MCP tool reply: long cells cut, then rows dropped, then a clear refusal.

The SDK encodes a tool's reply on the event loop (as text and as structured content), so one
100 MB cell took the MCP server to 1.4 GB and held every other client meanwhile. Each reply is
bounded in the tool's worker thread, before the SDK sees it: text cells of ``rows`` are cut to
``result_cell_max_chars`` (``cells_cut`` counts them), rows past ``mcp_reply_max_bytes`` of JSON
are dropped (``rows_truncated``, ``reply_cut`` says why), any other long text is cut, and a
reply still over the bound is refused with a message the model can act on (decision 146).
"""

from __future__ import annotations

from typing import Any

from vitrina.present.cells import cut_cell, cut_reply, json_size, rows_within

MAX_DEPTH = 8  # tool replies are shallow: a dict of lists of dicts
SPARE = 400  # bytes kept free for the note that says rows were dropped


class ReplyTooLarge(Exception):
    """A reply that no cut brings under the bound."""


def _cut_strings(value: Any, max_chars: int, depth: int = 0) -> Any:
    if isinstance(value, str):
        return cut_cell(value, max_chars)[0]
    if depth >= MAX_DEPTH:
        return value
    if isinstance(value, list):
        return [_cut_strings(v, max_chars, depth + 1) for v in value]
    if isinstance(value, dict):
        return {k: _cut_strings(v, max_chars, depth + 1) for k, v in value.items()}
    return value


def _fewer_rows(reply: dict[str, Any], max_bytes: int) -> dict[str, Any]:
    rest = json_size({**reply, "rows": []})
    rows = rows_within(reply["rows"], max(0, max_bytes - rest - SPARE))
    note = (
        f"{len(reply['rows']) - len(rows)} of {len(reply['rows'])} rows left out: the reply "
        f"would be over {max_bytes} bytes (mcp_reply_max_bytes); ask for fewer rows or "
        "narrower columns, or use the Excel file"
    )
    return {**reply, "rows": rows, "rows_truncated": True, "reply_cut": note}


def bounded_reply(reply: Any, max_chars: int, max_bytes: int) -> Any:
    """``reply`` within ``max_bytes`` of JSON, or `ReplyTooLarge`."""
    if isinstance(reply, dict) and isinstance(reply.get("rows"), list):
        reply = cut_reply(reply, max_chars)
    size = json_size(reply)
    if size <= max_bytes:
        return reply
    if isinstance(reply, dict) and isinstance(reply.get("rows"), list):
        reply = _fewer_rows(reply, max_bytes)
        if json_size(reply) <= max_bytes:
            return reply
    reply = _cut_strings(reply, max_chars)
    if json_size(reply) <= max_bytes:
        return reply
    raise ReplyTooLarge(
        f"the reply is {size} bytes of JSON, over the bound of {max_bytes} bytes "
        "(mcp_reply_max_bytes): ask for less (fewer rows, fewer results)"
    )
