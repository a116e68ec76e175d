"""Execute the chosen warehouse plan through the ask job's own entry point (`run_plan`):
compile, guard and EXPLAIN, deterministic checks, execution, result checks, the answer,
table, chart and Excel, exactly as ask runs its own plans.

A comparison runs the same plan for the compared period too; the two checked results are
put side by side (`vitrina.present.comparison`) with the change and the change in percent.
"""

from __future__ import annotations

import uuid
from datetime import date
from typing import Any

from langgraph.runtime import Runtime

from vitrina.language.periods.calendar import add_months
from vitrina.present.charts import safe_chart
from vitrina.present.comparison import CHANGE, PCT, Labels, compare_results, comparison_text
from vitrina.present.excel import write_excel
from vitrina.present.numbers import as_date, unverified_numbers
from vitrina.present.table import render_table
from vitrina.query import PeriodRef, QueryPlan, column_metas, last_day_reader, partial_checks
from vitrina.route.context import PREVIEW_ROWS, RouteContext
from vitrina.route.messages import text
from vitrina.route.state import RouteState
from vitrina.trace import Trace
from vitrina.warehouse import QueryResult


def execute_report(state: RouteState, runtime: Runtime[RouteContext]) -> dict:
    trace = Trace("execute_report")
    ctx = runtime.context
    lang = state.get("lang", "ru")
    chosen = state["chosen"] or {}
    row = next(r for r in state.get("candidates", []) if r["id"] == chosen.get("id"))
    if ctx.run_plan is None:
        trace.error("no ask service configured: the report cannot run")
        return _failed(lang, "ask service is not configured", trace)
    plan = QueryPlan.model_validate(row["plan"])
    question = chosen.get("question") or state.get("request", "")
    current = ctx.run_plan(plan, question=question, lang=lang)
    trace.branch(
        "report run through the ask job",
        plan=row["id"],
        status=current.status,
        run_id=current.run_id,
    )
    if current.status != "answered":
        return _failed(lang, current.answer or current.status, trace, current)
    if row.get("previous") is None:
        report = {
            "target": "warehouse",
            "plan": row["id"],
            "label": row["label"],
            "sql": current.sql,
            "columns": current.columns,
            "rows": current.rows,
            "row_count": current.row_count,
            "table": current.table,
            "chart": current.chart,
            "chart_png": current.chart_png,
            "excel": current.excel,
            "checks": current.checks,
            "run_id": current.run_id,
        }
        return {
            "status": "answered",
            "answer": current.answer,
            "report": report,
            "trace": trace.events,
        }
    prior = PeriodRef.model_validate(row["previous"])
    previous = ctx.run_plan(plan.model_copy(update={"period": prior}), question=question, lang=lang)
    trace.branch(
        "compared period run through the ask job",
        period=prior.label_en,
        status=previous.status,
        run_id=previous.run_id,
    )
    if previous.status != "answered":
        return _failed(lang, previous.answer or previous.status, trace, previous)
    return _comparison(state, ctx, row, plan, prior, current, previous, trace)


