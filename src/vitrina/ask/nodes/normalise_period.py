"""Period normalisation in Python: the question's period as inclusive dates.

Model slot: when the rules find no period and some words are left unread, a model may point
at the words that name one ("в позапрошлом сезоне"); Python still normalises them, so the
model never writes a date. A question the rules read fully has no such words: no request.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.llm import tasks
from vitrina.ask.slots import model_asked, reads_fully
from vitrina.ask.state import AskState
from vitrina.language.periods import extract_period
from vitrina.language.periods.pair import read_two_periods
from vitrina.query.plan import PeriodRef
from vitrina.trace import Trace


def _two_periods(state: AskState, runtime: Runtime[AskContext], trace: Trace) -> dict | None:
    """Both periods of "X за 2024 и 2025", "X in 2025 vs 2024", "к прошлому году"."""
    two = read_two_periods(state["rewritten"], runtime.context.today)
    if two is None:
        return None
    trace.branch(
        "two periods: each computed on its own, then the change",
        words=two.words,
        current=two.current.label_en,
        previous=two.previous.label_en,
    )
    return {
        "period": PeriodRef.of(two.current),
        "compared": PeriodRef.of(two.previous),
        "compare_question": two.question,
        "compare_span": two.span,
        "trace": trace.events,
    }


def _words_left(question: str, ctx: AskContext, trace: Trace) -> bool:
    """Whether the period slot may look for words: some are unread, or `llm_always`."""
    if model_asked(ctx) or not reads_fully(question, ctx.catalog):
        return True
    trace.branch("every word read by the rules: the model is not asked for a period")
    return False


def normalise_period(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("normalise_period")
    ctx = runtime.context
    two = _two_periods(state, runtime, trace)
    if two is not None:
        return two
    found = extract_period(state["rewritten"], ctx.today)
    if found is None and ctx.llm is not None and _words_left(state["rewritten"], ctx, trace):
        span = tasks.find_period_span(ctx.llm, trace, question=state["rewritten"])
        found = extract_period(span, ctx.today) if span else None
        if span and found is None:
            trace.rejected("the model's period words could not be normalised", span=span)
        elif found is not None:
            found = found.model_copy(update={"span": span})
    if found is None:
        trace.branch("no period in the question: the whole history is used")
        return {
            "period": None,
            "compared": None,
            "compare_question": None,
            "compare_span": None,
            "trace": trace.events,
        }
    period = PeriodRef.of(found)
    trace.branch("period normalised", span=found.span, start=str(found.start), end=str(found.end))
    if found.corrected:
        trace.warning("impossible date corrected", note=found.corrected)
    return {
        "period": period,
        "compared": None,
        "compare_question": None,
        "compare_span": None,
        "trace": trace.events,
    }
