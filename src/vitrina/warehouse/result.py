"""The result of one read-only query, as every consumer (answer, table, chart, Excel) sees it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, field_serializer

from vitrina.warehouse.columnar import ArrowRows, arrow_table


class QueryResult(BaseModel):
    """Rows exactly as the engine returned them, capped at the row cap.

    A large DuckDB result's `rows` are an :class:`ArrowRows` (`vitrina.warehouse.columnar`):
    the same tuples, kept as Arrow columns; `arrow` is then that table (None otherwise), for
    the consumers that read every row a column at a time. Dumped, they are a list as ever.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    columns: list[str]
    # ArrowRows first: taken as it is (a list first would read every row to validate it)
    rows: ArrowRows | list[tuple[Any, ...]] = Field(
        default_factory=list, union_mode="left_to_right"
    )
    truncated: bool = False  # True when the row cap cut the result
    elapsed_ms: float = 0.0
    # a lost connection was replaced while this query ran (the trace says so); not stored
    reconnected: bool = Field(default=False, exclude=True)

    @field_serializer("rows", mode="wrap")
    def _rows(self, rows: Any, handler: SerializerFunctionWrapHandler) -> Any:
        return handler(list(rows) if isinstance(rows, ArrowRows) else rows)

    @property
    def row_count(self) -> int:
        return len(self.rows)

    @property
    def arrow(self) -> Any | None:
        """The Arrow table of a columnar result (see the class), else None."""
        return arrow_table(self.rows)

    def column(self, name: str) -> list[Any]:
        idx = self.columns.index(name)
        table = self.arrow
        if table is not None:
            return list(table.column(idx).to_pylist())
        return [row[idx] for row in self.rows]
