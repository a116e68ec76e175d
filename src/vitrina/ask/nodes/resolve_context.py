"""Context resolver: a follow-up becomes a standalone question (LLM slot: rewrite)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.followup import is_follow_up, rewrite
from vitrina.ask.periods import extract_period
from vitrina.ask.state import AskState
from vitrina.ask.understand import read_question
from vitrina.trace import Trace


def period_offsets(text: str, span: str | None) -> tuple[int, int] | None:
    if not span:
        return None
    idx = text.lower().replace("ё", "е").find(span.lower().replace("ё", "е"))
    return None if idx < 0 else (idx, idx + len(span))


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
