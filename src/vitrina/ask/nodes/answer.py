"""Answer: text in the question's language, a table preview and a chart spec.

The Excel file and the chart PNG are not made here: the node stores what they need
(`outputs`: labels and the chart decision) and `vitrina.ask.outputs` writes them when
someone asks for them.

Numbers come only from data: the rule text is written by code from the result and its
summary. A model, when configured, may word the answer from rows (JSON) and figures that
code already computed and formatted (only for a turn the model planned, or with
`llm_always`: a question the rules read fully sends no request, decision 174); its text
is checked and any number that the data does not hold rejects it in favour of the rule
text. When the chart rules find nothing,
a model may propose axes; a proposal naming a column that does not exist is rejected.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.followup import snapshot
from vitrina.ask.llm import tasks
from vitrina.ask.slots import wording_slot_open
from vitrina.ask.state import AskState
from vitrina.present.answer_text import write_answer
from vitrina.present.charts import ChartDecision, decide_chart
from vitrina.present.columns import ColumnMeta
from vitrina.present.comparison import Labels, comparison_text
from vitrina.present.numbers import format_date, format_value, unverified_numbers
from vitrina.present.summary import ResultSummary, summarize
from vitrina.present.table import render_table
from vitrina.query.messages import text
from vitrina.query.plan import PeriodRef, QueryPlan
from vitrina.query.understand import read_question
from vitrina.trace import Trace, TraceEvent
from vitrina.warehouse.result import QueryResult

MODEL_ROWS = 30  # rows of the result a model sees when it words the answer


def _figures(summary: ResultSummary, metas: list[ColumnMeta], lang: str) -> dict[str, Any]:
    """Totals, minimum and maximum computed by code, already formatted for copying."""
    by_name = {m.name: m for m in metas}
    figures: dict[str, Any] = {"rows": summary.row_count}
    for name, stats in summary.metrics.items():
        meta = by_name[name]
        figures[meta.label(lang)] = {
            key: format_value(value, meta, lang)
            for key, value in (("total", stats.total), ("min", stats.min), ("max", stats.max))
            if value is not None
        }
    return figures


def _model_answer(
    state: AskState,
    ctx: AskContext,
    trace: Trace,
    result: QueryResult,
    metas: list[ColumnMeta],
    summary: ResultSummary,
    period_label: str,
    trusted: list[str],
) -> str | None:
    assert ctx.llm is not None
    lang = state["lang"]
    rows = [
        {m.label(lang): format_value(v, m, lang) for v, m in zip(row, metas, strict=False)}
        for row in result.rows[:MODEL_ROWS]
    ]
    worded = tasks.write_answer(
        ctx.llm,
        trace,
        question=state["rewritten"],
        lang=lang,
        period=period_label,
        rows=rows,
        figures=_figures(summary, metas, lang),
    )
    if worded is None:
        return None
    invented = unverified_numbers(worded, result, metas, texts=trusted, lang=lang, summary=summary)
    if invented:
        trace.rejected(
            "the model's answer holds numbers not in the data: rule answer used",
            numbers=[str(n) for n in invented],
        )
        return None
    return worded


def _chart(
    state: AskState, ctx: AskContext, result: QueryResult, metas: list[ColumnMeta]
) -> tuple[dict | None, ChartDecision | None, list[TraceEvent]]:
    lang = state["lang"]
    if ctx.options.chart == "off":
        return None, None, []
    spec, decided, events = decide_chart(result, metas, lang)
    if (
        spec is not None
        or ctx.llm is None
        or not wording_slot_open(state, ctx)
        or ctx.options.chart == "rules"
        or not result.rows
    ):
        return spec, decided, events
    trace = Trace("chart")
    proposal = tasks.propose_chart(
        ctx.llm,
        trace,
        question=state["rewritten"],
        columns=result.columns,
        rows=[list(r) for r in result.rows[:MODEL_ROWS]],  # what a model sees, not a million
    )
    if proposal is None:
        return spec, decided, [*events, *trace.events]
    decision = ChartDecision(
        kind=proposal.kind,
        x=proposal.x,
        x_columns=[proposal.x],
        y_columns=proposal.y,
        reason="proposed by the model",
        order="x" if proposal.kind == "line" else "desc",
    )
    spec, decided, more = decide_chart(result, metas, lang, decision=decision)
    return spec, decided, [*events, *trace.events, *more]


def scope_note(plan: QueryPlan, lang: str) -> str | None:
    """What the numbers are restricted to, every filter and the date used, in the question's
    language: a filter nobody asked for is visible instead of silent."""
    parts = []
    for flt in plan.filters:
        values = flt.shown_values(lang)
        label = flt.label_ru if lang == "ru" else flt.label_en
        sign = ("кроме" if lang == "ru" else "except") if flt.exclude else "="
        parts.append(f"{label} {sign} {', '.join(values)}")
    for flt in plan.share_filters:  # "доля ... на Москву": the part the share is of
        values = flt.shown_values(lang)
        label = flt.label_ru if lang == "ru" else flt.label_en
        prefix = "доля от всего: " if lang == "ru" else "share of the total: "
        parts.append(f"{prefix}{label} = {', '.join(values)}")
    parts += [comp.text(lang) for comp in plan.comparisons]
    date_label = plan.date_label_ru if lang == "ru" else plan.date_label_en
    if date_label and (plan.period or plan.grain or plan.day_kind):
        parts.append(("по дате: " if lang == "ru" else "by date: ") + date_label.lower())
    if plan.day_kind:
        parts.append(DAY_KIND_LABELS[plan.day_kind][0 if lang == "ru" else 1])
    if not parts:
        return None
    return ("Учтено: " if lang == "ru" else "Applied: ") + "; ".join(parts) + "."


DAY_KIND_LABELS = {
    "weekend": ("только выходные дни", "weekends only"),
    "weekday": ("только будние дни", "weekdays only"),
}


def _compared_body(
    plan: QueryPlan, result: QueryResult, metas: list, lang: str, notes: list[str]
) -> tuple[str, list[str]]:
    """Two periods: both values, the change and the change in percent, per metric (the
    sentences of `present.comparison`, which the route report writes too)."""
    assert plan.period is not None and plan.compared is not None
    labels = Labels(
        plan.period.label_ru, plan.period.label_en, plan.compared.label_ru, plan.compared.label_en
    )
    sentences, figures = comparison_text(lang, result, metas, labels)
    return " ".join([sentences, *notes]).strip(), figures


def _notes(
    state: AskState,
    plan: QueryPlan | None,
    period: PeriodRef | None,
    view_note: str | None,
    lang: str,
) -> list[str]:
    """The sentences that go with any answer: the checks worth saying, the plan's own notes,
    what the numbers are restricted to, the period's and the table preview's notes."""
    notes = [
        c["message"]
        for c in state.get("checks", [])
        if c["check"] in ("clarification_limit", "nothing_to_continue", "partial_period")
    ]
    notes += plan.notes if plan else []
    scope = scope_note(plan, lang) if plan else None
    if scope:
        notes.append(scope)
    if period and period.note:
        notes.append(period.note)
    if view_note:
        notes.append(view_note)
    return notes


def _no_data_body(
    no_data: dict, plan: QueryPlan | None, lang: str, period_label: str, topic_label: str
) -> tuple[str, list[str]]:
    """The answer when the result is empty or all null, and the texts it adds to the trusted
    ones (the span of dates the topic holds, when the check found it)."""
    conditioned = bool(plan and plan.comparisons)
    body = text("empty_conditioned" if conditioned else "empty", lang, period=period_label)
    if not no_data.get("data_from"):
        return body, []
    span = text(
        "data_range",
        lang,
        topic=topic_label,
        start=format_date(no_data["data_from"], lang),
        end=format_date(no_data["data_to"], lang),
    )
    return f"{body} {span}", [span]


def _with_notices(
    body: str, lead: str | None, checks: list[dict], ctx: AskContext, lang: str
) -> tuple[str, list[dict]]:
    """What code says after the number check: the bank query's lead before the body, then
    what the catalog could not settle and the row policy (which is not data) after it; the
    policy also becomes a check."""
    if lead:
        body = f"{lead}\n\n{body}" if body else lead
    caveats = [c["message"] for c in checks if c["check"] == "meaning"]
    if caveats:
        note = ("Проверьте: " if lang == "ru" else "Check: ") + "; ".join(caveats) + "."
        body = f"{body}\n\n{note}" if body else note
    if ctx.policy:
        notice = text("policy_applied", lang, policy=ctx.policy.describe(lang))
        body = f"{body}\n\n{notice}" if body else notice
        checks = [*checks, {"check": "row_policy", "message": notice}]
    return body, checks


def answer(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("answer")
    ctx = runtime.context
    lang = state["lang"]
    result = state["result"]
    plan = state.get("plan")
    metas = state["columns_meta"]
    assert result is not None
    period = plan.period if plan else state.get("period")
    topic = plan.topic if plan else state.get("topic") or ""
    period_label = period.label(lang) if period else text("all_time", lang)
    topic_label = ctx.catalog.topics[topic].name(lang) if topic in ctx.catalog.topics else topic
    view = render_table(result, metas, lang, limit=ctx.settings.table_preview_rows)
    notes = _notes(state, plan, period, view.note, lang)
    lead = (state.get("verified") or {}).get("text")  # which bank query answered (decision 196)
    trusted = [period_label, topic_label, *notes, *([lead] if lead else [])]
    no_data = next(
        (c for c in state.get("checks", []) if c["check"] in ("empty", "all_null")), None
    )
    with trace.timed("answer written"):
        summary = summarize(result, metas)
        if no_data:
            body, said = _no_data_body(no_data, plan, lang, period_label, topic_label)
            trusted += said
        elif plan is not None and plan.compared is not None and plan.period is not None:
            body, figures = _compared_body(plan, result, metas, lang, notes)
            trusted += figures
        else:
            body = write_answer(
                lang,
                result,
                metas,
                summary,
                period_label=period_label,
                topic_label=topic_label,
                notes=notes,
            )
            # a bank answer is worded by code: its lead names the query, no request needed
            if wording_slot_open(state, ctx) and ctx.options.answer_writer == "auto" and not lead:
                body = (
                    _model_answer(state, ctx, trace, result, metas, summary, period_label, trusted)
                    or body
                )
    invented = unverified_numbers(body, result, metas, texts=trusted, lang=lang, summary=summary)
    if invented:
        trace.rejected(
            "answer text held numbers not in the data: table-only answer used",
            numbers=[str(n) for n in invented],
        )
        body = view.note or ""
    body, checks = _with_notices(body, lead, state.get("checks", []), ctx, lang)
    spec, decision, chart_events = _chart(state, ctx, result, metas)
    outputs = {
        "lang": lang,
        "sheet_title": topic_label,
        "question": state["rewritten"],
        "sql": state["sql"] or "",
        "period_label": period_label,
        "chart_decision": decision.model_dump(mode="json")
        if spec is not None and decision
        else None,
    }
    reading = read_question(state["rewritten"], ctx.catalog)
    span = state.get("compare_span") or (period.span if period else None)  # both periods
    snap = snapshot(state["rewritten"], span, reading.grain_span)
    turn = {
        "question": state["question"],
        "rewritten": state["rewritten"],
        "topic": topic,
        "sql": state["sql"],
        "period": period.label(lang) if period else None,
        "run_id": state["run_id"],
        "snapshot": snap,
    }
    return {
        "status": "answered",
        "answer": body,
        "table": view.model_dump(),
        "chart": spec,
        "outputs": outputs,
        "checks": checks,
        "history": [turn],
        "trace": [*trace.events, *chart_events],
    }
