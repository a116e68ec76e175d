"""SQL generation.

Rules: compile the typed plan with sqlglot; a retry after an error switches to the
portable form of conditional aggregates. Model path: the model writes SQL plus an
explanation and a confidence from the pruned context; a retry gets the error and the full
schema of the chosen tables. When the model gives nothing usable, the rule plan answers
(when the rules have one) and the trace says so.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.llm import tasks
from vitrina.ask.nodes.select_tables import unexplained_refusal
from vitrina.ask.state import AskState
from vitrina.language.periods import period_offsets
from vitrina.query.compiler import column_metas, compile_plan
from vitrina.query.planner import build_plan
from vitrina.query.understand import read_question
from vitrina.trace import Trace


def _rules(state: AskState, ctx: AskContext, trace: Trace, attempt: int) -> dict:
    plan = state.get("plan")
    if plan is None:  # the model path failed: fall back to the rule plan of the same question
        unexplained = state.get("unexplained") or []
        if unexplained:
            trace.rejected(
                "model gave no usable SQL and the rules cannot read every word: not answered",
                words=unexplained,
            )
            return {
                "sql": None,
                "sql_attempts": attempt,
                "status": "refused",
                "trace": trace.events,
                "reason": unexplained_refusal(unexplained, ctx.catalog, state["lang"]),
            }
        period = state.get("period")
        reading = read_question(
            state["rewritten"],
            ctx.catalog,
            period_span=period_offsets(state["rewritten"], period.span if period else None),
        )
        outcome = build_plan(
            reading,
            ctx.catalog,
            topic=state["topic"],
            lang=state["lang"],
            period=period,
            segment=state.get("resolved_segment"),
            trace=trace,
            via=state.get("chosen", {}).get("join"),
        )
        if outcome.plan is None:
            return {
                "sql": None,
                "sql_attempts": attempt,
                "sql_error": "llm: no usable SQL and no rule plan",
                "trace": trace.events,
            }
        plan = outcome.plan
        trace.suppressed(
            "model gave no usable SQL: answered by the rule plan (may miss a condition)"
        )
    style = "filter" if attempt == 1 else "case"
    with trace.timed("compiled", attempt=attempt):
        sql = compile_plan(plan, ctx.catalog, ctx.dialect, filter_style=style)
    return {
        "sql": sql,
        "sql_attempts": attempt,
        "sql_source": "rules",
        "sql_error": None,
        "plan": plan,
        "mode": "rules",
        "columns_meta": column_metas(plan, ctx.catalog),
        "trace": trace.events,
    }


def generate_sql(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("generate_sql")
    ctx = runtime.context
    attempt = state.get("sql_attempts", 0) + 1
    error = state.get("sql_error")
    if error:
        trace.branch("retry after an error", attempt=attempt, error=error)
    if state.get("mode") != "llm" or ctx.llm is None:
        return _rules(state, ctx, trace, attempt)
    context = state["context"]
    draft = tasks.generate_sql(
        ctx.llm,
        trace,
        dialect=ctx.dialect,
        grain=state.get("grain"),
        context=context["full_schema_text"] if error else context["schema_text"],
        error=error,
        previous_sql=state.get("sql") or "",
    )
    if draft is None:
        return _rules(state, ctx, trace, attempt)
    trace.measurement(
        "model wrote SQL",
        attempt=attempt,
        sql=draft.sql,
        explanation=draft.explanation,
        confidence=draft.confidence,
    )
    return {
        "sql": draft.sql,
        "sql_attempts": attempt,
        "sql_source": "llm",
        "sql_error": None,
        "sql_explanation": draft.explanation,
        "sql_confidence": draft.confidence,
        "columns_meta": [],
        "trace": trace.events,
    }
