"""Period normalisation in Python: the question's period as inclusive dates.

Model slot: when the rules find no period, a model may point at the words that name one
("в позапрошлом сезоне"); Python still normalises them, so the model never writes a date.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.llm import tasks
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


def normalise_period(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("normalise_period")
    ctx = runtime.context
    two = _two_periods(state, runtime, trace)
    if two is not None:
        return two
    found = extract_period(state["rewritten"], ctx.today)
    if found is None and ctx.llm is not None:
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
