"""Routing of the ask graph: pure functions over state, one per branching point."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from langgraph.graph import END

from vitrina.ask.state import AskState

# another attempt would hit the same wall (a result over the byte budget: a narrower query
# would be a narrower answer than was asked)
NON_RETRYABLE = ("connect:", "privileged:", "timeout:", "too_large:")
SUMMARY_EVERY = 3  # answered turns between updates of the dialog summary


def entry(state: AskState) -> Literal["start_turn", "start_plan"]:
    """A question starts the whole turn; a given plan (run_plan) goes straight to SQL."""
    return "start_plan" if state.get("given_plan") is not None else "start_turn"


def after_start_plan(state: AskState) -> Literal["prune_context", "fail"]:
    return "fail" if state.get("sql_error") else "prune_context"


def after_context(state: AskState) -> Literal["verified", "normalise_period"]:
    """A follow-up after a refused turn that cannot be read alone is refused (unless the
    bank of verified queries answers it)."""
    return "verified" if state.get("status") == "refused" else "normalise_period"


def after_topic(state: AskState) -> Literal["verified", "check_ambiguity"]:
    return "verified" if state.get("status") == "refused" else "check_ambiguity"


def after_ambiguity(state: AskState) -> Literal["clarify", "select_tables"]:
    return "clarify" if state.get("clarification") else "select_tables"


def after_select(state: AskState) -> Literal["verified", "clarify", "prune_context"]:
    """A rules plan goes to SQL; a refusal and the model path try the verified bank first
    (a verified query beats a model's SQL)."""
    if state.get("status") == "refused":
        return "verified"
    if state.get("clarification"):
        return "clarify"
    if state.get("mode") == "llm":
        return "verified"
    return "prune_context" if state.get("plan") is not None else "verified"


def bank_answered(state: AskState) -> bool:
    return state.get("verified") is not None and state.get("result") is not None


def after_verified(
    state: AskState,
) -> Literal["check_result", "adapt_verified", "choose_tables_llm", "refuse"]:
    """A bank query that ran goes to the result checks and the answer; close entries go to
    the model to adapt; else where the turn was going (the model path, or the refusal)."""
    if bank_answered(state):
        return "check_result"
    if state.get("bank_close"):
        return "adapt_verified"
    return after_bank(state)


def after_adapt(state: AskState) -> Literal["check_result", "choose_tables_llm", "refuse"]:
    return "check_result" if bank_answered(state) else after_bank(state)


def after_bank(state: AskState) -> Literal["choose_tables_llm", "refuse"]:
    """Where a turn the bank did not answer goes: the model path it was headed for, else
    the refusal."""
    if state.get("status") != "refused" and state.get("mode") == "llm":
        return "choose_tables_llm"
    return "refuse"


def after_feasibility(state: AskState) -> Literal["refuse", "choose_tables_llm", "generate_sql"]:
    if state.get("status") == "refused":
        return "refuse"
    return "choose_tables_llm" if state.get("table_notes") else "generate_sql"


def after_generate(state: AskState) -> Literal["refuse", "guard_sql"]:
    """A model path that failed on a question the rules cannot fully read ends in a refusal."""
    return "refuse" if state.get("status") == "refused" else "guard_sql"


def after_answer(state: AskState) -> Literal["summarize_dialog", "__end__"]:
    history = state.get("history") or []
    return "summarize_dialog" if history and len(history) % SUMMARY_EVERY == 0 else END


def _retry_or_fail(state: AskState, max_attempts: int) -> Literal["generate_sql", "fail"] | None:
    error = state.get("sql_error")
    if not error:
        return None
    if error.startswith(NON_RETRYABLE) or state.get("sql_attempts", 0) >= max_attempts:
        return "fail"
    return "generate_sql"


SqlRouter = Callable[[AskState], str]


def make_sql_routes(max_attempts: int) -> tuple[SqlRouter, SqlRouter, SqlRouter, SqlRouter]:
    """Routers after guard, checks, semantic check and execution: next step, a bounded
    retry, or failure."""

    def after_guard(state: AskState) -> Literal["check_sql", "generate_sql", "fail"]:
        return _retry_or_fail(state, max_attempts) or "check_sql"

    def after_checks(
        state: AskState,
    ) -> Literal["execute", "semantic_check", "generate_sql", "fail"]:
        return _retry_or_fail(state, max_attempts) or (
            "semantic_check" if state.get("mode") == "llm" else "execute"
        )

    def after_semantic(state: AskState) -> Literal["execute", "generate_sql", "fail"]:
        return _retry_or_fail(state, max_attempts) or "execute"

    def after_execute(state: AskState) -> Literal["check_result", "generate_sql", "fail"]:
        return _retry_or_fail(state, max_attempts) or "check_result"

    return after_guard, after_checks, after_semantic, after_execute
