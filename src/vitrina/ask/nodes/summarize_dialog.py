"""Dialog memory, second level: every few answered turns a short summary of the dialog
(topics, filters, periods in use) is updated for the context resolver. Rules write it from
the turns' snapshots; a model, when configured, words it."""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.llm import tasks
from vitrina.ask.slots import wording_slot_open
from vitrina.ask.state import AskState
from vitrina.trace import Trace

SUMMARY_TURNS = 6  # turns the summary looks back at


def rule_summary(history: list[dict], lang: str) -> str:
    recent = history[-SUMMARY_TURNS:]
    topics = list(dict.fromkeys(t["topic"] for t in recent if t.get("topic")))
    periods = list(dict.fromkeys(t["period"] for t in recent if t.get("period")))
    last = recent[-1]["rewritten"] if recent else ""
    if lang == "ru":
        return (
            f"Темы: {', '.join(topics) or '—'}. Периоды: {', '.join(periods) or '—'}. "
            f"Последний вопрос: {last}"
        )
    return (
        f"Topics: {', '.join(topics) or '-'}. Periods: {', '.join(periods) or '-'}. Last "
        f"question: {last}"
    )


def summarize_dialog(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("summarize_dialog")
    ctx = runtime.context
    history = state.get("history") or []
    summary = None
    if ctx.llm is not None and wording_slot_open(
        state, ctx
    ):  # a turn the rules read fully asks no model (174)
        summary = tasks.summarize_dialog(
            ctx.llm,
            trace,
            questions=[t["rewritten"] for t in history[-SUMMARY_TURNS:]],
            summary=state.get("dialog_summary"),
            lang=state["lang"],
        )
    if summary is None:
        summary = rule_summary(history, state["lang"])
    trace.branch("dialog summary updated", turns=len(history))
    return {"dialog_summary": summary, "trace": trace.events}
