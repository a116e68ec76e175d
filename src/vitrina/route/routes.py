"""Routers: pure functions of state with Literal returns, so the drawn graph shows the real
edges."""

from __future__ import annotations

from typing import Literal

from vitrina.route.state import RouteState


def after_classify(
    state: RouteState,
) -> Literal["ask", "docs", "task", "general", "analyst", "plan_report"]:
    """Roles by intent. A report goes straight to the planner when the target is a warehouse
    (its rules read the request); for a 1C target, and for metadata searches, the analyst
    looks first. A data question about a 1C configuration becomes a report request (there
    is no 1C server to ask)."""
    intent = state.get("intent", "ask")
    target = state.get("target", "warehouse")
    if intent == "metadata":
        return "analyst"
    if intent == "report":
        return "analyst" if target == "onec" else "plan_report"
    if intent == "ask" and target == "onec":
        return "analyst"
    if intent in ("docs", "task", "general"):
        return intent
    return "ask"


def after_analyst(state: RouteState) -> Literal["analyst", "plan_report", "deliver"]:
    """Another step while there is one to take (the node enforces MAX steps); then the planner
    when the request wants a report and something was found; else finish."""
    if state.get("stop") == "guard" and state.get("target") != "onec":
        return "deliver"
    if state.get("pending"):
        return "analyst"
    if state.get("handoff") and (
        (state.get("facts") or {}).get("tables") or state.get("target") == "onec"
    ):  # the 1C planner reads names through the trade's vocabulary that the search lacks
        return "plan_report"
    return "deliver"


def after_plan(state: RouteState) -> Literal["execute_report", "onec_report", "deliver"]:
    if not state.get("chosen"):
        return "deliver"
    return "onec_report" if state.get("target") == "onec" else "execute_report"
