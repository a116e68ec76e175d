"""When an optional model slot may run: the model serves the rules (decision 174).

A question the rules read fully (every content word placed, no unknown name, one topic
decided by the rules alone) is answered without a single request: no topic check, no
ambiguity check, no period search, no answer wording, no chart proposal, no dialog summary.
A slow model then costs such a question nothing. `llm_always` asks for those slots anyway;
even then a model's "ambiguous" or other topic never overrides a certain reading.
"""

from __future__ import annotations

from typing import Any

from vitrina.ask.context import AskContext
from vitrina.ask.state import AskState
from vitrina.catalog import Catalog
from vitrina.language.periods import period_offsets
from vitrina.query.understand import read_question, unexplained_words


def reads_fully(question: str, catalog: Catalog, period: Any = None) -> bool:
    """True when the rules place every content word of `question` and it names nothing
    unknown (`period`: the PeriodRef found, whose words are read)."""
    span = period_offsets(question, period.span if period else None)
    reading = read_question(question, catalog, period_span=span)
    return not reading.unknown_names and not unexplained_words(reading)


def model_asked(ctx: AskContext) -> bool:
    """The setting that asks the optional slots even for fully read questions."""
    return bool(getattr(ctx.settings, "llm_always", False))


def wording_slot_open(state: AskState, ctx: AskContext) -> bool:
    """Answer wording, chart proposal, dialog summary: only for a turn the model planned,
    unless `llm_always`."""
    return ctx.llm is not None and (state.get("mode") == "llm" or model_asked(ctx))
