"""Checkpointers for every graph: SQLite under VITRINA_HOME by default.

The serializer is given an explicit allow-list of Vitrina's own state models, so a
checkpoint can never be used to instantiate arbitrary classes when it is read back.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver

_registered: list[type] = []


def register_state_types(types: Iterable[type]) -> None:
    """Allow these classes to be stored in and read back from checkpoints."""
    for cls in types:
        if cls not in _registered:
            _registered.append(cls)


def serializer() -> JsonPlusSerializer:
    return JsonPlusSerializer(allowed_msgpack_modules=[(c.__module__, c.__name__) for c in _registered])


def sqlite_checkpointer(path: Path) -> SqliteSaver:
    """A thread-safe SQLite checkpointer at `path` (created when missing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: durable across crashes of the process
    saver = SqliteSaver(conn, serde=serializer())
    saver.setup()
    return saver
