"""Typed results of the SQL object index: statements, objects, file errors."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field
from typing_extensions import TypedDict

StatementKind = Literal[
    "insert",
    "update",
    "delete",
    "merge",
    "truncate",
    "select_into",
    "select",
    "create_table",
    "create_view",
    "exec",
    "dynamic",
    "other",
]
ObjectKind = Literal["table", "view", "procedure", "function", "sequence", "type", "other"]
ParsedBy = Literal["sqlglot", "split", "scan"]


class SqlError(TypedDict):
    """A file-level problem that lost or may have lost part of a file."""

    file: str
    line: int
    message: str


class ColumnDerivation(BaseModel):
    """A computation on the way to a written column, inside a CTE, derived table or subquery.

    `line` is the line of the expression itself; `exact` is False when the file's text could
    not be sliced and `expression` is sqlglot's normalised rendering.
    """

    where: str  # "CTE a", "derived table s"
    column: str
    expression: str
    line: int = 0
    exact: bool = True


class ColumnAssignment(BaseModel):
    """`target.column` receives `expression` (quoted from the file) computed from `sources`.

    Sources are real `table.column` names (never a CTE or derived table), resolved through
    aliases, CTEs, derived tables and subqueries; `table.*` is a row count of that table.
    An empty list with a non-literal expression means "could not resolve". `steps` are the
    computations inside CTEs and derived tables that the expression reads.
    """

    target: str
    column: str
    expression: str
    sources: list[str] = Field(default_factory=list)
    passthrough: bool = False  # a bare column all the way down: the value is copied unchanged
    line: int = 0  # the line of the expression itself
    exact: bool = True  # False: `expression` is sqlglot's normalised form, not the file's text
    steps: list[ColumnDerivation] = Field(default_factory=list)


class SqlStatementInfo(BaseModel):
    """One data statement of an object, with where it is and how it was understood.

    `parsed_by`: "sqlglot" when sqlglot parsed the whole batch or definition as written;
    "split" when the statement was cut out of a procedural body (or repaired, e.g. table
    hints removed) and then parsed by sqlglot; "scan" when only the token scan read it.
    `origins` are `sources` with temp tables and table variables replaced by the real
    tables that filled them, so a write's lineage reaches past `#temp` chains.
    """

    kind: StatementKind
    targets: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)
    origins: list[str] = Field(default_factory=list)
    calls: list[str] = Field(default_factory=list)
    line: int
    end_line: int = 0
    sql: str = ""
    parsed_by: ParsedBy = "sqlglot"
    assignments: list[ColumnAssignment] = Field(default_factory=list)
    external: list[str] = Field(
        default_factory=list
    )  # files and rowset sources: BULK INSERT, OPENROWSET


class SqlObject(BaseModel):
    """A table, view, procedure, function, sequence, type or other module (trigger, synonym).

    `reads`/`writes` hold real objects only: temp tables and table variables are collapsed
    into what filled them, catalog views (`sys.*`) and trigger pseudo tables are left out.
    `flows` maps each written table to the real tables its rows come from.
    `partial` is True when some statement was read by the token scan or by scanning
    dynamic SQL strings: the lists may be incomplete.
    """

    name: str
    kind: ObjectKind
    file: str
    line: int
    end_line: int = 0
    columns: list[str] = Field(default_factory=list)
    reads: set[str] = Field(default_factory=set)
    writes: set[str] = Field(default_factory=set)
    calls: set[str] = Field(default_factory=set)
    flows: dict[str, set[str]] = Field(default_factory=dict)
    statements: list[SqlStatementInfo] = Field(default_factory=list)
    partial: bool = False
    dynamic_sql: bool = False
    warnings: list[str] = Field(default_factory=list)
    definition: str = ""
    query: str = ""  # the SELECT of a view or inline table function, for column lineage
    parent: str | None = None  # the table of a trigger, the target of a synonym
    encoding: str = ""
    display: str = (
        ""  # the name as the definition writes it (`Fact.Sale`); `name` is the lower-case key
    )
    ordered_calls: list[tuple[str, int]] = Field(
        default_factory=list
    )  # (callee, line) in statement order
