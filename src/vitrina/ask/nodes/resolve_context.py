"""Context resolver: a follow-up becomes a standalone question.

Rules rewrite from the previous turn's snapshot; when the follow-up says things the rules
cannot read and a model is configured, the model rewrites it (with the dialog summary),
and the rule rewrite stays the fallback.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.followup import is_follow_up, rewrite
from vitrina.ask.llm import tasks
from vitrina.ask.state import AskState
from vitrina.ask.understand import MODEL_THRESHOLD, read_question, unexplained_words
from vitrina.language.periods import extract_period, period_offsets
from vitrina.trace import Trace


def resolve_context(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("resolve_context")
    ctx = runtime.context
    question = state["question"].strip()
    history = state.get("history") or []
    if not history:
        trace.branch("first question of the dialog: nothing to resolve")
        return {"rewritten": question, "follow_up": False, "trace": trace.events}
    period = extract_period(question, ctx.today)
    reading = read_question(
        question, ctx.catalog, period_span=period_offsets(question, period.span if period else None)
    )
    if not is_follow_up(question, reading, True):
        trace.branch("standalone question: previous turn not used")
        return {"rewritten": question, "follow_up": False, "trace": trace.events}
    prev = history[-1]
    standalone = None
    unexplained = unexplained_words(reading)
    if ctx.llm is not None and len(unexplained) >= MODEL_THRESHOLD:
        trace.branch("rules cannot read the follow-up: the model rewrites it", words=unexplained)
        standalone = tasks.rewrite(
            ctx.llm,
            trace,
            question=question,
            previous=prev["rewritten"],
            summary=state.get("dialog_summary"),
            lang=state["lang"],
        )
    if standalone is None:
        standalone = rewrite(question, reading, prev["snapshot"], ctx.today, ctx.catalog)
    trace.branch(
        "follow-up rewritten with the previous turn",
        previous=prev["rewritten"],
        rewritten=standalone,
    )
    return {
        "rewritten": standalone,
        "follow_up": True,
        "explicit_topics": state.get("explicit_topics") or [],
        "trace": trace.events,
        "chosen": {"topic": prev["topic"]} if not reading.topic_scores else {},
    }
