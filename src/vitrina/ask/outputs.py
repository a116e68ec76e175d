"""A run's files, made when someone asks for them: the Excel file and the chart PNG.

The answer node keeps in the checkpoint what the files need (the result, the column
meanings, the chart decision, the sheet's labels) and draws nothing. The files are written
on request (a download, `--excel` / `--chart`, the CLI after the answer is shown) into
`outputs_dir/<run_id>/` and reused from there: the folder is the cache, keyed by run id.
Each file is written under a temporary name and renamed, so two requests for the same run
never see half a file.
"""

from __future__ import annotations

import os
import re
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from vitrina.present.charts import ChartDecision, safe_png
from vitrina.trace import Trace, TraceEvent

EXCEL_NAME = "result.xlsx"
PNG_NAME = "chart.png"
_RUN_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
Kind = Literal["excel", "chart"]


@dataclass
class RunFiles:
    """Paths of a run's files (None: not asked for, nothing to draw, or writing failed)."""

    excel: str | None = None
    chart_png: str | None = None
    trace: list[TraceEvent] = field(default_factory=list)


def outputs_of(values: dict[str, Any]) -> dict[str, Any] | None:
    """What a finished turn's files need, or None when the turn has no answer with data."""
    spec = values.get("outputs")
    if values.get("status") != "answered" or not spec or values.get("result") is None:
        return None
    return spec


def _atomic(path: Path, write: Any) -> Path:
    """Write through a temporary file in the same folder, then rename it into place."""
    tmp = path.with_name(f".{path.stem}-{uuid.uuid4().hex[:8]}{path.suffix}")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def write_run_files(
    values: dict[str, Any], outputs_dir: Path, kinds: tuple[Kind, ...] = ("excel", "chart")
) -> RunFiles:
    """The run's files of these kinds, written once per run id and reused afterwards."""
    files = RunFiles()
    spec = outputs_of(values)
    run_id = str(values.get("run_id") or "")
    if spec is None or not _RUN_ID.match(run_id):
        return files
    trace = Trace("outputs")
    run_dir = outputs_dir / run_id
    result, metas, lang = values["result"], values.get("columns_meta") or [], spec["lang"]
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        trace.suppressed("run folder not created: no files", error=str(exc))
        files.trace = trace.events
        return files
    if "excel" in kinds:
        path = run_dir / EXCEL_NAME
        if path.is_file():
            files.excel = str(path)
        else:
            from vitrina.present.excel import write_excel  # xlsxwriter only when asked for

            try:
                files.excel = str(
                    _atomic(
                        path,
                        lambda tmp: write_excel(
                            result,
                            metas,
                            tmp,
                            lang=lang,
                            sheet_title=spec["sheet_title"],
                            question=spec["question"],
                            sql=spec["sql"],
                            period_label=spec["period_label"],
                        ),
                    )
                )
            except OSError as exc:
                trace.suppressed("Excel file not written", error=str(exc))
    decision = spec.get("chart_decision")
    if "chart" in kinds and decision:
        path = run_dir / PNG_NAME
        if path.is_file():
            files.chart_png = str(path)
        else:

            def draw(tmp: Path) -> None:
                png, events = safe_png(
                    ChartDecision.model_validate(decision), result, metas, lang, tmp
                )
                trace.events.extend(events)
                if png is None:
                    raise _NotDrawn

            try:
                _atomic(path, draw)
                files.chart_png = str(path)
            except _NotDrawn:
                pass  # safe_png already wrote the suppressed event
            except OSError as exc:
                trace.suppressed("chart png not written", error=str(exc))
    files.trace = trace.events
    return files


class _NotDrawn(Exception):
    """The chart could not be drawn (recorded by safe_png); nothing is renamed into place."""
