"""Rows of the board as typed records: what the CLI, the runtime and a web page read."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from vitrina.team.lifecycle import TaskKind, TaskStatus


class Build(BaseModel):
    id: int
    key: str
    title: str
    brief: str
    brief_path: str | None = None
    status: str  # running, done, blocked
    phase: str
    workspace: str
    out_dir: str | None = None
    result: dict[str, Any] = Field(default_factory=dict)
    created_at: float
    updated_at: float


class Task(BaseModel):
    id: int
    build_id: int
    key: str
    kind: TaskKind
    title: str
    body: str = ""
    status: TaskStatus
    role: str
    phase: str
    step: str
    parent_id: int | None = None
    round: int = 1
    branch: str | None = None
    created_at: float
    updated_at: float

    @property
    def is_open(self) -> bool:
        return self.status is not TaskStatus.DONE


class Comment(BaseModel):
    id: int
    task_id: int
    key: str
    author: str
    text: str
    handoff: dict[str, Any] | None = None
    verdict: dict[str, Any] | None = None
    problems: list[str] = Field(default_factory=list)
    round: int = 1
    created_at: float


class Marker(BaseModel):
    task_id: int
    name: str
    round: int
    value: str = ""
    created_at: float


class Attachment(BaseModel):
    id: int
    task_id: int
    name: str
    path: str
    media_type: str
    sha256: str
    created_at: float


class AuditEntry(BaseModel):
    id: int
    build_id: int
    task_id: int | None = None
    actor: str
    action: str
    outcome: str  # done, noop, denied, invalid
    detail: dict[str, Any] = Field(default_factory=dict)
    at: float
