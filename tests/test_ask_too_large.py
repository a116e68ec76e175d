"""A result over the engine's byte cap (`WarehouseError(kind="too_large")`, decision 146) ends
the ask turn at once, with the engine's message and what to narrow, in both languages."""

from __future__ import annotations

from vitrina.ask.nodes.fail import explain_failure
from vitrina.ask.routes import make_sql_routes

ERROR = "too_large: the result is over 50 MB (result_max_bytes)"


def test_too_large_is_explained_with_the_engines_words() -> None:
    ru, en = explain_failure(ERROR, 1, "ru"), explain_failure(ERROR, 1, "en")
    assert ru.startswith("Результат слишком большой") and "result_max_bytes" in ru
    assert en.startswith("The result is too large") and "(the result is over 50 MB" in en


def test_too_large_is_not_retried() -> None:
    after_execute = make_sql_routes(max_attempts=3)[3]
    assert after_execute({"sql_error": ERROR, "sql_attempts": 1}) == "fail"
    assert after_execute({"sql_error": "execute: syntax", "sql_attempts": 1}) == "generate_sql"
