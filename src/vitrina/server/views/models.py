"""Request and response bodies of the API (what /openapi.json documents)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class NewThread(BaseModel):
    """Dialog options, chosen once when the dialog starts."""

    model_config = ConfigDict(extra="forbid")
    segment: str = Field(default="auto", max_length=32)  # auto or a segment of the catalog
    topics: list[str] = Field(default_factory=list, max_length=20)


class Message(BaseModel):
    """A question, a follow-up, or the answer to a clarification (an option number or label)."""

    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1)


class Feedback(BaseModel):
    """Thumbs up or down on one answer of a dialog, with an optional comment."""

    model_config = ConfigDict(extra="forbid")
    run_id: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")
    rating: Literal["up", "down"]
    comment: str = Field(default="", max_length=2000)


class RenameThread(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: str = Field(min_length=1, max_length=200, pattern=r"\S")


class ThreadSummary(BaseModel):
    id: str
    segment: str
    topics: list[str]
    title: str | None = None
    created_at: float
    updated_at: float


class ThreadDetail(ThreadSummary):
    turns: list[dict[str, Any]]
    pending_clarification: dict[str, Any] | None = None
    # the turn in flight (its question; follow it at /api/threads/{id}/live), else None
    live: dict[str, Any] | None = None


class ErrorDetail(BaseModel):
    code: str
    message: str
    message_ru: str


class ErrorBody(BaseModel):
    error: ErrorDetail


ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody} for status in (401, 404, 413, 422, 429, 500)
}
