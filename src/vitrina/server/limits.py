"""Request limits: a body-size cap for every request and a token bucket per API token."""

from __future__ import annotations

import math
import threading
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vitrina.server.errors import error_body, send_error


class TokenBuckets:
    """One bucket per key (an API token): ``burst`` requests at once, refilled at
    ``rate_per_minute``.

    In memory, per process: behind a load balancer each process limits its own share.
    """

    def __init__(self, rate_per_minute: float, burst: int, *, clock: Any = time.monotonic) -> None:
        self.rate = rate_per_minute / 60.0
        self.burst = max(1, burst)
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, last refill)
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        return self.rate > 0

    def take(self, key: str) -> float:
        """0.0 when the request may go ahead, else the seconds to wait before the next one."""
        if not self.enabled:
            return 0.0
        now = self.clock()
        with self._lock:
            tokens, last = self._buckets.get(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - last) * self.rate)
            if tokens >= 1.0:
                self._buckets[key] = (tokens - 1.0, now)
                return 0.0
            self._buckets[key] = (tokens, now)
            return (1.0 - tokens) / self.rate


class BodyLimitMiddleware:
    """Answer 413 before a view runs when a body is larger than ``max_bytes``.

    Content-Length is checked first; a chunked body is read and counted before the view runs.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_bytes:
            await self._reject(send)
            return
        if length is not None or scope.get("method") in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        # No Content-Length (chunked): read the body here, counting, then replay it to the app.
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.max_bytes:
                await self._reject(send)
                return
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _reject(self, send: Send) -> None:
        kib = math.ceil(self.max_bytes / 1024)
        body = error_body(
            "payload_too_large",
            f"request body is larger than {kib} KiB",
            f"тело запроса больше {kib} КиБ",
        )
        await send_error(send, 413, body)
