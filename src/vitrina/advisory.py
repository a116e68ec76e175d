"""Who runs a task or a dialog's turn across processes over one PostgreSQL state: a
session-level advisory lock, held on a connection of its own for as long as the run lasts.

Several `vitrina serve` processes (on one machine or several) share a PostgreSQL state.
A check-then-act over shared rows ("no turn running" in the live events, "the task is
still running" in its checkpoint) lets two of them start the same run at the same moment,
and a table of claims cannot tell whether a holder on another machine still runs. PostgreSQL
answers both: `pg_try_advisory_lock(key)` is granted to one session only, and the server
drops it when that session ends, so a process that dies (its connection closes, or its
backend is terminated) gives up every lock it held (decision 168, addendum).

The key is a stable signed 64-bit hash of (kind, id): the same in every process and every
release (Python's `hash` is salted per process; blake2b is not).

>>> lock_key("task", "abc") == lock_key("task", "abc"), lock_key("task", "abc") == lock_key("turn", "abc")
(True, False)
>>> -(2**63) <= lock_key("turn", "t1") < 2**63
True
"""  # noqa: E501

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)


def lock_key(kind: str, ident: str) -> int:
    """The advisory lock key of (kind, id): blake2b's first 8 bytes as a signed bigint."""
    digest = hashlib.blake2b(f"{kind}\x00{ident}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class LocksExhausted(RuntimeError):
    """This process holds as many locks as it may (the bound was reached)."""


def _one(conn: Any, sql: str, *params: Any) -> Any:
    """The first column of the one row a statement gives (psycopg's tuple rows and the
    checkpointer's dict rows)."""
    with conn.cursor() as cur:
        cur.execute(sql, params or None)
        row = cur.fetchone()
    return next(iter(row.values())) if isinstance(row, dict) else row[0]


class Held:
    """One granted lock and the connection that holds it; `release` unlocks and gives the
    connection back (idempotent). A connection that cannot unlock is dropped, which ends
    its session and so releases the lock on the server."""

    def __init__(self, owner: AdvisoryLocks, conn: Any, key: int) -> None:
        self._owner, self.conn, self.key = owner, conn, key
        self._done = False
        self._lock = threading.Lock()

    @property
    def backend_pid(self) -> int:
        """The holding session's backend (tests terminate it to play a dead process)."""
        return int(_one(self.conn, "SELECT pg_backend_pid()"))

    def release(self) -> None:
        with self._lock:
            if self._done:
                return
            self._done = True
        self._owner.unlock(self.conn, self.key)


class AdvisoryLocks:
    """At most `limit` locks held at once by this process, each on a connection taken with
    `take()` and handed back with `give(conn, broken)` (the checkpointer's pool, sized to
    leave room for everything else: a task's lock)."""

    def __init__(
        self,
        take: Callable[[], Any],
        give: Callable[[Any, bool], None],
        *,
        limit: int,
    ) -> None:
        self._take, self._give = take, give
        self._slots = threading.BoundedSemaphore(limit)
        self.limit = limit

    def try_hold(self, kind: str, ident: str) -> Held | None:
        """The lock of (kind, id) for this process, or None when another session holds it.
        Raises LocksExhausted when `limit` locks are held here already."""
        if not self._slots.acquire(blocking=False):
            raise LocksExhausted(f"{self.limit} advisory locks held by this process already")
        key = lock_key(kind, ident)
        conn = None
        try:
            conn = self._take()
            got = bool(_one(conn, "SELECT pg_try_advisory_lock(%s::bigint)", key))
        except BaseException:
            if conn is not None:
                self._give(conn, True)
            self._slots.release()
            raise
        if not got:
            self._give(conn, False)
            self._slots.release()
            return None
        return Held(self, conn, key)

    def unlock(self, conn: Any, key: int) -> None:
        broken = False
        try:
            broken = not _one(conn, "SELECT pg_advisory_unlock(%s::bigint)", key)
            if broken:  # never granted on this session (its connection was replaced)
                log.warning("advisory lock %d was not held at its release", key)
        except Exception as exc:  # the session is gone, and with it the lock
            log.warning("advisory lock %d not released (%s): its connection is dropped", key, exc)
            broken = True
        finally:
            try:
                self._give(conn, broken)
            finally:
                self._slots.release()


def pool_locks(pool: Any, *, limit: int) -> AdvisoryLocks:
    """Locks on connections of a psycopg_pool ConnectionPool (the checkpointer's)."""

    def give(conn: Any, broken: bool) -> None:
        if broken:
            conn.close()  # the pool sees it closed and replaces it
        pool.putconn(conn)

    return AdvisoryLocks(lambda: pool.getconn(timeout=10), give, limit=limit)


class SessionLocks:
    """Any number of locks (up to `limit`) held on one session of this process: a dialog's
    turn holds its lock while it is queued and while it runs, and a connection per turn
    bounded a process to a few turns at once (the store's pool): at 32 clients on three
    processes, 94% of the messages were refused with 503 (decision 212). A session may take
    a lock it holds again (PostgreSQL's locks stack), so a key held here is refused here:
    the caller's own claim comes first anyway. If the session is lost, every lock it held
    is lost with it (as when the process dies): logged, and the next lock opens a session."""

    def __init__(
        self,
        connect: Callable[[], Any],
        drop: Callable[[Any], None],
        *,
        limit: int,
    ) -> None:
        self._connect, self._drop = connect, drop
        self.limit = limit
        self._mutex = threading.Lock()  # one session: one statement at a time
        self._conn: Any = None
        self._held: set[int] = set()

    def _query(self, sql: str, *params: Any) -> Any:
        """One statement on the session (opened when there is none), under the mutex. A
        failure drops the session: the locks it held are gone on the server."""
        if self._conn is None:
            self._conn = self._connect()
        try:
            value = _one(self._conn, sql, *params)
            self._conn.commit()  # ends the statement's transaction (not autocommit); locks stay
        except Exception:
            self._lose()
            raise
        return value

    def _lose(self) -> None:
        if self._held:
            log.warning("advisory lock session lost: %d lock(s) released", len(self._held))
        self._held.clear()
        conn, self._conn = self._conn, None
        try:
            self._drop(conn)
        except Exception as exc:  # already closed by the server
            log.debug("dropping the lost advisory lock session: %s", exc)

    def try_hold(self, kind: str, ident: str) -> SessionHeld | None:
        """The lock of (kind, id), or None when another session holds it (or this one).
        Raises LocksExhausted when `limit` locks are held here already."""
        key = lock_key(kind, ident)
        with self._mutex:
            if len(self._held) >= self.limit:
                raise LocksExhausted(f"{self.limit} advisory locks held by this process already")
            if key in self._held:
                return None
            for attempt in (1, 2):  # again once on a new session when this one was found dead
                fresh = self._conn is None
                try:
                    got = self._query("SELECT pg_try_advisory_lock(%s::bigint)", key)
                    break
                except Exception:
                    if fresh or attempt == 2:
                        raise
            if not got:
                return None
            self._held.add(key)
        return SessionHeld(self, key)

    def backend_pid(self) -> int:
        with self._mutex:
            return int(self._query("SELECT pg_backend_pid()"))

    def unlock(self, key: int) -> None:
        with self._mutex:
            if key not in self._held:  # lost with its session
                return
            self._held.discard(key)
            try:
                if not self._query("SELECT pg_advisory_unlock(%s::bigint)", key):
                    log.warning("advisory lock %d was not held at its release", key)
            except Exception as exc:  # the session is gone, and with it the lock
                log.warning("advisory lock %d not released (%s): its session is dropped", key, exc)

    def close(self) -> None:
        """End the session: the server releases what it still holds."""
        with self._mutex:
            if self._conn is not None:
                self._lose()


class SessionHeld:
    """One lock of a `SessionLocks`; `release` unlocks it (idempotent)."""

    def __init__(self, owner: SessionLocks, key: int) -> None:
        self._owner, self.key = owner, key
        self._done = False
        self._lock = threading.Lock()

    @property
    def backend_pid(self) -> int:
        """The holding session's backend (tests terminate it to play a dead process)."""
        return self._owner.backend_pid()

    def release(self) -> None:
        with self._lock:
            if self._done:
                return
            self._done = True
        self._owner.unlock(self.key)


def engine_session_locks(engine: Any, *, limit: int) -> SessionLocks:
    """Locks on one session of a SQLAlchemy engine (the server store's), kept out of its
    pool while locks are held (a connection of the pool, taken once)."""

    def drop(conn: Any) -> None:
        conn.invalidate()  # discarded: the pool opens a new one when it needs it
        conn.close()

    return SessionLocks(engine.raw_connection, drop, limit=limit)
