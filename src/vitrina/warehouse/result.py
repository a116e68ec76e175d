"""The result of one read-only query, as every consumer (answer, table, chart, Excel) sees it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class QueryResult(BaseModel):
    """Rows exactly as the engine returned them, capped at the row cap."""

    columns: list[str]
    rows: list[tuple[Any, ...]] = Field(default_factory=list)
    truncated: bool = False  # True when the row cap cut the result
    elapsed_ms: float = 0.0
    # a lost connection was replaced while this query ran (the trace says so); not stored
    reconnected: bool = Field(default=False, exclude=True)

    @property
    def row_count(self) -> int:
        return len(self.rows)

    def column(self, name: str) -> list[Any]:
        idx = self.columns.index(name)
        return [row[idx] for row in self.rows]
