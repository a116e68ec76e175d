"""The MCP server: Vitrina's tools on the official SDK's MCPServer, typed inputs, clear errors.

Over HTTP every request carries a Vitrina API token (the SDK's bearer middleware checks it
with `vitrina.mcp.auth.TokenTable`); each tool checks the token's role (`viewer`: ask and
read the catalog and manual; `analyst`: also run_sql and tasks) and a task or dialog is
reachable only by the token that created it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from vitrina import __version__
from vitrina.mcp import tools
from vitrina.mcp.auth import TokenTable, auth_settings, need
from vitrina.mcp.replies import ReplyTooLarge, bounded_reply
from vitrina.mcp.tools import Toolbox, ToolFailure
from vitrina.server.roles import Role
from vitrina.warehouse import WarehouseError

INSTRUCTIONS = """Vitrina answers business questions from the team's warehouse and documents BI measures.
Use `ask` for questions in Russian or English (it plans, guards and runs the SQL itself); use
`search_catalog` and `describe_table` to learn the data, `run_sql` for a read-only SELECT over the
catalog's tables, `describe_measure` and `trace_lineage` for DAX measures documented by `vitrina docs`."""  # noqa: E501

Question = Annotated[
    str,
    Field(
        min_length=1,
        max_length=2000,
        description="A question in Russian or English, or the reply to a clarification (option "
        "number or label).",
    ),
]
ThreadId = Annotated[
    str | None,
    Field(
        default=None,
        max_length=64,
        description="Dialog id returned by an earlier `ask`: continue it or answer its "
        "clarification.",
    ),
]
Segment = Annotated[
    str,
    Field(
        max_length=32,
        description="Segment of the dialog: auto, or one of the catalog's segments "
        "(catalog.segment_values; the demo's are b2b and b2c).",
    ),
]
Sql = Annotated[
    str,
    Field(
        min_length=1,
        max_length=20000,
        description="One SELECT statement over the catalog's tables.",
    ),
]
MaxRows = Annotated[
    int,
    Field(ge=1, le=tools.MAX_ROWS, description="Rows to return (the query itself is row-capped)."),
]
Query = Annotated[
    str,
    Field(
        min_length=1,
        max_length=200,
        description="Words to look for: a metric, a dimension, a table or column name.",
    ),
]
Limit = Annotated[int, Field(ge=1, le=100, description="Most results to return.")]
TableName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=200,
        description="Schema-qualified table name, e.g. dwh.fact_payment (or just the table name).",
    ),
]
TaskRequest = Annotated[
    str, Field(min_length=3, max_length=2000, description="The task in Russian or English.")
]
TaskId = Annotated[
    str, Field(min_length=1, max_length=64, description="The task id from start_task.")
]
TaskAction = Literal["approve", "edit", "replan", "clarify", "redo", "skip", "stop"]
Measure = Annotated[
    str,
    Field(
        min_length=1,
        max_length=300,
        description="A DAX measure name, with or without brackets, e.g. [Total Sales].",
    ),
]


async def _call(
    role: Role,
    fn: Callable[..., Any],
    box: Toolbox,
    *args: Any,
    owned: bool = False,
    **kwargs: Any,
) -> Any:
    """Check the caller's role, then run a blocking tool in a worker thread (with `owned`, as the
    caller: `owner=` is passed); the reply is bounded in that thread too (`bounded_reply`: the
    SDK encodes it on the event loop); expected failures become tool errors."""
    try:
        who = need(role)
    except PermissionError as exc:
        raise ToolError(str(exc)) from None
    if owned:
        kwargs["owner"] = who.owner
    settings = box.settings

    def work() -> Any:
        reply = fn(box, *args, **kwargs)
        return bounded_reply(reply, settings.result_cell_max_chars, settings.mcp_reply_max_bytes)

    try:
        return await anyio.to_thread.run_sync(work)
    except (ToolFailure, ReplyTooLarge) as exc:
        raise ToolError(str(exc)) from None
    except WarehouseError as exc:
        raise ToolError(tools.warehouse_message(exc)) from None


def build_server(
    box: Toolbox, *, tokens: TokenTable | None = None, host: str = "127.0.0.1", port: int = 8765
) -> MCPServer:
    """An MCPServer with the tools bound to ``box``; with ``tokens``, HTTP requests need a token."""
    auth = (
        {"token_verifier": tokens, "auth": auth_settings(host, port)} if tokens is not None else {}
    )
    server = MCPServer("vitrina", version=__version__, instructions=INSTRUCTIONS, **auth)

    @server.tool(title="Ask the warehouse")
    async def ask(
        question: Question, thread_id: ThreadId = None, segment: Segment = "auto"
    ) -> dict[str, Any]:
        """Answer a business question: checked SQL run read-only, the answer text, columns and rows.
        When the status is `clarification`, call again with the same thread_id and an option
        number."""
        return await _call(
            "viewer", tools.ask, box, question, thread_id=thread_id, segment=segment, owned=True
        )

    @server.tool(title="Run read-only SQL")
    async def run_sql(sql: Sql, max_rows: MaxRows = 100) -> dict[str, Any]:
        """Run one SELECT through Vitrina's SQL guard (catalog tables and columns only, no DML/DDL,
        no file or system access, row cap) on a read-only connection; returns the SQL that ran,
        columns and rows."""
        return await _call("analyst", tools.run_sql, box, sql, max_rows=max_rows, owned=True)

    @server.tool(title="Search the catalog")
    async def search_catalog(query: Query, limit: Limit = 20) -> list[dict[str, Any]]:
        """Find topics, metrics, tables and columns by words (Russian or English), best matches
        first."""
        return await _call("viewer", tools.search_catalog, box, query, limit=limit)

    @server.tool(title="Describe a table")
    async def describe_table(table: TableName) -> dict[str, Any]:
        """A catalog table: its description, columns with types, roles and labels, and its joins."""
        return await _call("viewer", tools.describe_table, box, table)

    @server.tool(title="Describe a DAX measure")
    async def describe_measure(measure: Measure, llm: bool = False) -> dict[str, Any]:
        """A measure: formula, explanation, dependencies and lineage as Markdown (from the model and
        SQL folder given to the server, else from the manual). llm=true rewords the explanation with
        the configured model, checked so it adds no name or number the lineage does not hold."""
        return await _call("viewer", tools.describe_measure, box, measure, llm=llm)

    @server.tool(title="Trace a measure's lineage")
    async def trace_lineage(measure: Measure) -> dict[str, Any]:
        """A measure's lineage graph down to warehouse tables and the stored procedures that load
        them."""
        return await _call("viewer", tools.trace_lineage, box, measure)

    @server.tool(title="Start an analytical task")
    async def start_task(request: TaskRequest, approve_all: bool = False) -> dict[str, Any]:
        """A multi-step analytical task: a plan of steps run with tools (SQL, the ask pipeline,
        sandboxed analysis, files). The plan waits for approval (task_decision) unless approve_all
        is true."""
        return await _call(
            "analyst", tools.start_task, box, request, approve_all=approve_all, owned=True
        )

    @server.tool(title="Answer a waiting task")
    async def task_decision(
        task_id: TaskId,
        action: TaskAction,
        comment: str | None = None,
        steps: list[str] | None = None,
        choice: str | None = None,
    ) -> dict[str, Any]:
        """Approve, edit (new steps), replan or redo (with a comment), clarify (choice: the id
        of one of the step clarification's options), skip or stop a waiting task."""
        return await _call(
            "analyst",
            tools.task_decision,
            box,
            task_id,
            action,
            comment=comment,
            steps=steps,
            choice=choice,
            owned=True,
        )

    return server
