"""`ask`: the whole ask pipeline (period, topic, tables, checked SQL, answer) as one tool.

Two derived steps serve the rule templates, each an earlier step's plan changed and handed
to ask as a plan (`run_plan`), never its sentence edited: the same plan for the period a
comparison names (a year, quarter, month or week before an earlier step's), and a monthly
series of an earlier step's measure and filters: `months` whole months ending at the last complete
month (over before today and covered by the data to its last day; the partial month after
it is named and left out). What each question was meant to cover is kept in the output's
meta, so the result checks can tell when the answer covers something else.
"""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from vitrina.language.periods.calendar import add_months, labels, month_end
from vitrina.language.periods.compare import previous_period
from vitrina.present.answer_text import write_answer
from vitrina.present.infer_meta import infer_metas
from vitrina.present.numbers import format_date, month_label
from vitrina.present.summary import summarize
from vitrina.query import PeriodRef, QueryPlan
from vitrina.query.reshape import prune_joins
from vitrina.task.coverage import data_end
from vitrina.task.horizon import last_complete_month, months_between
from vitrina.task.messages import text
from vitrina.task.partial import labels as partial_labels
from vitrina.task.partial import partial_buckets
from vitrina.task.state import ToolOutput
from vitrina.task.tools.base import Tool, ToolEnv, ToolError
from vitrina.warehouse import QueryResult

MAX_SERIES_MONTHS = 60
Unit = Literal["year", "quarter", "month", "week", "period"]


class AskArgs(BaseModel):
    question: str = Field(
        "", max_length=2000, description="A business question in Russian or English."
    )
    shift_from_step: int | None = Field(
        None,
        description="Rule templates: repeat step N's question for the "
        "period `unit` before (`years` years for a year).",
    )
    unit: Unit = Field(
        "year", description="shift_from_step: year, quarter, month, week or period (its length)."
    )
    years: int = Field(1, ge=1, le=10)
    start: date | None = Field(
        None, description="shift_from_step: the compared period's first day, when named."
    )
    end: date | None = Field(
        None, description="shift_from_step: the compared period's last day, when named."
    )
    series_from_step: int | None = Field(
        None,
        description="Rule templates: step N's measure by month, "
        "`months` months ending at the last complete month.",
    )
    months: int = Field(24, ge=3, le=MAX_SERIES_MONTHS)
    plan: dict[str, Any] | None = Field(
        None,
        description="Set by a redo in rules mode: the step's plan with the period, breakdown "
        "or grain the comment asked for, run as it is.",
    )
    topic: str | None = Field(
        None, max_length=200, description="A clarification's answer: the subject area (topic id)."
    )
    segment: str | None = Field(
        None, max_length=200, description="A clarification's answer: the client segment."
    )


def _source(env: ToolEnv, n: int, *, period: bool) -> tuple[dict, QueryPlan]:
    """Step N's meta and the rule plan its answer ran: what a derived step changes."""
    meta = env.step_table(n).meta
    if not meta.get("question") or (period and not meta.get("start")):
        raise ToolError(f"step {n} is not an answered question{' with a period' if period else ''}")
    if not meta.get("plan"):
        raise ToolError(
            f"step {n} was answered by a model's SQL, not by a plan: its period and breakdown "
            "cannot be changed exactly; ask the derived question as a step of its own"
        )
    return meta, QueryPlan.model_validate(meta["plan"])


def _period(start: date, end: date) -> PeriodRef:
    label_ru, label_en = labels(start, end)
    return PeriodRef(start=start, end=end, label_ru=label_ru, label_en=label_en)


