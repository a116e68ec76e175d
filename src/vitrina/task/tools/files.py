"""`write_file`: result files in the task's output folder (CSV, Excel, Markdown, charts).

Numbers in files come from step tables, copied by code; only a Markdown note may carry
the model's own text.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from vitrina.present.charts import safe_chart
from vitrina.present.infer_meta import infer_metas
from vitrina.task.messages import text
from vitrina.task.state import ToolOutput
from vitrina.task.tables import load_table
from vitrina.task.tools.base import Tool, ToolEnv, ToolError

SAFE_NAME = re.compile(r"[^\w.-]+", re.U)
MAX_MARKDOWN = 200_000
SHEET_ROWS = 1_000_000


class WriteArgs(BaseModel):
    format: Literal["csv", "excel", "markdown", "chart"]
    name: str = Field("results", max_length=80, description="File name without extension.")
    steps: list[int] = Field(
        default_factory=list, description="Steps whose tables go in; empty: all."
    )
    content: str | None = Field(
        None, max_length=MAX_MARKDOWN, description="markdown: the text to write."
    )


def _name(raw: str) -> str:
    return SAFE_NAME.sub("_", raw).strip("._") or "results"


def _tables(env: ToolEnv, steps: list[int]) -> list[tuple[int, str, Path]]:
    wanted = steps or [s.n for s in env.plan if s.last_table() is not None and s.n != env.step.n]
    out = []
    for n in wanted:
        table = env.step_table(n)
        title = next(s.title for s in env.plan if s.n == n)
        out.append((n, title, Path(table.data or "")))
    if not out:
        raise ToolError("no step has a table yet")
    return out


def _excel(tables: list[tuple[int, str, Path]], path: Path, lang: str) -> None:
    """A sheet per step. Text is written as text, never as a formula or a link: a result
    value "=HYPERLINK(...)" from the warehouse must not become live in the user's Excel."""
    import xlsxwriter

    from vitrina.present.excel import (
        WORKBOOK_OPTIONS,
        excel_value,
        safe_sheet_title,
        typed_writer,
    )

    book = xlsxwriter.Workbook(str(path), {**WORKBOOK_OPTIONS, "constant_memory": True})
    try:
        for n, title, data in tables:
            result = load_table(data)
            sheet = book.add_worksheet(safe_sheet_title(f"{'Шаг' if lang == 'ru' else 'Step'} {n}"))
            write = typed_writer(book, sheet)
            write(0, 0, str(excel_value(title)))
            for col, name in enumerate(result.columns):
                write(1, col, str(excel_value(name)))
            for r, row in enumerate(result.rows[:SHEET_ROWS], start=2):
                for col, value in enumerate(row):
                    write(r, col, excel_value(value))
    finally:
        book.close()


def _markdown(tables: list[tuple[int, str, Path]], lang: str, rows: int) -> str:
    parts = []
    for n, title, data in tables:
        result = load_table(data)
        parts.append(f"## {'Шаг' if lang == 'ru' else 'Step'} {n}. {title}\n")
        parts.append("| " + " | ".join(result.columns) + " |")
        parts.append("|" + "---|" * len(result.columns))
        parts.extend(
            "| " + " | ".join("" if v is None else str(v) for v in row) + " |"
            for row in result.rows[:rows]
        )
        if result.row_count > rows:
            parts.append(f"\n… {result.row_count - rows} more rows in the CSV\n")
        parts.append("")
    return "\n".join(parts)


def write_file(env: ToolEnv, args: WriteArgs) -> ToolOutput:
    folder = Path(env.folder).parent / "files"
    folder.mkdir(parents=True, exist_ok=True)
    name = _name(args.name)
    written: list[str] = []
    if args.format == "markdown" and args.content:
        path = folder / f"{name}.md"
        path.write_text(args.content, encoding="utf-8")
        written.append(str(path))
    else:
        tables = _tables(env, args.steps)
        if args.format == "csv":
            for n, _title, data in tables:
                target = folder / f"{name}-step{n}.csv"
                shutil.copyfile(data.with_suffix(".csv"), target)
                written.append(str(target))
        elif args.format == "excel":
            path = folder / f"{name}.xlsx"
            _excel(tables, path, env.lang)
            written.append(str(path))
        elif args.format == "markdown":
            path = folder / f"{name}.md"
            path.write_text(_markdown(tables, env.lang, 50), encoding="utf-8")
            written.append(str(path))
        else:
            for n, _title, data in tables:
                result = load_table(data)
                metas = (
                    infer_metas(result, env.ctx.catalog, [], None)
                    if env.ctx.catalog is not None
                    else []
                )
                _spec, png, events = safe_chart(
                    result,
                    metas,
                    env.lang,
                    png_path=folder / f"{name}-step{n}.png",
                    node="write_file",
                )
                env.trace.events.extend(events)
                if png is not None:
                    written.append(str(png))
    if not written:
        raise ToolError(f"nothing written for {args.format}")
    env.trace.branch("files written", files=written)
    return ToolOutput(
        tool="write_file",
        ok=True,
        summary=text(
            "files_written",
            env.lang if env.lang in ("ru", "en") else "ru",
            names=", ".join(Path(w).name for w in written),
        ),
        files=written,
    )


TOOL = Tool(
    "write_file",
    "Write result files into the task's output folder: csv, excel (a sheet per step), "
    "markdown (step tables, or your text in `content`), chart (PNG per step table).",
    write_file,
    WriteArgs,
)
