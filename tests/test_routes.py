"""The ask graph's routers are pure functions over state: every branch, table-driven."""

from __future__ import annotations

import pytest

from vitrina.ask.routes import after_ambiguity, after_select, after_topic, make_sql_routes

after_guard, after_checks, after_semantic, after_execute = make_sql_routes(3)


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        ({"status": "refused"}, "verified"),  # the bank of verified queries first
        ({"status": "failed", "topic": "payments"}, "check_ambiguity"),
        ({"status": "failed", "topic": None, "candidates": ["a", "b"]}, "check_ambiguity"),
    ],
)
def test_after_topic(state: dict, expected: str) -> None:
    assert after_topic(state) == expected


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        ({"clarification": {"kind": "topic", "question": "?", "options": []}}, "clarify"),
        ({"clarification": None}, "select_tables"),
        ({}, "select_tables"),
    ],
)
def test_after_ambiguity(state: dict, expected: str) -> None:
    assert after_ambiguity(state) == expected


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        ({"status": "refused", "plan": None}, "verified"),
        ({"status": "failed", "plan": None}, "verified"),
        ({"status": "failed", "plan": object()}, "prune_context"),
        ({"status": "failed", "plan": None, "mode": "llm"}, "verified"),  # before the model
    ],
)
def test_after_select(state: dict, expected: str) -> None:
    assert after_select(state) == expected


@pytest.mark.parametrize(
    ("router", "next_step"),
    [
        (after_guard, "check_sql"),
        (after_checks, "execute"),
        (after_semantic, "execute"),
        (after_execute, "check_result"),
    ],
)
@pytest.mark.parametrize(
    ("state", "outcome"),
    [
        ({"sql_error": None, "sql_attempts": 1}, "next"),
        ({"sql_error": "compile: no such column", "sql_attempts": 1}, "generate_sql"),
        ({"sql_error": "guard: DELETE is not allowed", "sql_attempts": 2}, "generate_sql"),
        ({"sql_error": "compile: no such column", "sql_attempts": 3}, "fail"),
        ({"sql_error": "connect: refused", "sql_attempts": 1}, "fail"),
        ({"sql_error": "timeout: 30 s", "sql_attempts": 1}, "fail"),
    ],
)
def test_sql_routes(router, next_step: str, state: dict, outcome: str) -> None:
    assert router(state) == (next_step if outcome == "next" else outcome)


def test_attempt_bound_is_configurable() -> None:
    guard_once, _, _, _ = make_sql_routes(1)
    assert guard_once({"sql_error": "compile: x", "sql_attempts": 1}) == "fail"


def test_model_path_routes() -> None:
    from vitrina.ask.routes import after_answer, after_feasibility

    assert after_checks({"sql_attempts": 1, "mode": "llm"}) == "semantic_check"
    assert after_feasibility({"table_notes": "no card data"}) == "choose_tables_llm"
    assert after_feasibility({"table_notes": None}) == "generate_sql"
    assert after_feasibility({"status": "refused"}) == "refuse"
    assert after_answer({"history": [{}, {}, {}]}) == "summarize_dialog"
    assert after_answer({"history": [{}]}) == "__end__"


def test_after_context() -> None:
    """A follow-up with nothing to continue is refused before the period and topic steps."""
    from vitrina.ask.routes import after_context

    assert after_context({"status": "refused"}) == "verified"
    assert after_context({"status": "failed"}) == "normalise_period"  # a fresh turn's default
    assert after_context({}) == "normalise_period"


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        # a bank query ran: the result checks and the answer, as after `execute`
        ({"verified": {"entry": "x"}, "result": object(), "mode": "llm"}, "check_result"),
        ({"verified": None, "bank_close": ["x"], "mode": "llm"}, "adapt_verified"),
        ({"verified": None, "bank_close": [], "mode": "llm"}, "choose_tables_llm"),
        ({"verified": None, "status": "refused", "mode": "llm"}, "refuse"),
        ({"verified": None, "status": "failed", "mode": "rules"}, "refuse"),
    ],
)
def test_after_verified(state: dict, expected: str) -> None:
    """A verified query beats the model's SQL; nothing from the bank: where the turn went."""
    from vitrina.ask.routes import after_adapt, after_verified

    assert after_verified(state) == expected
    if expected != "adapt_verified":
        assert after_adapt(state) == expected
