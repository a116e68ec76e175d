"""A size cap on what an ask turn leaves in the dialog's checkpoint (as `vitrina.task.bounded`
does for a task's state).

The dialog's state is checkpointed when each turn ends, and the checkpointer keeps every
version: a 100,000-row result, or one 100 MB cell, used to be copied into the state database
with every answer. The answer node's update (the last one that reads the result) goes
through `bounded_update`: the result keeps a sample of at most STATE_ROWS rows, with the full
count in `result_rows`; no string in it or in the answer, table, chart and history is longer
than a cap; and together they stay under MAX_STATE_BYTES, the caps tightening step by step
(STEPS) until they fit. When anything is cut, every row is stored at once in the run's
`result.parquet` (the state's `result_file` points at it: `vitrina.ask.outputs`), so a later
download (Excel, CSV, Parquet) still has it all, and a trace event says what was kept; the
chart PNG is drawn on request from the chart data the answer built over every row (the
decision's `prepared`). A million rows cost about a second here, where the Excel file
written here before cost 38 s (issue 38). The live answer of the turn carries every row up
to `AskService`'s LIVE_ROWS; a reloaded dialog shows the sample and the full count.

>>> update = {"status": "answered", "answer": "ok"}
>>> bounded_update({}, update, None) is update
True
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from vitrina.ask.outputs import RESULT_NAME, write_run_files
from vitrina.present.cells import json_size
from vitrina.trace import Trace
from vitrina.warehouse.result import QueryResult

STATE_ROWS = 1_000  # rows of a result kept in state (the web page shows at most 1,000)
MAX_STATE_BYTES = 4 << 20  # the result's sample, answer, table, chart and history together
# (longest string, rows of the result) tried in order until the state fits MAX_STATE_BYTES
STEPS = ((10_000, STATE_ROWS), (1_000, STATE_ROWS), (200, 100), (100, 10), (100, 0))
CAPPED_KEYS = ("answer", "table", "chart", "outputs", "history", "checks")
MAX_DEPTH = 12  # nesting walked (tables and chart specs are shallow)
CUT_MESSAGE = (
    "the result was cut in the dialog's saved state: the stored result (result.parquet) "
    "and the downloads made from it have every row"
)


def _cut(text: str, limit: int) -> str:
    return f"{text[:limit]}… [{len(text)} characters, cut in the dialog's saved state]"


def _cap(value: Any, limit: int, cuts: list[int], depth: int = 0) -> Any:
    """`value` with every string (or bytes) longer than `limit` cut (`cuts[0]` counts them)."""
    if isinstance(value, str):
        if len(value) > limit:
            cuts[0] += 1
            return _cut(value, limit)
        return value
    if isinstance(value, bytes):
        if len(value) > limit:
            cuts[0] += 1
            return f"[{len(value)} bytes, cut in the dialog's saved state]"
        return value
    if depth >= MAX_DEPTH:
        return value
    if isinstance(value, list | tuple):
        items = [_cap(v, limit, cuts, depth + 1) for v in value]
        same = all(a is b for a, b in zip(items, value, strict=True))
        return value if same else type(value)(items)
    if isinstance(value, dict):
        capped = {k: _cap(v, limit, cuts, depth + 1) for k, v in value.items()}
        return value if all(capped[k] is v for k, v in value.items()) else capped
    return value


# bytes of a value of these types in the checkpoint, near enough
_FIXED_SIZE = {
    type(None): 1,
    bool: 1,
    int: 9,
    float: 9,
    Decimal: 40,
    date: 40,
    datetime: 40,
    time: 40,
    timedelta: 40,
}


def _row(row: tuple[Any, ...], limit: int, cuts: list[int]) -> tuple[tuple[Any, ...], int]:
    """One row with long cells cut, and its size in bytes near enough (one pass, no JSON:
    serializing each of 1,000 rows cost more than a whole rules turn)."""
    size = 2
    changed = False
    for value in row:
        fixed = _FIXED_SIZE.get(type(value))
        if fixed is not None:
            size += fixed
        elif type(value) is str and len(value) <= limit:
            size += len(value.encode("utf-8", "surrogatepass")) + 3
        else:
            changed = True
            size += json_size(_cap(value, limit, [0]))
    if not changed:
        return row, size
    return tuple(_cap(v, limit, cuts) for v in row), size


def _sample(
    result: QueryResult, limit: int, rows: int, budget: int, cuts: list[int]
) -> list[tuple[Any, ...]]:
    """The first rows of `result` (at most `rows`, within `budget` bytes), long cells cut."""
    kept: list[tuple[Any, ...]] = []
    used = 0
    for row in result.rows[:rows]:
        capped, size = _row(row, limit, cuts)
        used += size
        if used > budget:
            break
        kept.append(capped)
    return kept


def bounded_update(
    state: dict[str, Any], update: dict[str, Any], outputs_dir: Path | None
) -> dict[str, Any]:
    """The answer node's `update` within the caps (the same object when nothing was cut)."""
    result: QueryResult | None = state.get("result")
    others = {k: update[k] for k in CAPPED_KEYS if k in update}
    for limit, rows in STEPS:
        cuts = [0]
        capped = {k: _cap(v, limit, cuts) for k, v in others.items()}
        budget = MAX_STATE_BYTES - json_size(capped)  # the checkpoint's bytes, near enough
        if budget >= 0 or rows == 0:
            break
    sample = _sample(result, limit, rows, max(budget, 0), cuts) if result is not None else []
    rows_cut = result is not None and len(sample) < result.row_count
    if not cuts[0] and not rows_cut:
        return update
    trace = Trace("state")
    stored = None
    if result is not None and update.get("status") == "answered" and outputs_dir is not None:
        # every row goes to the stored result now: the checkpoint keeps only the sample;
        # Excel and CSV are written from the stored rows on request
        values = {**state, **update, "result": result, "result_rows": None}
        files = write_run_files(values, outputs_dir, ("parquet",))
        trace.events.extend(files.trace)
        stored = files.parquet
    bounded = {**update, **capped}
    if result is not None:
        bounded["result"] = result.model_copy(update={"rows": sample})  # every other field kept
        bounded["result_rows"] = result.row_count
        bounded["result_file"] = RESULT_NAME if stored else None  # in outputs_dir/<run_id>/
    trace.rejected(
        CUT_MESSAGE,
        rows=result.row_count if result is not None else 0,
        kept_rows=len(sample),
        cut_strings=cuts[0],
        longest_string=limit,
        max_state_bytes=MAX_STATE_BYTES,
    )
    bounded["trace"] = [*(update.get("trace") or []), *trace.events]
    return bounded


def bounded(node: Callable[..., Any]) -> Callable[..., Any]:
    """A node whose update goes through `bounded_update` (the signature is kept for LangGraph,
    which passes `runtime` by name)."""

    @functools.wraps(node)
    def wrapper(state: Any, runtime: Any) -> Any:
        update = node(state, runtime)
        if not isinstance(update, dict):
            return update
        context = getattr(runtime, "context", None)
        settings = getattr(context, "settings", None)
        outputs_dir = getattr(settings, "outputs_dir", None)
        return bounded_update(state, update, outputs_dir)

    return wrapper
