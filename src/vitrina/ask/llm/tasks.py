"""The ask job's model calls: each renders its prompt, asks for a typed reply and returns
the value or None. None always means "use the rule path"; the client has already written
the reason (repair, timeout, transport error) into the trace."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from vitrina.ask.llm.schemas import (
    Ambiguity,
    AnswerText,
    ChartProposal,
    DialogSummary,
    Feasibility,
    PeriodSpan,
    Rewrite,
    SemanticVerdict,
    SqlDraft,
    TableChoice,
    TopicChoice,
)
from vitrina.llm.prompts import PromptLibrary
from vitrina.trace import Trace

if TYPE_CHECKING:  # the client (tenacity, langchain's model classes) loads with a model
    from vitrina.llm.client import ModelTurn

    TurnModel = ModelTurn

PROMPTS = PromptLibrary("vitrina.ask.llm.prompts")
T = TypeVar("T", bound=BaseModel)
LANGS = {"ru": "Russian", "en": "English"}


# The model for one turn (`TurnModel`, above): vitrina.llm's ModelTurn holds the turn's budget
# (seconds, tokens); once it is spent, or the endpoint gave no reply at all, the rest of the
# turn uses rules.


def ask_model(
    model: ModelTurn, task: str, schema: type[T], trace: Trace, /, **variables: Any
) -> T | None:
    """One typed request; the prompt file is named after the task."""
    reply = model.structured(task, PROMPTS.render(task, **variables), schema, trace=trace)
    if reply.skipped:
        return None  # the client traced why (budget, breaker, endpoint down this turn)
    if reply.value is None:
        trace.suppressed("model reply unusable: rule path used", task=task, error=reply.error)
    else:
        trace.branch("model answered", task=task, repaired=reply.repaired)
    return reply.value


def rewrite(
    model: TurnModel, trace: Trace, *, question: str, previous: str, summary: str | None, lang: str
) -> str | None:
    value = ask_model(
        model,
        "rewrite",
        Rewrite,
        trace,
        question=question,
        previous=previous,
        summary=summary,
        lang=LANGS.get(lang, lang),
    )
    return value.question.strip() if value and value.question.strip() else None


def classify_topic(
    model: TurnModel, trace: Trace, *, question: str, topics: list[dict[str, str]]
) -> str | None:
    value = ask_model(model, "topic", TopicChoice, trace, question=question, topics=topics)
    ids = {t["id"] for t in topics}
    if value and value.topic not in ids:
        trace.rejected("model named a topic that does not exist", topic=value.topic)
        return None
    return value.topic if value else None


def find_period_span(model: TurnModel, trace: Trace, *, question: str) -> str | None:
    value = ask_model(model, "period", PeriodSpan, trace, question=question)
    if value and value.span and value.span.lower() not in question.lower():
        trace.rejected("model's period words are not in the question", span=value.span)
        return None
    return value.span if value else None


def detect_ambiguity(
    model: TurnModel, trace: Trace, *, question: str, topics: list[dict[str, str]], lang: str
) -> Ambiguity | None:
    value = ask_model(
        model,
        "ambiguity",
        Ambiguity,
        trace,
        question=question,
        topics=topics,
        lang=LANGS.get(lang, lang),
    )
    if value is None or not value.ambiguous:
        return None
    ids = {t["id"] for t in topics}
    options = [o for o in dict.fromkeys(value.options) if o in ids]
    if len(options) < 2:
        trace.rejected("model's clarification options are not topics", options=value.options)
        return None
    return Ambiguity(ambiguous=True, question=value.question, options=options)


def choose_tables(
    model: TurnModel,
    trace: Trace,
    *,
    question: str,
    tables: list[dict[str, str]],
    notes: str | None,
) -> list[str] | None:
    value = ask_model(
        model, "tables", TableChoice, trace, question=question, tables=tables, notes=notes
    )
    if value is None:
        return None
    known = {t["name"] for t in tables}
    chosen = [t.lower() for t in value.tables if t.lower() in known]
    unknown = [t for t in value.tables if t.lower() not in known]
    if unknown:
        trace.rejected("model named tables that are not candidates", tables=unknown)
    return chosen or None


def check_feasibility(
    model: TurnModel, trace: Trace, *, question: str, schema: str
) -> Feasibility | None:
    return ask_model(model, "feasibility", Feasibility, trace, question=question, schema=schema)


def generate_sql(model: TurnModel, trace: Trace, **variables: Any) -> SqlDraft | None:
    return ask_model(model, "sql_generation", SqlDraft, trace, **variables)


def semantic_check(
    model: TurnModel, trace: Trace, *, question: str, sql: str, checklist: list[str]
) -> SemanticVerdict | None:
    return ask_model(
        model,
        "semantic_check",
        SemanticVerdict,
        trace,
        question=question,
        sql=sql,
        checklist=checklist,
    )


def write_answer(
    model: TurnModel,
    trace: Trace,
    *,
    question: str,
    lang: str,
    period: str,
    rows: list[dict[str, Any]],
    figures: dict[str, Any],
) -> str | None:
    value = ask_model(
        model,
        "answer",
        AnswerText,
        trace,
        question=question,
        lang=LANGS.get(lang, lang),
        period=period,
        rows=json.dumps(rows, ensure_ascii=False, default=str),
        figures=json.dumps(figures, ensure_ascii=False, default=str),
    )
    return value.text.strip() if value and value.text.strip() else None


def propose_chart(
    model: TurnModel, trace: Trace, *, question: str, columns: list[str], rows: list[list[Any]]
) -> ChartProposal | None:
    value = ask_model(
        model,
        "chart",
        ChartProposal,
        trace,
        question=question,
        columns=columns,
        rows=json.dumps(rows[:5], ensure_ascii=False, default=str),
    )
    if value is None or value.kind == "none":
        return None
    bad = [c for c in [value.x, *value.y] if c is not None and c not in columns]
    if bad or not value.x or not value.y:
        trace.rejected("model's chart names columns that do not exist", columns=bad or [value.x])
        return None
    return value


def summarize_dialog(
    model: TurnModel, trace: Trace, *, questions: list[str], summary: str | None, lang: str
) -> str | None:
    value = ask_model(
        model,
        "dialog_summary",
        DialogSummary,
        trace,
        questions=questions,
        summary=summary,
        lang=LANGS.get(lang, lang),
    )
    return value.summary.strip() if value else None
