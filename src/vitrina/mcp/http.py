"""MCP over streamable HTTP: the SDK's app, served by uvicorn, with rejected requests logged.

The SDK answers broken JSON and non-JSON-RPC bodies with a JSON-RPC error (HTTP 400) but logs
nothing; `LogRejected` writes one warning per such reply, so an operator sees who is sending
what (every silent failure point leaves a trace).
"""

from __future__ import annotations

import logging
from typing import Any

from mcp.server.mcpserver import MCPServer
from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("vitrina.mcp")
MAX_LOGGED = 300


class LogRejected:
    """ASGI middleware: log every 400/401/403/413/422 reply of the MCP endpoint with its body
    start."""

    STATUSES = frozenset({400, 401, 403, 413, 422})

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 0

        async def watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body" and status in self.STATUSES:
                body = bytes(message.get("body", b""))[:MAX_LOGGED].decode(
                    "utf-8", errors="replace"
                )
                client = scope.get("client") or ("?", 0)
                log.warning(
                    "MCP HTTP: rejected a request from %s (%s): %s", client[0], status, body
                )
                status = 0  # once per reply
            await send(message)

        await self.app(scope, receive, watch)


def run_http(server: MCPServer, host: str, port: int) -> None:
    """Serve `server` on http://host:port/mcp until interrupted."""
    import uvicorn

    app: Any = LogRejected(server.streamable_http_app(host=host))
    uvicorn.run(app, host=host, port=port, log_level="warning")