def derived_plan(env: ToolEnv, args: AskArgs) -> tuple[QueryPlan, str, dict] | None:
    """The plan of a derived step (an earlier step's plan, changed), the words of its answer,
    and what it must cover (for the result checks); None for a step with its own question.

    The earlier step's plan keeps every part the user asked for (measure, breakdown, filters,
    conditions); only the period (shift) or the breakdown and grain (series) change. No
    sentence is edited: "по платёжным системам" stays the breakdown it was."""
    if args.shift_from_step is not None:
        meta, plan = _source(env, args.shift_from_step, period=True)
        start, end = date.fromisoformat(meta["start"]), date.fromisoformat(meta["end"])
        if args.start is not None and args.end is not None:  # a period the request named
            start, end = args.start, args.end
        else:
            for _ in range(args.years if args.unit == "year" else 1):
                start, end = previous_period(start, end, args.unit)
        moved = plan.model_copy(update={"period": _period(start, end), "compared": None})
        return (
            moved,
            meta["question"],
            {
                "kind": "shifted",
                "asked_start": start.isoformat(),
                "asked_end": end.isoformat(),
                "unit": args.unit,
            },
        )
    if args.series_from_step is not None:
        meta, plan = _source(env, args.series_from_step, period=False)
        return _series(env, args, meta, plan)
    return None


def _series(
    env: ToolEnv, args: AskArgs, meta: dict, plan: QueryPlan
) -> tuple[QueryPlan, str, dict]:
    """Step N's measure and filters by month, `months` whole months to the last complete one."""
    last_day = data_end(meta.get("sql"), env.ctx, env.trace)
    last = last_complete_month(env.ctx.today, last_day)
    first = add_months(last, -(args.months - 1))
    end = month_end(last.year, last.month)
    series = plan.model_copy(
        update={
            "dimensions": [],
            "grain": "month",
            "period": _period(first, end),
            "order": None,
            "limit": None,
            "compared": None,
        }
    )
    series = prune_joins(series, env.ctx.catalog)  # a dropped breakdown's join drops no rows
    expected = {
        "kind": "series",
        "asked_start": first.isoformat(),
        "asked_end": end.isoformat(),
        "months": [m.isoformat() for m in months_between(first, last)],
        "data_end": last_day.isoformat() if last_day else None,
    }
    partial = months_between(add_months(last, 1), env.ctx.today)  # after it, to today's month
    if partial:
        running = partial[0] <= env.ctx.today <= month_end(partial[0].year, partial[0].month)
        why = (
            text("partial_today", env.lang)
            if running or last_day is None
            else text("partial_data", env.lang, end=format_date(last_day, env.lang))
        )
        names = ", ".join(month_label(m.year, m.month, env.lang) for m in partial)
        expected["partial"] = text("partial_month", env.lang, month=names, why=why)
    return series, meta["question"], expected


def _run(env: ToolEnv, args: AskArgs) -> tuple[Any, str, dict]:
    """The step's answer: a derived step's plan through `run_plan`, else its own question."""
    policy = env.ctx.policy
    derived = derived_plan(env, args)
    if derived is not None:
        if env.ctx.run_plan is None:
            raise ToolError("the ask pipeline cannot run a plan here")
        plan, question, expected = derived
        env.trace.branch("derived step handed to ask as a plan", kind=expected["kind"])
        extra = {"policy": policy} if policy else {}
        return env.ctx.run_plan(plan, question=question, lang=env.lang, **extra), question, expected
    if args.plan is not None:  # a redo changed the plan the step's answer ran
        if env.ctx.run_plan is None:
            raise ToolError("the ask pipeline cannot run a plan here")
        plan = prune_joins(QueryPlan.model_validate(args.plan), env.ctx.catalog)
        extra = {"policy": policy} if policy else {}
        question = args.question.strip()
        env.trace.branch("redone step handed to ask as its changed plan")
        result = env.ctx.run_plan(plan, question=question, lang=env.lang, **extra)
        return result, question, {"kind": "data"}
    if not args.question.strip():
        raise ToolError("ask needs a question")
    question = args.question.strip()
    chosen = {k: v for k, v in (("topics", [args.topic] if args.topic else None),
                                 ("segment", args.segment)) if v}  # fmt: skip
    result = (
        env.ctx.ask(question, policy=policy, **chosen)
        if policy
        else env.ctx.ask(question, **chosen)
    )
    return result, question, {"kind": "data"}


