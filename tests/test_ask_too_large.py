"""A result over the engine's byte cap (`WarehouseError(kind="too_large")`, decision 146) ends
the ask turn at once, naming the setting and what to narrow, in both languages."""

from __future__ import annotations

from vitrina.ask.nodes.fail import explain_failure
from vitrina.ask.routes import make_sql_routes

ERROR = "too_large: the result is over 50 MB (result_max_bytes)"


def test_too_large_is_explained_with_the_engines_words() -> None:
    ru, en = explain_failure(ERROR, 1, "ru"), explain_failure(ERROR, 1, "en")
    assert ru.startswith("Результат запроса слишком большой") and "VITRINA_RESULT_MAX_BYTES" in ru
    assert en.startswith("The query's result is too large") and "VITRINA_RESULT_MAX_BYTES" in en
    assert "Сузьте период" in ru and "Narrow the period" in en


def test_too_large_is_not_retried() -> None:
    after_execute = make_sql_routes(max_attempts=3)[3]
    assert after_execute({"sql_error": ERROR, "sql_attempts": 1}) == "fail"
    assert after_execute({"sql_error": "execute: syntax", "sql_attempts": 1}) == "generate_sql"
