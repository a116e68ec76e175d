"""Tools from MCP servers listed in the settings (`[task.mcp_servers.NAME]` command/args/env),
through the official `mcp` SDK over stdio. Tools are listed once per task start; every call
opens a short session (bounded by a timeout). A server that fails to list is left out with
a trace event; its failure never stops the task."""

from __future__ import annotations

import json
from typing import Any

import anyio

from vitrina.task.state import ToolOutput
from vitrina.task.tools.base import Tool, ToolEnv, ToolError
from vitrina.trace import Trace

MAX_TOOLS_PER_SERVER = 30
MAX_TEXT = 8_000


def _params(server: dict[str, Any]) -> Any:
    from mcp import StdioServerParameters

    return StdioServerParameters(
        command=str(server["command"]),
        args=[str(a) for a in server.get("args", [])],
        env=server.get("env"),
        cwd=server.get("cwd"),
    )


async def _list(server: dict[str, Any], timeout_s: float) -> list[Any]:
    from mcp.client.stdio import stdio_client

    from mcp import ClientSession

    with anyio.fail_after(timeout_s):
        async with (
            stdio_client(_params(server)) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            listed = await session.list_tools()
            return list(listed.tools)[:MAX_TOOLS_PER_SERVER]


async def _call(server: dict[str, Any], name: str, args: dict[str, Any], timeout_s: float) -> Any:
    from mcp.client.stdio import stdio_client

    from mcp import ClientSession

    with anyio.fail_after(timeout_s):
        async with (
            stdio_client(_params(server)) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return await session.call_tool(name, args)


def _text(result: Any) -> str:
    parts = [getattr(c, "text", "") for c in getattr(result, "content", []) or []]
    text = "\n".join(p for p in parts if p)
    structured = getattr(result, "structured_content", None)
    if not text and structured is not None:
        text = json.dumps(structured, ensure_ascii=False, default=str)
    return text[:MAX_TEXT]


def _tool(server_name: str, server: dict[str, Any], remote: Any, timeout_s: float) -> Tool:
    def run(env: ToolEnv, args: dict[str, Any]) -> ToolOutput:
        try:
            result = anyio.run(_call, server, remote.name, args, timeout_s)
        except Exception as exc:  # the server's failure is the tool's failure, never the task's
            raise ToolError(
                f"MCP server {server_name!r} failed: {type(exc).__name__}: {exc}"
            ) from None
        text = _text(result)
        if getattr(result, "is_error", False):
            raise ToolError(f"MCP tool {remote.name} failed: {text}")
        return ToolOutput(
            tool=f"mcp__{server_name}__{remote.name}",
            ok=True,
            summary=text,
            meta={"server": server_name},
        )

    return Tool(
        name=f"mcp__{server_name}__{remote.name}"[:64],
        description=(remote.description or remote.name)[:1000],
        run=run,
        schema=dict(getattr(remote, "input_schema", None) or {"type": "object"}),
    )


def load_mcp_tools(
    servers: dict[str, dict[str, Any]], *, timeout_s: float, trace: Trace
) -> list[Tool]:
    """The tools of every configured server that answers; the others are trace events."""
    tools: list[Tool] = []
    for name, server in sorted(servers.items()):
        try:
            listed = anyio.run(_list, server, timeout_s)
        except Exception as exc:
            trace.suppressed(
                "MCP server left out: its tools could not be listed",
                server=name,
                error=f"{type(exc).__name__}: {exc}"[:500],
            )
            continue
        tools.extend(_tool(name, server, remote, timeout_s) for remote in listed)
        trace.branch("MCP tools loaded", server=name, tools=[t.name for t in listed])
    return tools
