"""Failure after the bounded retries: a human explanation of what went wrong."""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.state import AskState
from vitrina.query.messages import text
from vitrina.query.planner import metric_examples
from vitrina.trace import Trace


def explain_failure(error: str, attempts: int, lang: str, examples: str = "-") -> str:
    kind, _, detail = error.partition(": ")
    if kind == "privileged":
        return text("warehouse_privileged", lang, error=detail)
    if kind == "connect":
        return text("warehouse_down", lang, error=detail)
    if kind == "timeout":
        return text("timeout", lang, error=detail)
    if kind == "too_large":
        return text("too_large", lang, error=detail)
    return text("sql_failed", lang, attempts=attempts, error=detail or error, examples=examples)


MEANING = "meaning: "
NOT_ANSWERED = {
    "ru": "Не отвечаю: запрос модели не отвечает на вопрос — {why}.",
    "en": "Not answered: the model's query does not answer the question: {why}.",
}


def fail(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("fail")
    error = state.get("sql_error") or "unknown error"
    if error.startswith(MEANING):  # a wrong query, not a broken one: refused, saying why
        why = error.removeprefix(MEANING)
        reason = NOT_ANSWERED["ru" if state["lang"] == "ru" else "en"].format(why=why)
        trace.rejected("the model's SQL kept differing from the question: refused", error=error)
        return {"status": "refused", "reason": reason, "answer": reason, "trace": trace.events}
    reason = explain_failure(
        error,
        state.get("sql_attempts", 0),
        state["lang"],
        metric_examples(runtime.context.catalog, state["lang"]),
    )
    trace.error("request failed", error=error, attempts=state.get("sql_attempts", 0))
    return {"status": "failed", "reason": reason, "answer": reason, "trace": trace.events}
