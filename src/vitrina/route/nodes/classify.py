"""Supervisor: classify the request's intent (rules first, a model slot, ask when unsure)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.language.detect import detect_lang
from vitrina.route.context import RouteContext
from vitrina.route.intent import classify as classify_intent
from vitrina.route.prefix import strip_prefix
from vitrina.route.state import RouteState
from vitrina.trace import Trace


def classify(state: RouteState, runtime: Runtime[RouteContext]) -> dict:
    trace = Trace("classify")
    request = (state.get("request") or "").strip()
    decision = classify_intent(request, llm=runtime.context.llm, trace=trace)
    prefix, body = strip_prefix(request)  # the prefix chose the role; the role gets the rest
    if prefix is not None:
        trace.branch(f"supervisor prefix {prefix!r} stripped before the hand-off", request=body)
    target = runtime.context.target
    # a 1C target has no server to ask: reports and questions go through the analyst to the planner
    handoff = decision.handoff or (target == "onec" and decision.intent in ("report", "ask"))
    trace.branch(
        f"intent: {decision.intent}",
        source=decision.source,
        reason=decision.reason,
        handoff=handoff,
        target=target,
    )
    return {
        "request": body,
        "lang": detect_lang(body),
        "target": target,
        "intent": decision.intent,
        "intent_reason": decision.reason,
        "handoff": handoff,
        "facts": {},
        "steps": [],
        "pending": None,
        "stop": None,
        "trace": trace.events,
    }
