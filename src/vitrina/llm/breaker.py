"""A circuit breaker per endpoint, shared by every turn and process through SQLite.

An endpoint that keeps timing out (or refusing connections) costs each turn its whole
model budget; after `failures` such calls in a row the breaker opens and requests are not
sent for `cooldown_s`. Then one request is let through (half-open): an answer closes the
breaker, another failure opens it again. The state lives in `$VITRINA_HOME/llm_state.sqlite`
so that a CLI run after a failed one, or a second server worker, does not wait again.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

SCHEMA = """CREATE TABLE IF NOT EXISTS llm_breaker (
  endpoint TEXT PRIMARY KEY, failures INTEGER NOT NULL, open_until REAL NOT NULL,
  last_error TEXT, updated REAL NOT NULL)"""


@dataclass(frozen=True)
class BreakerState:
    endpoint: str
    failures: int
    open_until: float
    last_error: str | None

    def is_open(self, now: float) -> bool:
        return self.open_until > now


class Breaker:
    """`allow()` before a request; `record(ok)` after one that reached or missed the server."""

    def __init__(
        self,
        path: Path | None,
        endpoint: str,
        *,
        failures: int = 3,
        cooldown_s: float = 300.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """`path` None keeps the state in memory (one process; tests)."""
        self.path = path
        self.endpoint = endpoint
        self.threshold = max(1, failures)
        self.cooldown_s = cooldown_s
        self.clock = clock
        self._memory: dict[str, tuple[int, float, str | None]] = {}
        self._lock = threading.Lock()

    # --- storage ------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        assert self.path is not None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=5, isolation_level=None)
        conn.execute(SCHEMA)
        return conn

    def state(self) -> BreakerState:
        if self.path is None:
            failures, until, error = self._memory.get(self.endpoint, (0, 0.0, None))
            return BreakerState(self.endpoint, failures, until, error)
        with self._lock, closing(self._connect()) as conn:
            row = conn.execute(
                "SELECT failures, open_until, last_error FROM llm_breaker WHERE endpoint = ?",
                (self.endpoint,),
            ).fetchone()
        failures, until, error = row or (0, 0.0, None)
        return BreakerState(self.endpoint, failures, until, error)

    def _write(
        self, failures: int, open_until: float, error: str | None, expect_until: float | None = None
    ) -> bool:
        """Store the state; with `expect_until`, only if nobody changed open_until meanwhile."""
        if self.path is None:
            with self._lock:
                current = self._memory.get(self.endpoint, (0, 0.0, None))
                if expect_until is not None and current[1] != expect_until:
                    return False
                self._memory[self.endpoint] = (failures, open_until, error)
            return True
        with self._lock, closing(self._connect()) as conn:
            conn.execute("BEGIN IMMEDIATE")
            row = conn.execute(
                "SELECT open_until FROM llm_breaker WHERE endpoint = ?", (self.endpoint,)
            ).fetchone()
            if expect_until is not None and (row[0] if row else 0.0) != expect_until:
                conn.execute("ROLLBACK")
                return False
            conn.execute(
                "INSERT INTO llm_breaker VALUES (?, ?, ?, ?, ?) ON CONFLICT(endpoint) DO "
                "UPDATE SET failures = excluded.failures, open_until = excluded.open_until, "
                "last_error = excluded.last_error, updated = excluded.updated",
                (self.endpoint, failures, open_until, error, self.clock()),
            )
            conn.execute("COMMIT")
        return True

    # --- protocol -----------------------------------------------------------------------

    def allow(self) -> str | None:
        """None when a request may go; else why not (the breaker is open)."""
        state = self.state()
        now = self.clock()
        if state.failures < self.threshold:
            return None
        if state.is_open(now):
            return (
                f"the endpoint failed {state.failures} times in a row "
                f"(last: {state.last_error}); not asked again for "
                f"{state.open_until - now:.0f} s"
            )
        # half-open: one request may try; claiming it pushes the others back by a cooldown
        claimed = self._write(
            state.failures, now + self.cooldown_s, state.last_error, expect_until=state.open_until
        )
        return None if claimed else "another request is testing the endpoint"

    def record(self, ok: bool, error: str | None = None) -> None:
        state = self.state()
        if ok:
            if state.failures:
                self._write(0, 0.0, None)
            return
        failures = state.failures + 1
        until = self.clock() + self.cooldown_s if failures >= self.threshold else 0.0
        self._write(failures, until, (error or "")[:300])
