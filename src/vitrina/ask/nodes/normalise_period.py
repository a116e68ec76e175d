"""Period normalisation in Python: the question's period as inclusive dates, plus the grain."""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.periods import extract_period
from vitrina.ask.plan import PeriodRef
from vitrina.ask.state import AskState
from vitrina.trace import Trace


def normalise_period(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("normalise_period")
    found = extract_period(state["rewritten"], runtime.context.today)
    if found is None:
        trace.branch("no period in the question: the whole history is used")
        return {"period": None, "trace": trace.events}
    period = PeriodRef(
        start=found.start,
        end=found.end,
        label_ru=found.label_ru,
        label_en=found.label_en,
        span=found.span,
        note=found.corrected,
    )
    trace.branch("period normalised", span=found.span, start=str(found.start), end=str(found.end))
    if found.corrected:
        trace.warning("impossible date corrected", note=found.corrected)
    return {"period": period, "trace": trace.events}
