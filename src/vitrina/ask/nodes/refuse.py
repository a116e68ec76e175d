"""Honest refusal: the catalog cannot answer, so nothing is invented."""

from __future__ import annotations

from vitrina.ask.state import AskState
from vitrina.trace import Trace


def refuse(state: AskState) -> dict:
    trace = Trace("refuse")
    trace.branch("refused", reason=state.get("reason"))
    return {"status": "refused", "answer": state.get("reason"), "trace": trace.events}
