"""Table selection: metrics, dimensions and filters placed on tables; mandatory joins added.

Rules first: when the rules read the whole question, the rule plan is used. When the
question says more than the rules can read and a model is configured, the turn switches
to the model path (choose_tables_llm), with code still adding every join.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.messages import text
from vitrina.ask.plan import QueryPlan
from vitrina.ask.planner import build_plan, joined_vocabulary, metric_examples, plan_vocabulary
from vitrina.ask.state import AskState
from vitrina.ask.understand import (
    MODEL_THRESHOLD,
    Reading,
    read_question,
    restates,
    unexplained_words,
)
from vitrina.catalog import Catalog
from vitrina.language.periods import period_offsets
from vitrina.language.stopwords import QUESTION_STOPWORDS
from vitrina.trace import Trace


def unexplained_refusal(words: list[str], catalog: Catalog, lang: str) -> str:
    """The refusal that names the words nothing in the catalog explains."""
    quote = ("«{}»" if lang == "ru" else '"{}"').format
    return text(
        "unexplained",
        lang,
        words=", ".join(quote(w) for w in words),
        examples=metric_examples(catalog, lang),
    )


def dropped_metric_words(
    reading: Reading, plan: QueryPlan, catalog: Catalog, vocabulary: frozenset[str]
) -> list[str]:
    """Words of a metric named in the question that the plan could not use (it lives in
    another table): they asked for something the answer does not compute ("в среднем счетов
    на клиента" is not the average invoice), unless they restate the plan's own words or
    name a table it joins ("платежи картами Visa": the card table)."""
    out = []
    for match in reading.metrics:
        metric = catalog.metrics[match.phrase.target]
        if metric.id in plan.metrics or metric.table == plan.base_table:
            continue
        for word in reading.words[match.start : match.start + match.length]:
            if word.text not in QUESTION_STOPWORDS and not restates(word.text, vocabulary):
                out.append(word.text)
    return out


def select_tables(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("select_tables")
    ctx = runtime.context
    lang = state["lang"]
    period = state.get("period")
    question = state["rewritten"]
    reading = read_question(
        question, ctx.catalog, period_span=period_offsets(question, period.span if period else None)
    )
    if reading.unknown_names:
        trace.rejected(
            "names in the question match nothing in the catalog", names=reading.unknown_names
        )
        return {
            "status": "refused",
            "reason": text("unknown_value", lang, name=reading.unknown_names[0]),
            "trace": trace.events,
        }
    outcome = build_plan(
        reading,
        ctx.catalog,
        topic=state["topic"],
        lang=lang,
        period=period,
        segment=state.get("resolved_segment"),
        trace=trace,
        via=state.get("chosen", {}).get("join"),
    )
    vocabulary = plan_vocabulary(outcome.plan, ctx.catalog) if outcome.plan else frozenset()
    plan = outcome.plan
    unexplained = unexplained_words(
        reading,
        vocabulary,
        plan.topic if plan else None,
        joined_vocabulary(plan, ctx.catalog) if plan else frozenset(),
    )
    if plan is not None:
        known = vocabulary | joined_vocabulary(plan, ctx.catalog)
        unexplained += dropped_metric_words(reading, plan, ctx.catalog, known)
    if len(unexplained) >= MODEL_THRESHOLD:
        if ctx.llm is not None and not ctx.llm.down:
            trace.branch(
                "the rules cannot read the whole question: the model plans it", words=unexplained
            )
            return {"mode": "llm", "unexplained": unexplained, "trace": trace.events}
        trace.rejected(
            "words the rules cannot place and no model to read them: not answered",
            words=unexplained,
        )
        return {
            "status": "refused",
            "unexplained": unexplained,
            "trace": trace.events,
            "reason": unexplained_refusal(unexplained, ctx.catalog, lang),
        }
    if outcome.plan is None:
        asked = state.get("clarifications_in_row", 0)
        if outcome.clarification and asked < ctx.settings.max_clarifications:
            trace.branch(
                "several join paths: the user chooses",
                table_options=len(outcome.clarification["options"]),
            )
            return {"clarification": outcome.clarification, "trace": trace.events}
        return {"status": "refused", "reason": outcome.refusal, "trace": trace.events}
    trace.measurement(
        "plan",
        tables=outcome.plan.tables,
        metrics=outcome.plan.metrics,
        joins=len(outcome.plan.joins),
    )
    return {"plan": outcome.plan, "mode": "rules", "trace": trace.events}
