"""`ask`: the whole ask pipeline (period, topic, tables, checked SQL, answer) as one tool.

Two derived questions serve the rule templates: the same question for the same period a
year (or N years) earlier than an earlier step's, and a monthly series of an earlier step's
measure ending where that step's period ends (for a forecast).
"""

from __future__ import annotations

import re
import shutil
from datetime import date, timedelta
from pathlib import Path

from pydantic import BaseModel, Field

from vitrina.task.state import ToolOutput
from vitrina.task.tools.base import Tool, ToolEnv, ToolError

DIMENSION = re.compile(r"\s+(?:в разрезе|по|by)\s+[\wё-]+", re.I)
MAX_SERIES_MONTHS = 60


class AskArgs(BaseModel):
    question: str = Field("", max_length=2000, description="A business question in Russian or English.")
    shift_from_step: int | None = Field(None, description="Rule templates: repeat step N's question for its "
                                                          "period shifted back by `years`.")
    years: int = Field(1, ge=1, le=10)
    series_from_step: int | None = Field(None, description="Rule templates: step N's measure by month, "
                                                           "`months` months ending where step N's period ends.")
    months: int = Field(24, ge=3, le=MAX_SERIES_MONTHS)


def _shift_year(d: date, years: int) -> date:
    try:
        return d.replace(year=d.year - years)
    except ValueError:  # 29 February
        return d.replace(year=d.year - years, day=28)


def _span(start: date, end: date, lang: str) -> str:
    if lang == "ru":
        return f"с {start:%d.%m.%Y} по {end:%d.%m.%Y}"
    return f"from {start.isoformat()} to {end.isoformat()}"


def _source(env: ToolEnv, n: int) -> dict:
    table = env.step_table(n)
    meta = table.meta
    if not meta.get("question") or not meta.get("start"):
        raise ToolError(f"step {n} is not an answered question with a period")
    return meta


def derived_question(env: ToolEnv, args: AskArgs) -> str:
    """The question to ask: given, or derived from an earlier step's question and period."""
    if args.shift_from_step is not None:
        meta = _source(env, args.shift_from_step)
        start = _shift_year(date.fromisoformat(meta["start"]), args.years)
        end = _shift_year(date.fromisoformat(meta["end"]), args.years)
        base = meta["question"].replace(meta.get("span") or "", "").strip()
        return f"{base} {_span(start, end, env.lang)}"
    if args.series_from_step is not None:
        meta = _source(env, args.series_from_step)
        end = date.fromisoformat(meta["end"])
        first = end.replace(day=1)
        for _ in range(args.months - 1):
            first = (first - timedelta(days=1)).replace(day=1)
        base = DIMENSION.sub("", meta["question"].replace(meta.get("span") or "", "")).strip(" ,.")
        by_month = "по месяцам" if env.lang == "ru" else "by month"
        return f"{base} {by_month} {_span(first, end, env.lang)}"
    if not args.question.strip():
        raise ToolError("ask needs a question")
    return args.question.strip()


def ask(env: ToolEnv, args: AskArgs) -> ToolOutput:
    if env.ctx.ask is None:
        raise ToolError("the ask pipeline is not available")
    question = derived_question(env, args)
    result = env.ctx.ask(question)
    env.trace.branch("ask pipeline", question=question, status=result.status, rows=result.row_count)
    if result.status != "answered":
        raise ToolError(f"ask {result.status}: {result.answer or ''}".strip())
    period = result.period or {}
    files = []
    for found in (result.excel, result.chart_png):
        if found and Path(found).is_file():  # the ask run's files, copied next to the step's table
            target = env.folder / f"ask-{env.seq}{Path(found).suffix}"
            shutil.copyfile(found, target)
            files.append(str(target))
    meta = {"question": result.rewritten_question or question, "sql": result.sql, "span": period.get("span"),
            "start": period.get("start"), "end": period.get("end"), "label": period.get(f"label_{env.lang}")}
    return env.table_output("ask", "ask", result.columns, result.rows, result.answer or "", files=files, meta=meta)


TOOL = Tool("ask", "Answer a business question from the warehouse (the full ask pipeline: checked SQL, a "
            "table, Excel and a chart); the result becomes this step's table.", ask, AskArgs)
