"""Answer: text in the question's language, a table preview, a chart and an Excel file.

Numbers come only from data: the text is written by code from the result and its
summary, then checked; a number the data does not hold is never shown (LLM slot: an
answer writer may word the text, and the same check rejects invented numbers).
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.ask.answer_text import write_answer
from vitrina.ask.charts import safe_chart
from vitrina.ask.context import AskContext
from vitrina.ask.export import write_excel
from vitrina.ask.followup import snapshot
from vitrina.ask.messages import text
from vitrina.ask.numbers import format_date, unverified_numbers
from vitrina.ask.state import AskState
from vitrina.ask.summary import summarize
from vitrina.ask.table import render_table
from vitrina.ask.understand import read_question
from vitrina.trace import Trace


def answer(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("answer")
    ctx = runtime.context
    lang = state["lang"]
    result = state["result"]
    plan = state["plan"]
    metas = state["columns_meta"]
    assert result is not None and plan is not None
    period_label = plan.period.label(lang) if plan.period else text("all_time", lang)
    topic_label = ctx.catalog.topics[plan.topic].name(lang)
    view = render_table(result, metas, lang, limit=ctx.settings.table_preview_rows)
    notes = [c["message"] for c in state.get("checks", []) if c["check"] == "clarification_limit"]
    notes += plan.notes
    if plan.period and plan.period.note:
        notes.append(plan.period.note)
    if view.note:
        notes.append(view.note)
    trusted = [period_label, topic_label, *notes]
    no_data = next((c for c in state.get("checks", []) if c["check"] in ("empty", "all_null")), None)
    with trace.timed("answer written"):
        summary = summarize(result, metas)
        if no_data:
            body = text("empty", lang, period=period_label)
            if no_data.get("data_from"):
                span = text("data_range", lang, topic=topic_label, start=format_date(no_data["data_from"], lang),
                            end=format_date(no_data["data_to"], lang))
                body = f"{body} {span}"
                trusted.append(span)
        else:
            body = write_answer(lang, result, metas, summary, period_label=period_label, topic_label=topic_label,
                                notes=notes)
    invented = unverified_numbers(body, result, metas, texts=trusted)
    if invented:
        trace.rejected("answer text held numbers not in the data: table-only answer used",
                       numbers=[str(n) for n in invented])
        body = view.note or ""
    chart_png = None
    run_dir = (ctx.outputs_dir or ctx.settings.outputs_dir) / state["run_id"]
    excel = None
    if ctx.write_files:
        run_dir.mkdir(parents=True, exist_ok=True)
        try:
            excel = str(write_excel(result, metas, run_dir / "result.xlsx", lang=lang, sheet_title=topic_label,
                                    question=state["rewritten"], sql=state["sql"] or "",
                                    period_label=period_label))
        except OSError as exc:
            trace.suppressed("Excel file not written", error=str(exc))
    spec, png, chart_events = safe_chart(result, metas, lang,
                                         png_path=run_dir / "chart.png" if ctx.write_files else None)
    if png:
        chart_png = str(png)
    reading = read_question(state["rewritten"], ctx.catalog)
    snap = snapshot(state["rewritten"], plan.period.span if plan.period else None, reading.grain_span)
    turn = {"question": state["question"], "rewritten": state["rewritten"], "topic": plan.topic,
            "sql": state["sql"], "period": plan.period.label(lang) if plan.period else None,
            "run_id": state["run_id"], "snapshot": snap}
    return {"status": "answered", "answer": body, "table": view.model_dump(), "chart": spec,
            "chart_png": chart_png, "excel": excel, "history": [turn], "trace": [*trace.events, *chart_events]}
