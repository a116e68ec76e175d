"""General answer by rules: what Vitrina can do, in the request's language."""

from __future__ import annotations

from vitrina.route.messages import text
from vitrina.route.state import RouteState
from vitrina.trace import Trace


def general(state: RouteState) -> dict:
    trace = Trace("general")
    trace.branch("help text")
    return {
        "role": "general",
        "status": "answered",
        "answer": text("help", state.get("lang", "ru")),
        "trace": trace.events,
    }
