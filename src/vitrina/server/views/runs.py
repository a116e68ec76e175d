"""A run's files: the full result as Excel, CSV and Parquet, the chart spec and picture.

The files are written on the first download of a run and served from the outputs folder
afterwards (`AskService.run_files`, cached by run id). Excel, CSV and Parquet hold every row:
a result larger than the dialog's checkpoint keeps is read from its stored rows a batch at a
time (`vitrina.ask.outputs`), so a million-row download does not hold the rows in memory.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Depends
from fastapi.responses import FileResponse

from vitrina.server.auth import Who
from vitrina.server.errors import ApiError
from vitrina.server.history import find_run
from vitrina.server.state import ServerState, server_state
from vitrina.server.views.threads import owned_thread

State = Annotated[ServerState, Depends(server_state)]
_RUN_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
Kind = Literal["excel", "chart", "csv", "parquet"]
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
CSV = "text/csv; charset=utf-8"
PARQUET = "application/vnd.apache.parquet"


def _not_found(run_id: str, what: str = "run") -> ApiError:
    return ApiError(
        404, f"{what}_not_found", f"{what} {run_id!r} not found", f"запуск {run_id!r} не найден"
    )


def _owned_run(state: ServerState, who: Any, run_id: str) -> str:
    """The run's dialog id when this token owns the dialog; 404 otherwise."""
    thread_id = state.store.run_thread(run_id) if _RUN_ID.match(run_id) else None
    if thread_id is None:
        raise _not_found(run_id)
    try:
        owned_thread(state, who, thread_id)
    except ApiError:
        raise _not_found(run_id) from None
    return thread_id


def _file(state: ServerState, thread_id: str, run_id: str, kind: Kind, name: str) -> Path:
    """The run's file of this kind, written now when this is its first download."""
    files = state.service.run_files(thread_id, run_id, (kind,))
    found = files.path(kind) if files else None
    if not found:
        raise ApiError(
            404,
            "file_not_found",
            f"run {run_id!r} has no {name}",
            f"у запуска {run_id!r} нет {name}",
        )
    return Path(found)


_UNSAFE = re.compile(r'[\\/:*?"<>|\x00-\x1f]+')


def download_name(state: ServerState, thread_id: str, run_id: str, ext: str) -> str:
    """The file name a person recognises: the run's question and date ("Сумма платежей по
    каналам за 2025 год 2026-12-07.xlsx"), characters a file system refuses removed; the run
    id when the question is not found."""
    turn = find_run(state.service.graph, thread_id, run_id) or {}
    asked = str(turn.get("rewritten_question") or turn.get("question") or "")
    at = turn.get("created_at")
    day = datetime.fromtimestamp(at) if isinstance(at, int | float) and at > 0 else datetime.now()
    return f"{file_base(asked) or f'vitrina-{run_id}'} {day:%Y-%m-%d}.{ext}"


def file_base(asked: str) -> str:
    """A question as the start of a file name: no characters a file system refuses, one space
    between words, at most 80 characters."""
    return " ".join(_UNSAFE.sub(" ", asked).split())[:80].strip()


def run_excel(run_id: str, state: State, who: Who) -> FileResponse:
    """The full result of a run as an .xlsx file (a sync view: FastAPI runs it on its thread
    pool)."""
    thread_id = _owned_run(state, who, run_id)
    path = _file(state, thread_id, run_id, "excel", "result.xlsx")
    return FileResponse(
        path, media_type=XLSX, filename=download_name(state, thread_id, run_id, "xlsx")
    )


def run_csv(run_id: str, state: State, who: Who) -> FileResponse:
    """Every row of a run's result as CSV (UTF-8, a header row, ISO dates)."""
    thread_id = _owned_run(state, who, run_id)
    path = _file(state, thread_id, run_id, "csv", "result.csv")
    return FileResponse(
        path, media_type=CSV, filename=download_name(state, thread_id, run_id, "csv")
    )


def run_parquet(run_id: str, state: State, who: Who) -> FileResponse:
    """Every row of a run's result as a Parquet file (typed columns)."""
    thread_id = _owned_run(state, who, run_id)
    path = _file(state, thread_id, run_id, "parquet", "result.parquet")
    return FileResponse(
        path, media_type=PARQUET, filename=download_name(state, thread_id, run_id, "parquet")
    )


def run_chart(run_id: str, state: State, who: Who) -> dict[str, Any]:
    """The chart of a run as a Chart.js v4 config (a KPI is ``{"type": "kpi", ...}``)."""
    thread_id = _owned_run(state, who, run_id)
    turn = find_run(state.service.graph, thread_id, run_id)
    if not turn or not turn.get("chart"):
        raise ApiError(
            404,
            "chart_not_found",
            f"run {run_id!r} has no chart",
            f"у запуска {run_id!r} нет графика",
        )
    return turn["chart"]


def run_chart_png(run_id: str, state: State, who: Who) -> FileResponse:
    """The chart of a run as a PNG picture."""
    thread_id = _owned_run(state, who, run_id)
    path = _file(state, thread_id, run_id, "chart", "chart.png")
    return FileResponse(
        path, media_type="image/png", filename=download_name(state, thread_id, run_id, "png")
    )
