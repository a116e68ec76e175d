"""Execute the chosen warehouse plan through the ask job's compiler, guard and executor,
then build the outputs the ask job builds: answer text, table, chart and Excel."""

from __future__ import annotations

import uuid

from langgraph.runtime import Runtime

from vitrina.ask import QueryPlan, column_metas, compile_plan
from vitrina.present.answer_text import write_answer
from vitrina.present.charts import safe_chart
from vitrina.present.excel import write_excel
from vitrina.present.numbers import unverified_numbers
from vitrina.present.summary import summarize
from vitrina.present.table import render_table
from vitrina.route.context import PREVIEW_ROWS, RouteContext
from vitrina.route.messages import text
from vitrina.route.state import RouteState
from vitrina.sql.guard import guard_with_catalog
from vitrina.trace import Trace
from vitrina.warehouse import WarehouseError


def execute_report(state: RouteState, runtime: Runtime[RouteContext]) -> dict:
    trace = Trace("execute_report")
    ctx = runtime.context
    lang = state.get("lang", "ru")
    chosen = state["chosen"] or {}
    row = next(r for r in state.get("candidates", []) if r["id"] == chosen.get("id"))
    plan = QueryPlan.model_validate(row["plan"])
    sql = compile_plan(plan, ctx.catalog, ctx.dialect)
    checked = guard_with_catalog(sql, ctx.catalog, dialect=ctx.dialect, row_cap=ctx.settings.row_cap)
    if not checked.ok:
        reason = "; ".join(v.message_en for v in checked.violations)
        trace.rejected("chosen plan rejected by the guard", violations=[v.rule for v in checked.violations])
        return _failed(lang, reason, trace)
    try:
        result = ctx.warehouse.execute(checked.sql)
    except WarehouseError as exc:
        trace.error("report query failed", kind=exc.kind, error=str(exc))
        return _failed(lang, str(exc), trace)
    trace.measurement("report executed", rows=result.row_count, ms=result.elapsed_ms, plan=row["id"])
    if result.truncated:
        trace.rejected("rows beyond the row cap dropped", row_cap=ctx.settings.row_cap)
    metas = column_metas(plan, ctx.catalog)
    period_label = plan.period.label(lang) if plan.period else ("всё время" if lang == "ru" else "all time")
    topic_label = ctx.catalog.topics[plan.topic].name(lang) if plan.topic in ctx.catalog.topics else plan.topic
    view = render_table(result, metas, lang, limit=ctx.settings.table_preview_rows or PREVIEW_ROWS)
    notes = [*plan.notes, *([view.note] if view.note else [])]
    body = write_answer(lang, result, metas, summarize(result, metas), period_label=period_label,
                        topic_label=topic_label, notes=notes)
    invented = unverified_numbers(body, result, metas, texts=[period_label, topic_label, *notes])
    if invented:
        trace.rejected("answer text held numbers not in the data: table only", numbers=[str(n) for n in invented])
        body = view.note or ""
    run_id = uuid.uuid4().hex[:12]
    run_dir = (ctx.outputs_dir or ctx.settings.outputs_dir) / f"report-{run_id}"
    excel = None
    if ctx.write_files:
        run_dir.mkdir(parents=True, exist_ok=True)
        try:
            excel = str(write_excel(result, metas, run_dir / "report.xlsx", lang=lang, sheet_title=topic_label,
                                    question=chosen.get("question", state.get("request", "")), sql=checked.sql,
                                    period_label=period_label))
        except OSError as exc:
            trace.suppressed("Excel file not written", error=str(exc))
    spec, png, chart_events = safe_chart(result, metas, lang, png_path=run_dir / "chart.png" if ctx.write_files else None,
                                         node="execute_report")
    report = {"target": "warehouse", "plan": row["id"], "label": row["label"], "sql": checked.sql,
              "columns": result.columns, "rows": [list(r) for r in result.rows], "row_count": result.row_count,
              "table": view.model_dump(), "chart": spec, "chart_png": str(png) if png else None, "excel": excel,
              "run_id": run_id}
    return {"status": "answered", "answer": body, "report": report, "trace": [*trace.events, *chart_events]}


def _failed(lang: str, reason: str, trace: Trace) -> dict:
    return {"status": "failed", "answer": text("report_failed", lang, reason=reason), "report": None,
            "trace": trace.events}
