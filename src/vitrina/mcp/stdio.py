"""MCP over stdio with an answer for every line: the SDK's stdio transport turns a line that
is not JSON-RPC into an exception and the server drops it silently, so a client waits
forever. Here such a line is logged (stderr) and answered with a JSON-RPC error
(-32700 parse error, -32600 invalid request; id null, as the spec says for unreadable ids).
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
import mcp_types as types
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

log = logging.getLogger("vitrina.mcp")
MAX_LOGGED = 300  # characters of the rejected input's error kept in the log


def error_reply(exc: Exception) -> SessionMessage:
    """The JSON-RPC error for a line that could not be read as a message."""
    text = str(exc)
    parse = "json" in text.lower() and (
        "invalid json" in text.lower() or "eof" in text.lower() or "expected" in text.lower()
    )
    code = types.PARSE_ERROR if parse else types.INVALID_REQUEST
    message = (
        "Parse error: the line is not valid JSON (UTF-8)"
        if parse
        else "Invalid Request: the line is JSON but not a JSON-RPC 2.0 message"
    )
    return SessionMessage(
        types.JSONRPCError(
            jsonrpc="2.0", id=None, error=types.ErrorData(code=code, message=message)
        )
    )


async def _answer_bad_lines(source: Any, sink: Any, write: Any) -> None:
    async with sink:
        async for item in source:
            if isinstance(item, Exception):
                reply = error_reply(item)
                log.warning(
                    "MCP stdio: rejected an input line (%s): %s",
                    reply.message.error.code,
                    str(item).replace("\n", " ")[:MAX_LOGGED],
                )
                await write.send(reply)
                continue
            await sink.send(item)


async def run_stdio(server: MCPServer) -> None:
    """Serve `server` over stdin/stdout, answering unreadable lines with JSON-RPC errors."""
    lowlevel = server._lowlevel_server  # the SDK's own run_stdio_async does the same
    async with stdio_server() as (read_stream, write_stream):
        sink, filtered = anyio.create_memory_object_stream[SessionMessage](16)
        async with anyio.create_task_group() as group:
            group.start_soon(_answer_bad_lines, read_stream, sink, write_stream)
            await lowlevel.run(filtered, write_stream, lowlevel.create_initialization_options())
            group.cancel_scope.cancel()
