"""Checkpointers for every graph: SQLite under VITRINA_HOME by default.

The serializer is given an explicit allow-list of Vitrina's own state models, so a
checkpoint can never be used to instantiate arbitrary classes when it is read back.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver

_registered: list[type] = []


class StateFileError(Exception):
    """A state database (checkpoints, tokens, tasks) cannot be read; the message names it
    and says what to do. The CLI prints it as one line."""


def unreadable(where: str, exc: BaseException) -> StateFileError:
    """The one-line error for a state database that is damaged or is not a database."""
    return StateFileError(
        f"{where}: the state database cannot be read ({str(exc).splitlines()[0]}). Move it aside "
        f"(e.g. `mv {where} {where}.broken`) and run again: a new one is created / файл состояния "
        f"повреждён или не является базой SQLite: переименуйте его и запустите команду снова"
    )


BUSY_TIMEOUT_S = 30.0  # how long a writer waits for another writer


def register_state_types(types: Iterable[type]) -> None:
    """Allow these classes to be stored in and read back from checkpoints."""
    for cls in types:
        if cls not in _registered:
            _registered.append(cls)


def serializer() -> JsonPlusSerializer:
    return JsonPlusSerializer(
        allowed_msgpack_modules=[(c.__module__, c.__name__) for c in _registered]
    )


class ThreadLocalSqliteSaver(SqliteSaver):
    """LangGraph's SqliteSaver with one connection per thread instead of one shared
    connection behind a process-wide lock (31% of a loaded server's samples waited on it).

    Every connection runs in WAL mode, so readers never wait for the writer and the writer
    waits (busy_timeout) only for another writer, in this process or another one.
    """

    def __init__(self, path: Path, *, serde: JsonPlusSerializer) -> None:
        self._path = path
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        # the thread each connection is lent to; a dead thread's connection goes back to
        # `_free` for the next new thread. LangGraph writes checkpoints from fresh background
        # threads on every run: a connection per thread and never returned was ~5 new SQLite
        # connections (and file descriptors) per turn, held until the process ended.
        self._lent: dict[int, tuple[threading.Thread, sqlite3.Connection]] = {}
        self._free: list[sqlite3.Connection] = []
        self._all_lock = threading.Lock()  # guards the lists of connections, never a query
        super().__init__(self._connect(), serde=serde)

    def _new_connection(self) -> sqlite3.Connection:
        conn = sqlite3.connect(str(self._path), check_same_thread=False, timeout=BUSY_TIMEOUT_S)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(
            "PRAGMA synchronous=NORMAL"
        )  # WAL + NORMAL: durable across crashes of the process
        return conn

    def _connect(self) -> sqlite3.Connection:
        """This thread's connection: one given back by a thread that has ended, or a new one."""
        me = threading.current_thread()
        with self._all_lock:
            for key, (thread, conn) in list(self._lent.items()):
                if not thread.is_alive():
                    del self._lent[key]
                    self._free.append(conn)
            conn = self._free.pop() if self._free else None
        if conn is not None and conn.in_transaction:
            conn.rollback()  # whatever an ended thread left open is not this thread's
        if conn is None:
            conn = self._new_connection()
            with self._all_lock:
                self._all.append(conn)
        with self._all_lock:
            self._lent[id(me)] = (me, conn)
        self._local.conn = conn
        return conn

    @property
    def conn(self) -> sqlite3.Connection:
        found = getattr(self._local, "conn", None)
        return found if found is not None else self._connect()

    @conn.setter
    def conn(self, value: sqlite3.Connection) -> None:
        self._local.conn = value

    @contextmanager
    def cursor(self, transaction: bool = True) -> Iterator[sqlite3.Cursor]:
        self.setup()
        conn = self.conn
        cur = conn.cursor()
        try:
            yield cur
        finally:
            if transaction:
                conn.commit()
            cur.close()

    def close(self) -> None:
        """Close every thread's connection."""
        with self._all_lock:
            conns, self._all = self._all, []
            self._lent.clear()
            self._free.clear()
        for conn in conns:
            conn.close()


def sqlite_checkpointer(path: Path) -> ThreadLocalSqliteSaver:
    """A thread-safe SQLite checkpointer at `path` (created when missing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        saver = ThreadLocalSqliteSaver(path, serde=serializer())
        saver.setup()
    except sqlite3.DatabaseError as exc:
        raise unreadable(str(path), exc) from exc
    return saver
