"""What a partition reads: warehouse objects, a native query, or a named unsupported source."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

SourceKind = Literal[
    "table", "query", "unsupported", "calculated", "calculation_group", "inline", "unknown"
]


class SourceRef(BaseModel):
    """One source of one partition. `objects` are warehouse names, lower-case `schema.name`."""

    kind: SourceKind
    objects: list[str] = Field(default_factory=list)
    server: str | None = None
    database: str | None = None
    sql: str | None = None  # the native query, when there is one
    detail: str = ""  # e.g. the unsupported connector, `Csv.Document(Web.Contents(...))`
    columns: dict[str, str] = Field(default_factory=dict)  # output column -> source column (lower)
    via: list[str] = Field(default_factory=list)  # shared expressions followed to get here
    warnings: list[str] = Field(default_factory=list)
