"""The dialogs' checkpointer: SQLite under VITRINA_HOME, or PostgreSQL for several processes.

PostgreSQL is chosen when VITRINA_STATE_URL is a PostgreSQL URL; every process that points
at it sees the same dialogs, so API processes stay stateless behind a load balancer. Its
pool checks a connection idle for longer than the store's PING_AFTER_IDLE_S before handing
it out and replaces one the server dropped (a restart, a failover, an idle timeout).
"""

from __future__ import annotations

import time
import weakref
from typing import Any

from vitrina.config import Settings
from vitrina.server.store import PING_AFTER_IDLE_S

# when each pooled connection was last given back (weak: a closed one is forgotten)
_LAST_USED: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()


def is_postgres(url: str | None) -> bool:
    return bool(url) and url.split(":", 1)[0].split("+", 1)[0].lower() in ("postgresql", "postgres")


def libpq_url(url: str) -> str:
    """A SQLAlchemy PostgreSQL URL (`postgresql+psycopg://...`) as libpq's `postgresql://...`."""
    return "postgresql://" + url.split("://", 1)[1]


def _used(conn: Any) -> None:
    """The pool's `reset` hook: the connection came back now."""
    _LAST_USED[conn] = time.monotonic()


def _check_idle(conn: Any) -> None:
    """The pool's `check` hook: a connection idle for longer than PING_AFTER_IDLE_S gets
    an empty query; one the server dropped raises, and the pool hands out another. One used
    more recently is not pinged (a round trip per checkout under load, for nothing)."""
    from psycopg_pool import ConnectionPool

    if time.monotonic() - _LAST_USED.get(conn, 0.0) > PING_AFTER_IDLE_S:
        ConnectionPool.check_connection(conn)


def make_checkpointer(settings: Settings, *, pool_size: int = 10) -> Any:
    """A ready (set up) checkpointer with Vitrina's allow-list serializer."""
    from vitrina.ask import register_state
    from vitrina.checkpoint import serializer, sqlite_checkpointer

    register_state()  # the ask state types, before the serializer is built
    if not is_postgres(settings.state_url):
        return sqlite_checkpointer(settings.state_path)
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool

    conninfo = libpq_url(str(settings.state_url))
    pool = ConnectionPool(
        conninfo,
        min_size=1,
        max_size=pool_size,
        open=True,
        timeout=10,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
        check=_check_idle,
        reset=_used,
    )
    saver = PostgresSaver(pool, serde=serializer())
    try:
        saver.setup()
    except BaseException:
        pool.close()  # its workers would live on, and complain at exit
        raise
    return saver


def close_checkpointer(saver: Any) -> None:
    if callable(getattr(saver, "close", None)):  # SQLite: every thread's connection
        saver.close()
        return
    conn = getattr(saver, "conn", None)
    close = getattr(conn, "close", None)
    if callable(close):
        close()


def ping_checkpointer(saver: Any) -> None:
    """Raise when the checkpointer's database cannot be read. A read that failed on a
    connection the server dropped is tried once more, after the pool checked every idle
    connection (a restart drops them all; each would otherwise fail one read)."""
    config = {"configurable": {"thread_id": "__vitrina_readyz__", "checkpoint_ns": ""}}
    try:
        saver.get_tuple(config)
    except Exception as exc:
        if not _connection_lost(exc):
            raise
        check = getattr(getattr(saver, "conn", None), "check", None)
        if callable(check):  # psycopg_pool.ConnectionPool.check: dead ones replaced
            check()
        saver.get_tuple(config)


def _connection_lost(exc: BaseException) -> bool:
    """A PostgreSQL connection-class failure (not a cancelled query, not SQLite's errors)."""
    if not type(exc).__module__.startswith("psycopg"):
        return False
    from psycopg import OperationalError
    from psycopg.errors import QueryCanceled

    return isinstance(exc, OperationalError) and not isinstance(exc, QueryCanceled)
