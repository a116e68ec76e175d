"""One Pydantic model per model task: the model's reply is parsed into these or rejected."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class Rewrite(BaseModel):
    question: str = Field(
        description="the follow-up rewritten as one standalone question, same language"
    )


class TopicChoice(BaseModel):
    topic: str = Field(description="one topic id from the list")
    confidence: float = Field(ge=0, le=1)


class PeriodSpan(BaseModel):
    span: str | None = Field(
        description="the exact words of the question that name a period, or null"
    )


class Ambiguity(BaseModel):
    ambiguous: bool
    question: str = ""
    options: list[str] = Field(
        default_factory=list, description="topic ids the question could be about"
    )


class TableChoice(BaseModel):
    tables: list[str] = Field(description="schema-qualified table names from the list")
    reason: str = ""


class Feasibility(BaseModel):
    feasible: bool
    missing: str = Field(default="", description="what the chosen tables lack, when not feasible")


class SqlDraft(BaseModel):
    sql: str
    explanation: str = Field(description="the logic of the query in one or two sentences")
    confidence: float = Field(ge=0, le=1)


class SemanticVerdict(BaseModel):
    answers_question: bool
    problem: str = ""


class AnswerText(BaseModel):
    text: str


class ChartProposal(BaseModel):
    kind: Literal["line", "bar", "none"]
    x: str | None = None
    y: list[str] = Field(default_factory=list)


class DialogSummary(BaseModel):
    summary: str
