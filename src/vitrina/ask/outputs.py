"""A run's files, made when someone asks for them: Excel, CSV, Parquet and the chart PNG.

The answer node keeps in the checkpoint what the files need (the result, the column
meanings, the chart decision, the sheet's labels) and draws nothing. The files are written
on request (a download, `--excel` / `--chart`, the CLI after the answer is shown) into
`outputs_dir/<run_id>/` and reused from there: the folder is the cache, keyed by run id.
Each file is written under a temporary name and renamed, so two requests for the same run
never see half a file.

A result larger than the checkpoint keeps (`vitrina.ask.bounded`) has its every row in
`result.parquet` of the run folder, written when the turn ended (`RESULT_NAME`, the state's
`result_file`): the downloads read it a batch at a time (`vitrina.present.stored`), so a
million-row Excel or CSV never holds the rows in memory.
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
from vitrina.warehouse.result import QueryResult

EXCEL_NAME = "result.xlsx"
PNG_NAME = "chart.png"
CSV_NAME = "result.csv"
RESULT_NAME = "result.parquet"  # the stored result: every row, also the Parquet download
_RUN_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
Kind = Literal["excel", "chart", "csv", "parquet"]


@dataclass
class RunFiles:
    """Paths of a run's files (None: not asked for, nothing to draw, or writing failed)."""

    excel: str | None = None
    chart_png: str | None = None
    csv: str | None = None
    parquet: str | None = None
    trace: list[TraceEvent] = field(default_factory=list)

    def path(self, kind: Kind) -> str | None:
        return self.chart_png if kind == "chart" else getattr(self, kind)


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


def stored_source(values: dict[str, Any], run_dir: Path) -> QueryResult | Path:
    """Where every row of the run's result is, whole: the stored Parquet file when the
    checkpoint keeps a cut copy (a sample, long cells cut: `result_file` is set), else the
    result in the state."""
    if values.get("result_file"):
        return run_dir / RESULT_NAME
    result: QueryResult = values["result"]
    return result


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
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        trace.suppressed("run folder not created: no files", error=str(exc))
        files.trace = trace.events
        return files
    source = stored_source(values, run_dir)
    if isinstance(source, Path) and not source.is_file():
        trace.suppressed("the stored result is missing: no files", path=str(source))
        files.trace = trace.events
        return files
    writers = {"excel": _excel, "csv": _csv, "parquet": _parquet, "chart": _chart}
    for kind in kinds:
        try:
            found = writers[kind](values, spec, source, run_dir, trace)
        except OSError as exc:
            trace.suppressed(f"{kind} file not written", error=str(exc))
            found = None
        setattr(files, "chart_png" if kind == "chart" else kind, found)
    files.trace = trace.events
    return files


def _excel(
    values: dict[str, Any], spec: dict[str, Any], source: Any, run_dir: Path, trace: Trace
) -> str | None:
    path = run_dir / EXCEL_NAME
    if path.is_file():
        return str(path)
    from vitrina.present.excel import write_excel  # xlsxwriter only when asked for
    from vitrina.present.stored import row_count, rows_of

    result, metas = values["result"], values.get("columns_meta") or []
    return str(
        _atomic(
            path,
            lambda tmp: write_excel(
                result,
                metas,
                tmp,
                lang=spec["lang"],
                sheet_title=spec["sheet_title"],
                question=spec["question"],
                sql=spec["sql"],
                period_label=spec["period_label"],
                rows=rows_of(source),
                row_count=row_count(source),
            ),
        )
    )


def _table_file(name: str, writer: str) -> Any:
    """A writer of one of the result's whole-table files (CSV, Parquet): `writer` of
    `vitrina.present.stored` (pyarrow only when asked for) from the stored source, once."""

    def write(
        values: dict[str, Any], spec: dict[str, Any], source: Any, run_dir: Path, trace: Trace
    ) -> str | None:
        path = run_dir / name
        if path.is_file():
            return str(path)
        from vitrina.present import stored

        write_table = getattr(stored, writer)
        return str(_atomic(path, lambda tmp: write_table(source, tmp)))

    return write


_csv = _table_file(CSV_NAME, "write_csv")
_parquet = _table_file(RESULT_NAME, "write_parquet")


def _chart(
    values: dict[str, Any], spec: dict[str, Any], source: Any, run_dir: Path, trace: Trace
) -> str | None:
    decision = spec.get("chart_decision")
    if not decision:
        return None
    path = run_dir / PNG_NAME
    if path.is_file():
        return str(path)
    result, metas, lang = values["result"], values.get("columns_meta") or [], spec["lang"]
    if isinstance(source, Path) and not (decision.get("prepared") or {}).get("data"):
        trace.suppressed("chart png not drawn: the checkpoint holds a sample and no chart data")
        return None

    def draw(tmp: Path) -> None:
        png, events = safe_png(ChartDecision.model_validate(decision), result, metas, lang, tmp)
        trace.events.extend(events)
        if png is None:
            raise _NotDrawn

    try:
        _atomic(path, draw)
    except _NotDrawn:
        return None  # safe_png already wrote the suppressed event
    return str(path)


class _NotDrawn(Exception):
    """The chart could not be drawn (recorded by safe_png); nothing is renamed into place."""
