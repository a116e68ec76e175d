"""Open event streams per token: a cap, so one token cannot hold the server's connections.

Streams are async (sse-starlette), so an open one costs a coroutine, not a worker thread;
the cap bounds how many a single token may keep open at once (429 beyond it).

>>> slots = StreamSlots(per_owner=1)
>>> release = slots.acquire("a")
>>> slots.open("a")
1
>>> release(); release(); slots.open("a")
0
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from vitrina.server.errors import ApiError

DEFAULT_PER_OWNER = 20


class StreamSlots:
    """Counts open streams per owner; `acquire` refuses beyond `per_owner`."""

    def __init__(self, per_owner: int = DEFAULT_PER_OWNER) -> None:
        self.per_owner = max(1, per_owner)
        self._open: dict[str, int] = {}
        self._lock = threading.Lock()

    def open(self, owner: str) -> int:
        with self._lock:
            return self._open.get(owner, 0)

    def acquire(self, owner: str) -> Callable[[], None]:
        """Take a slot (ApiError 429 when the owner has none left); returns an idempotent
        release."""
        with self._lock:
            count = self._open.get(owner, 0)
            if count >= self.per_owner:
                raise ApiError(
                    429,
                    "too_many_streams",
                    f"this token already has {count} open event streams (at most "
                    f"{self.per_owner}); "
                    "close one first",
                    f"у токена уже открыто потоков событий: {count} (не больше {self.per_owner}); "
                    "закройте один из них",
                    headers={"Retry-After": "5"},
                    retry_after=5,
                )
            self._open[owner] = count + 1
        released = False

        def release() -> None:
            nonlocal released
            with self._lock:
                if released:
                    return
                released = True
                left = self._open.get(owner, 1) - 1
                if left > 0:
                    self._open[owner] = left
                else:
                    self._open.pop(owner, None)

        return release
