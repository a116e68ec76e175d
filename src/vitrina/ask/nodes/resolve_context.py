"""Context resolver: a follow-up becomes a standalone question.

Rules rewrite from the previous turn's snapshot; when the follow-up says things the rules
cannot read and a model is configured, the model rewrites it (with the dialog summary),
and the rule rewrite stays the fallback. Every decision is in the trace: the message read
as a question on its own (standalone), the parts the follow-up replaced or added, or
nothing to continue after a turn that gave no answer (decision 153).
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.followup import (
    ANSWERED_ON_ITS_OWN,
    ASK_IN_FULL,
    NOTHING_TO_CONTINUE,
    is_follow_up,
    reads_alone,
    rewrite,
    strip_lead,
)
from vitrina.ask.llm import tasks
from vitrina.ask.state import AskState
from vitrina.language.periods import extract_period, period_offsets
from vitrina.query.meaning import dropped_words
from vitrina.query.understand import MODEL_THRESHOLD, read_question, unexplained_words
from vitrina.trace import Trace

NO_ANSWER = ("refused", "failed")


def resolve_context(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("resolve_context")
    ctx = runtime.context
    question = state["question"].strip()
    history = state.get("history") or []
    previous = state.get("previous_status")
    if not history and previous not in NO_ANSWER:
        trace.branch("first question of the dialog: nothing to resolve")
        return {"rewritten": question, "follow_up": False, "trace": trace.events}
    period = extract_period(question, ctx.today)
    reading = read_question(
        question, ctx.catalog, period_span=period_offsets(question, period.span if period else None)
    )
    if not is_follow_up(question, reading, True):
        trace.branch("standalone question: previous turn not used", rule="standalone")
        return {"rewritten": question, "follow_up": False, "trace": trace.events}
    if previous in NO_ANSWER:
        return _nothing_to_continue(state, ctx, trace, question, previous)
    if reads_alone(question, ctx.catalog, ctx.today):
        alone = strip_lead(question)
        trace.branch(
            "the message reads as a whole question: answered on its own, not glued",
            rule="standalone",
            rewritten=alone,
        )
        return {"rewritten": alone, "follow_up": False, "trace": trace.events}
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
        standalone = _keeps_the_message(question, standalone, trace)
    if standalone is None:
        merged = rewrite(
            question, reading, prev["snapshot"], ctx.today, ctx.catalog, lang=state["lang"]
        )
        for rule in merged.rules:
            trace.branch(f"follow-up: {rule['part']} {rule['rule']}", **rule)
        standalone = merged.question
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


def _keeps_the_message(question: str, standalone: str | None, trace: Trace) -> str | None:
    """A model's rewrite that lost a word of the message (a condition, a value) is not used:
    the rules rewrite it instead, or the turn says what it could not read."""
    if standalone is None:
        return None
    lost = dropped_words(strip_lead(question), standalone)
    if lost:
        trace.rejected(
            "the model's rewrite lost words of the message: not used",
            words=lost,
            rewrite=standalone,
        )
        return None
    return standalone


def _nothing_to_continue(
    state: AskState, ctx: AskContext, trace: Trace, question: str, previous: str
) -> dict:
    """A follow-up after a turn that gave no answer: said so, and the message answered as a
    question on its own when it reads as one, else refused with that explanation (never
    "no data": the catalog was not what was missing)."""
    lang = state["lang"]
    alone = strip_lead(question)
    own = read_question(alone, ctx.catalog)
    note = NOTHING_TO_CONTINUE[lang]
    if own.metrics and not own.refuse:
        trace.branch(
            "follow-up after a turn without an answer: nothing to continue, "
            "the message is answered on its own",
            rule="nothing to continue",
            previous_status=previous,
            rewritten=alone,
        )
        message = note + ANSWERED_ON_ITS_OWN[lang].format(question=alone)
        return {
            "rewritten": alone,
            "follow_up": False,
            "checks": [{"check": "nothing_to_continue", "message": message}],
            "trace": trace.events,
        }
    trace.rejected(
        "follow-up after a turn without an answer, and it does not read alone: refused",
        rule="nothing to continue",
        previous_status=previous,
    )
    example = next(iter(ctx.catalog.metrics.values())).name(lang) if ctx.catalog.metrics else ""
    return {
        "rewritten": question,
        "follow_up": False,
        "status": "refused",
        "reason": note + ASK_IN_FULL[lang].format(example=example),
        "trace": trace.events,
    }
