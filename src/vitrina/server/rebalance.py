"""Least connections across `serve --workers N`: a worker that holds more than its share of
the open connections asks the client of the next response to reconnect.

Each worker listens on its own SO_REUSEPORT socket (decision 133), and the kernel places a
new connection by a hash of its addresses. For a few keep-alive clients that split is
often uneven: 8 clients over 2 workers landed 4/4 in about a quarter of the runs, 5/3 or
6/2 in most and 7/1 now and then, and the clients of the busier worker waited twice as
long (p95 at 8 clients 1,268 ms at 2/6 against 890 ms at 4/4 in one run). A connection
stays with its worker for its whole life, so the imbalance lasts.

The workers publish their open connections in an array the supervisor shares with them. A
worker above its share (the total divided by the workers, rounded up) adds
`Connection: close` to its next response; the client reconnects, and the kernel places
the new connection again. gRPC's MAX_CONNECTION_AGE rebalances long-lived connections the
same way, by closing them. A connection closes only after a complete response, so no
request is lost; the cost is one new connection on loopback or a LAN (decision 139).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableSequence, Sized
from typing import Any

Message = dict[str, Any]
ASGIApp = Callable[
    [dict[str, Any], Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]],
    Awaitable[None],
]


class ConnectionShare:
    """One worker's view of the open connections of all workers."""

    def __init__(self, counts: MutableSequence[int], slot: int, connections: Sized) -> None:
        self.counts = counts  # one slot per worker, shared between the processes
        self.slot = slot
        self.connections = connections  # this worker's open connections (uvicorn's set)

    def over_share(self) -> bool:
        """Publish this worker's count; whether it holds more than its share."""
        mine = len(self.connections)
        self.counts[self.slot] = mine
        total = sum(self.counts)
        return mine > -(-total // len(self.counts))


_share: ConnectionShare | None = None


def install(share: ConnectionShare | None) -> None:
    """The worker's share, set by the supervisor's worker before the app serves."""
    global _share
    _share = share


class RebalanceMiddleware:
    """Pure ASGI: `Connection: close` on a response of a worker above its share. Without a
    supervisor (one process, or uvicorn's own) it passes everything through."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(
        self,
        scope: dict[str, Any],
        receive: Callable[[], Awaitable[Message]],
        send: Callable[[Message], Awaitable[None]],
    ) -> None:
        share = _share
        if share is None or scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start" and share.over_share():
                headers = [*message.get("headers", []), (b"connection", b"close")]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, sending)
