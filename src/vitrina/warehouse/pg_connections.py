"""PostgreSQL warehouse connections that heal: a small pool, reconnect, one safe retry.

A backend terminated by a failover, an idle timeout or a DBA's ``pg_terminate_backend``
leaves a dead socket in the pool. Every query starts with ``BEGIN TRANSACTION READ ONLY``,
which doubles as the liveness check: when it fails on a lost connection, nothing of the
query has been sent, so the connection is dropped, a new one is made (inspected like the
first one) and the read is tried once more. A connection lost *after* the BEGIN may have
been running the statement: that is never retried, the caller gets a ``connect`` error and
the next query gets a fresh connection. A dead idle connection costs no round trip.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any

log = logging.getLogger("vitrina.warehouse")

POOL_SIZE = 4  # connections per process: concurrent turns of one server worker
# SQLSTATEs of a lost connection: class 08, and the server shutting the session down
LOST_STATES = ("57P01", "57P02", "57P03")


class ConnectionLost(Exception):
    """The connection was found dead before the query's statement was sent."""


def is_connection_lost(exc: BaseException, conn: Any) -> bool:
    """A connection-class failure (the server closed the session, the socket broke), not
    an error of the statement: a cancelled query (57014) or a syntax error is not one."""
    state = getattr(exc, "sqlstate", None) or ""
    if state == "57014":  # query_canceled: the statement timeout, the connection is fine
        return False
    return bool(conn.closed or conn.broken) or state.startswith("08") or state in LOST_STATES


def close_quietly(conn: Any) -> None:
    with contextlib.suppress(Exception):
        conn.close()


class PgConnections:
    """Up to ``size`` connections made by ``connect``, one per query at a time.

    ``connect`` makes a ready connection (options set, role inspected) or raises; a
    connection comes back to the pool only when it is open and outside a transaction."""

    def __init__(self, connect: Callable[[], Any], *, size: int = POOL_SIZE) -> None:
        self._connect = connect
        self._idle: list[Any] = []
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(size)
        self._closed = False
        self._local = threading.local()  # did this thread's query lose a connection
        self.reconnects = 0  # connections found dead and replaced (for tests and logs)

    def add(self, conn: Any) -> None:
        """An open, idle connection (the first one, made eagerly to check the role)."""
        self._give(conn)

    @contextlib.contextmanager
    def connection(self, wait_s: float) -> Iterator[Any]:
        """A connection for one query; TimeoutError when every slot stays busy ``wait_s``."""
        if not self._slots.acquire(timeout=max(wait_s, 0.1)):
            raise TimeoutError(f"no warehouse connection free within {wait_s:g} s")
        try:
            conn = self._take()
            try:
                yield conn
            finally:
                self._give(conn)
        finally:
            self._slots.release()

    def lost(self, conn: Any, reason: str) -> None:
        """A connection found dead: closed (``_give`` then drops it), counted and logged."""
        close_quietly(conn)
        self._local.lost = True
        with self._lock:
            self.reconnects += 1
        log.warning("warehouse connection lost (%s); reconnecting", reason)

    def take_lost(self) -> bool:
        """Whether this thread lost a connection since it last asked (then forgotten)."""
        lost = getattr(self._local, "lost", False)
        self._local.lost = False
        return lost

    def _take(self) -> Any:
        with self._lock:
            while self._idle:  # bounded: each pass removes one
                conn = self._idle.pop()
                if not conn.closed:
                    return conn
        return self._connect()

    def _give(self, conn: Any) -> None:
        from psycopg.pq import TransactionStatus

        usable = not conn.closed and conn.info.transaction_status == TransactionStatus.IDLE
        with self._lock:
            if usable and not self._closed:
                self._idle.append(conn)
                return
        close_quietly(conn)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            close_quietly(conn)
