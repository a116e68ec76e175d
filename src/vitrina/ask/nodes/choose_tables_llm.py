"""Model path, table selection: candidates retrieved by similarity, the model picks from
short descriptions, code adds the joins, required tables and the segment's table."""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.llm import tasks
from vitrina.ask.llm.context import connect, period_text
from vitrina.ask.state import AskState
from vitrina.catalog.context_text import build_sql_context
from vitrina.catalog.retrieval import rank_tables
from vitrina.trace import Trace

CANDIDATES = 12


def choose_tables_llm(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("choose_tables_llm")
    ctx = runtime.context
    catalog = ctx.catalog
    question = state["rewritten"]
    ranked = [
        r.name
        for r in rank_tables(question, catalog, k=CANDIDATES, settings=ctx.settings, trace=trace)
    ]
    topic_tables = (
        catalog.topics[state["topic"]].tables if state.get("topic") in catalog.topics else []
    )
    candidates = list(dict.fromkeys([*ranked, *topic_tables]))
    trace.measurement("candidate tables", tables=candidates)
    assert ctx.llm is not None
    chosen = tasks.choose_tables(
        ctx.llm,
        trace,
        question=question,
        notes=state.get("table_notes"),
        tables=[{"name": t, "description": catalog.tables[t].description} for t in candidates],
    )
    if not chosen:
        chosen = topic_tables[:1] or candidates[:1]
        trace.suppressed("model chose no tables: the topic's main table is used", tables=chosen)
    extra = []
    if state.get("resolved_segment") and catalog.info.segment_column:
        extra.append(catalog.info.segment_column.rsplit(".", 1)[0])
    tables, joins = connect(catalog, chosen, extra)
    trace.branch(
        "tables chosen by the model, joins added by code",
        chosen=chosen,
        tables=tables,
        joins=[f"{j.left_table}.{j.left_column}={j.right_table}.{j.right_column}" for j in joins],
    )
    options = ctx.options
    period = state.get("period")
    common = {
        "period_label": period_text(period),
        "topic": state.get("topic"),
        "instructions": options.instructions,
        "examples": options.examples,
    }
    context = {
        "tables": tables,
        "joins": joins,
        "schema_text": build_sql_context(question, catalog, tables, full=False, **common),
        "full_schema_text": build_sql_context(question, catalog, tables, full=True, **common),
    }
    return {"llm_tables": tables, "context": context, "trace": trace.events}