def ask(env: ToolEnv, args: AskArgs) -> ToolOutput:
    if env.ctx.ask is None:
        raise ToolError("the ask pipeline is not available")
    result, question, expected = _run(env, args)
    env.trace.branch("ask pipeline", question=question, status=result.status, rows=result.row_count)
    if result.status == "clarification" and result.clarification:
        return _clarification(env, question, result.clarification)
    if result.status != "answered":
        raise ToolError(f"ask {result.status}: {result.answer or ''}".strip())
    period = result.period or {}
    files = []
    for found in (result.excel, result.chart_png):
        if found and Path(found).is_file():  # the ask run's files, copied next to the step's table
            target = env.folder / f"ask-{env.seq}{Path(found).suffix}"
            shutil.copyfile(found, target)
            files.append(str(target))
    rows, summary = list(result.rows), result.answer or ""
    if expected["kind"] == "data" and period.get("start") and period.get("end"):
        rows, summary, expected = _whole_buckets(env, result, rows, summary, expected)
    meta = {
        "question": result.rewritten_question or question,
        "sql": result.sql,
        "span": period.get("span"),
        "start": period.get("start"),
        "end": period.get("end"),
        "label": period.get(f"label_{env.lang}"),
        "label_ru": period.get("label_ru"),
        "label_en": period.get("label_en"),
        "topic": result.topic,
        "checks": result.checks,
        "plan": result.plan,  # what a derived step changes (`derived_plan`)
        **expected,
    }
    if expected.get("partial"):
        summary = f"{summary} {expected['partial']}.".strip()
    return env.table_output("ask", "ask", result.columns, rows, summary, files=files, meta=meta)


def _clarification(env: ToolEnv, question: str, clarification: dict[str, Any]) -> ToolOutput:
    """The step's question needs an answer the pipeline cannot guess (which subject, which
    segment): a failed output that carries the clarification, so the page offers its options as
    buttons (a choice reruns the step with it); the error names the question, not the options."""
    labels = [str(o.get("label") or o.get("id")) for o in clarification.get("options") or []]
    either = " или " if env.lang == "ru" else " or "
    error = text("step_clarify", env.lang, question=question[:300], options=either.join(labels))
    env.trace.branch(
        "step question needs a clarification",
        kind=clarification.get("kind"),
        options=[o.get("id") for o in clarification.get("options") or []],
    )
    return ToolOutput(
        tool="ask",
        ok=False,
        summary=error,
        error=error,
        meta={"question": question, "clarification": clarification},
    )


def _whole_buckets(
    env: ToolEnv, result: Any, rows: list[Any], summary: str, expected: dict
) -> tuple[list[Any], str, dict]:
    """The series without its partial months (quarters, ...) at the ends, and its answer
    rewritten by code for what is left; the partial ones are named."""
    period = result.period
    last_day = data_end(result.sql, env.ctx, env.trace)
    found = partial_buckets(
        result.columns,
        rows,
        date.fromisoformat(period["start"]),
        date.fromisoformat(period["end"]),
        last_day,
        env.ctx.today,
    )
    if found is None:
        return rows, summary, expected
    index, grain, partial = found
    kept = [r for r in rows if r[index] not in partial]
    env.trace.rejected(
        "partial periods left out of the series", grain=grain, periods=[str(p) for p in partial]
    )
    note = text(
        "partial_month",
        env.lang,
        month=partial_labels(partial, grain, env.lang),
        why=text("partial_edges", env.lang),
    )
    table = QueryResult(columns=result.columns, rows=[tuple(r) for r in kept])
    metas = infer_metas(table, env.ctx.catalog, [], grain) if env.ctx.catalog is not None else []
    if kept and metas:
        summary = write_answer(env.lang, table, metas, summarize(table, metas))
    return (
        kept,
        summary,
        {**expected, "partial": note, "left_out": [p.isoformat() for p in partial]},
    )


TOOL = Tool(
    "ask",
    "Answer a business question from the warehouse (the full ask pipeline: checked SQL, a "
    "table, Excel and a chart); the result becomes this step's table.",
    ask,
    AskArgs,
)