def _comparison(
    state: RouteState,
    ctx: RouteContext,
    row: dict,
    plan: QueryPlan,
    prior: PeriodRef,
    current: Any,
    previous: Any,
    trace: Trace,
) -> dict:
    lang = state.get("lang", "ru")
    assert plan.period is not None
    labels = Labels(plan.period.label_ru, plan.period.label_en, prior.label_ru, prior.label_en)
    merged, metas = compare_results(
        QueryResult(columns=current.columns, rows=[tuple(r) for r in current.rows]),
        QueryResult(columns=previous.columns, rows=[tuple(r) for r in previous.rows]),
        column_metas(plan, ctx.catalog),
        labels,
        align=_align(plan.period, prior),
    )
    body, figures = comparison_text(lang, merged, metas, labels)
    # a period the data end inside, named and flagged as ask does (vitrina.ask.partial_checks)
    last_day = last_day_reader(ctx.warehouse, ctx.catalog, trace, getattr(ctx, "policy", None))
    partial = partial_checks(plan, last_day, lang, periods=[plan.period, prior])
    for check in partial:
        trace.warning(check["message"], check=check["check"])
    body = " ".join([body, *(c["message"] + "." for c in partial)]).strip()
    view = render_table(merged, metas, lang, limit=ctx.settings.table_preview_rows or PREVIEW_ROWS)
    trusted = [
        labels.current(lang),
        labels.previous(lang),
        *figures,
        *(c["message"] for c in partial),
        *([view.note] if view.note else []),
    ]
    invented = unverified_numbers(body, merged, metas, texts=trusted, lang=lang)
    if invented:
        trace.rejected(
            "comparison text held numbers not in the data: table only",
            numbers=[str(n) for n in invented],
        )
        body = view.note or ""
    elif view.note:
        body = f"{body} {view.note}"
    trace.measurement(
        "periods compared",
        rows=merged.row_count,
        current=current.row_count,
        previous=previous.row_count,
    )
    run_dir = (ctx.outputs_dir or ctx.settings.outputs_dir) / f"report-{uuid.uuid4().hex[:12]}"
    sql = f"{current.sql}\n\n-- {labels.previous('en')}\n{previous.sql}"
    excel = None
    if ctx.write_files:
        run_dir.mkdir(parents=True, exist_ok=True)
        try:
            excel = str(
                write_excel(
                    merged,
                    metas,
                    run_dir / "report.xlsx",
                    lang=lang,
                    sheet_title=row["label"][:31],
                    question=state.get("request", ""),
                    sql=sql,
                    period_label=labels.current(lang),
                )
            )
        except OSError as exc:
            trace.suppressed("Excel file not written", error=str(exc))
    plotted = [i for i, m in enumerate(metas) if not m.name.endswith((CHANGE, PCT))]
    chart_result = QueryResult(
        columns=[merged.columns[i] for i in plotted],
        rows=[tuple(r[i] for i in plotted) for r in merged.rows],
    )
    spec, png, chart_events = safe_chart(
        chart_result,
        [metas[i] for i in plotted],
        lang,
        png_path=run_dir / "chart.png" if ctx.write_files else None,
        node="execute_report",
    )
    checks = [{**c, "period": "current"} for c in current.checks] + [
        {**c, "period": "previous"} for c in previous.checks
    ]
    checks += partial
    report = {
        "target": "warehouse",
        "plan": row["id"],
        "label": row["label"],
        "sql": sql,
        "columns": merged.columns,
        "rows": [list(r) for r in merged.rows],
        "row_count": merged.row_count,
        "table": view.model_dump(),
        "chart": spec,
        "chart_png": str(png) if png else None,
        "excel": excel,
        "checks": checks,
        "run_id": current.run_id,
        "run_ids": [current.run_id, previous.run_id],
        "compared_with": prior.model_dump(mode="json"),
    }
    return {
        "status": "answered",
        "answer": body,
        "report": report,
        "trace": [*trace.events, *chart_events],
    }


def _align(current: PeriodRef, prior: PeriodRef) -> Any:
    """Maps a compared row's period value to the asked period's (May 2025 -> May 2026)."""
    months = (current.start.year - prior.start.year) * 12 + current.start.month - prior.start.month
    whole = current.start.day == prior.start.day == 1
    days = (current.start - prior.start).days

    def align(value: Any) -> Any:
        day = as_date(value)
        if day is None:
            return value
        return add_months(day, months) if whole else date.fromordinal(day.toordinal() + days)

    return align


def _failed(lang: str, reason: str, trace: Trace, result: Any = None) -> dict:
    if result is not None:
        trace.error(
            "the ask job did not answer the plan",
            status=result.status,
            run_id=result.run_id,
            checks=result.checks,
        )
    return {
        "status": "failed",
        "answer": text("report_failed", lang, reason=reason),
        "report": None,
        "trace": trace.events,
    }
