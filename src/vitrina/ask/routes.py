"""Routing of the ask graph: pure functions over state, one per branching point."""

from __future__ import annotations

from typing import Literal

from vitrina.ask.state import AskState

NON_RETRYABLE = ("connect:", "timeout:")


def after_topic(state: AskState) -> Literal["refuse", "check_ambiguity"]:
    return "refuse" if state.get("status") == "refused" else "check_ambiguity"


def after_ambiguity(state: AskState) -> Literal["clarify", "select_tables"]:
    return "clarify" if state.get("clarification") else "select_tables"


def after_select(state: AskState) -> Literal["refuse", "prune_context"]:
    return "refuse" if state.get("status") == "refused" or state.get("plan") is None else "prune_context"


def _retry_or_fail(state: AskState, max_attempts: int) -> Literal["generate_sql", "fail"] | None:
    error = state.get("sql_error")
    if not error:
        return None
    if error.startswith(NON_RETRYABLE) or state.get("sql_attempts", 0) >= max_attempts:
        return "fail"
    return "generate_sql"


def make_sql_routes(max_attempts: int):
    """Routers after guard, checks and execution: next step, a bounded retry, or failure."""

    def after_guard(state: AskState) -> Literal["check_sql", "generate_sql", "fail"]:
        return _retry_or_fail(state, max_attempts) or "check_sql"

    def after_checks(state: AskState) -> Literal["execute", "generate_sql", "fail"]:
        return _retry_or_fail(state, max_attempts) or "execute"

    def after_execute(state: AskState) -> Literal["check_result", "generate_sql", "fail"]:
        return _retry_or_fail(state, max_attempts) or "check_result"

    return after_guard, after_checks, after_execute
