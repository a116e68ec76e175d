"""What a run leaves behind: one record per case and per run, JSON-safe for the store and the
API."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, Field

Verdict = Literal["right", "wrong", "pending"]
MAX_ROWS_KEPT = 20  # rows of the expected and the got result kept per case


def json_cell(value: Any) -> Any:
    """A value as JSON can hold it: numbers stay numbers, dates become ISO text."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else str(value)
    if isinstance(value, Decimal):
        return (
            int(value)
            if value == value.to_integral_value() and abs(value) < 2**53
            else float(value)
        )
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return value.isoformat()
    return str(value)


def json_rows(rows: list[Any], limit: int = MAX_ROWS_KEPT) -> list[list[Any]]:
    return [[json_cell(v) for v in row] for row in rows[:limit]]


class CaseRecord(BaseModel):
    """The outcome of one case in one run. `verdict` is the automatic one (with the judge
    and a reused manual verdict applied); `manual` is a person's verdict from the review."""

    case_id: str
    kind: str
    tags: list[str] = Field(default_factory=list)
    question: str
    turns: list[str] = Field(default_factory=list)
    expect: str
    status: str | None = None
    verdict: Verdict
    reason: str = ""  # one line: why wrong or pending
    auto_ok: bool | None = None  # the automatic check (None: not run)
    judge_ok: bool | None = None  # the LLM judge (None: not asked)
    judge_reason: str | None = None
    manual: Literal["right", "wrong"] | None = None
    manual_comment: str | None = None
    in_review: bool = False
    clarifications: int = 0  # clarifying questions the system asked during the case
    retries: int = 0  # SQL generation retries after an error
    latency_ms: float = 0.0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    sql: str | None = None
    sql_source: str | None = None
    columns: list[str] = Field(default_factory=list)
    expected: list[list[Any]] = Field(default_factory=list)
    got: list[list[Any]] = Field(default_factory=list)
    expected_count: int = 0
    got_count: int = 0
    diff: str = ""
    answer: str | None = None
    invented: list[str] = Field(default_factory=list)  # numbers in the answer not in the data
    trace: list[dict[str, Any]] = Field(default_factory=list)
    xfail: str | None = None
    fingerprint: str = ""  # expected + got: a manual verdict is reused for the same pair

    @property
    def final(self) -> Verdict:
        """The verdict that counts: a person's, else the automatic one."""
        return self.manual or self.verdict


class RunRecord(BaseModel):
    """One suite run under one configuration."""

    id: str
    suite: str
    config_name: str
    config: dict[str, Any] = Field(default_factory=dict)
    matrix_id: str | None = None
    owner: str = "local"  # the API token id that ran it ("local": the CLI)
    started_at: str
    finished_at: str | None = None
    cases: list[CaseRecord] = Field(default_factory=list)
