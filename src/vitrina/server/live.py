"""A turn in flight, kept in the server's store so a reload or a second tab can follow it.

The answer's stream belongs to the request that asked; a reload dropped it and showed an
empty "new dialog" until the turn ended (issue 34). Here each turn writes what its stream
carries into the store as it goes: first the question, then each step, then a short end
(the result itself is read from the checkpoints, as any finished turn). Any page, in any
tab, on any server process over the same state database, can replay the turn from a
sequence number and follow it to its end (`follow`, Server-Sent Events with ``id:``).

Only the dialog's latest turn is kept: a new turn deletes the rows of the finished one.
A turn whose process died never writes its end: while a turn runs, its process writes a
``beat`` every HEARTBEAT_S (a step may wait on a model for a minute), and a turn with no
event for STALE_S counts as gone, so a crash leaves its dialog "busy" for a minute at most.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Column, Float, Index, Integer, MetaData, String, Table, Text, delete, select
from sqlalchemy.exc import DatabaseError
from sse_starlette import ServerSentEvent
from starlette.concurrency import run_in_threadpool

from vitrina.server.store import Store

log = logging.getLogger("vitrina.server")

POLL_S = 0.25  # how often a follower looks for new events
HEARTBEAT_S = 15.0  # a running turn's process says it is alive this often
STALE_S = 60.0  # a turn with no event for this long is gone (its process died)
MAX_FOLLOW_S = 1800.0  # a follower's stream ends after this long whatever happens
MAX_EVENTS = 500  # events one turn keeps at most (a turn has ~20)
BATCH = 100  # events read at a time
SEP = "\n"

metadata = MetaData()
live_events = Table(
    "vitrina_live_events",
    metadata,
    Column("turn_id", String(32), primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("thread_id", String(64), nullable=False),
    Column("data", Text, nullable=False),
    Column("created_at", Float, nullable=False),
    Index("ix_vitrina_live_events_thread", "thread_id", "created_at"),
)


@dataclass
class LiveState:
    """The dialog's latest turn as the store has it."""

    turn_id: str
    question: str
    started_at: float
    last_seq: int
    last_at: float
    done: bool

    @property
    def running(self) -> bool:
        return not self.done and time.time() - self.last_at < STALE_S

    def public(self) -> dict[str, Any]:
        return {
            "turn_id": self.turn_id,
            "question": self.question,
            "started_at": self.started_at,
            "events": self.last_seq,
        }


class LiveTurn:
    """The writer of one turn's events (called from the turn's worker thread)."""

    def __init__(self, log: LiveLog, thread_id: str, turn_id: str) -> None:
        self.log, self.thread_id, self.turn_id = log, thread_id, turn_id
        self.seq = 0
        self.ended = False
        self._lock = threading.Lock()  # the turn's thread and the heartbeat both write

    def add(self, event: dict[str, Any]) -> None:
        """Keep a stream event: a step or an error as it is, a result as its run id and kind
        (the page reads the finished turn from the dialog), the end as ``done``. Nothing is
        kept after ``done``: a beat the heartbeat took up just before the turn ended would
        otherwise be the last event, and the finished turn would read as running for STALE_S
        (the dialog "busy", a reload following a turn that is over)."""
        kind = event.get("type")
        if kind == "result":
            result = event.get("result") or {}
            event = {"type": "result", "run_id": event.get("run_id"), "kind": result.get("kind")}
        with self._lock:
            if self.ended or (self.seq >= MAX_EVENTS and kind != "done"):
                return
            self.seq += 1
            self.log.write(self.thread_id, self.turn_id, self.seq, event)
            self.ended = kind == "done"

    def finish(self) -> None:
        self.log.untrack(self)
        self.add({"type": "done"})


class LiveLog:
    """Turns in flight in the store's database (its own table, made on first use)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._ready = False
        self._lock = threading.Lock()
        self._running: set[LiveTurn] = set()
        self._stop = threading.Event()
        self._beats: threading.Thread | None = None

    @property
    def engine(self) -> Any:
        """The store's engine, with this table made on first use."""
        with self._lock:
            if not self._ready:
                try:
                    metadata.create_all(self.store.engine, checkfirst=True)
                except DatabaseError:  # another process created it between check and CREATE
                    metadata.create_all(self.store.engine, checkfirst=True)
                self._ready = True
        return self.store.engine

    def begin(self, thread_id: str, question: str) -> LiveTurn:
        """A new turn of the dialog: the finished one's rows go, the question is event 0."""
        import uuid

        turn_id = uuid.uuid4().hex
        with self.engine.begin() as conn:
            conn.execute(delete(live_events).where(live_events.c.thread_id == thread_id))
            conn.execute(
                live_events.insert().values(
                    turn_id=turn_id,
                    seq=0,
                    thread_id=thread_id,
                    data=_dumps({"type": "turn", "turn_id": turn_id, "question": question}),
                    created_at=time.time(),
                )
            )
        turn = LiveTurn(self, thread_id, turn_id)
        with self._lock:
            self._running.add(turn)
            if self._beats is None:
                self._beats = threading.Thread(
                    target=self._beat, name="vitrina-live-beat", daemon=True
                )
                self._beats.start()
        return turn

    def untrack(self, turn: LiveTurn) -> None:
        with self._lock:
            self._running.discard(turn)

    def _beat(self) -> None:
        """Every HEARTBEAT_S, a ``beat`` of each turn running here (until `close`)."""
        while not self._stop.wait(HEARTBEAT_S):
            with self._lock:
                turns = list(self._running)
            for turn in turns:
                try:
                    turn.add({"type": "beat"})
                except Exception as exc:  # the store is away: followers will call it gone
                    log.warning("heartbeat of a live turn not written: %s", exc)

    def close(self) -> None:
        self._stop.set()

    def write(self, thread_id: str, turn_id: str, seq: int, event: dict[str, Any]) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                live_events.insert().values(
                    turn_id=turn_id,
                    seq=seq,
                    thread_id=thread_id,
                    data=_dumps(event),
                    created_at=time.time(),
                )
            )

    def forget(self, thread_id: str) -> None:
        """The dialog's live rows, when the dialog is deleted."""
        with self.engine.begin() as conn:
            conn.execute(delete(live_events).where(live_events.c.thread_id == thread_id))

    def current(self, thread_id: str) -> LiveState | None:
        """The dialog's latest turn (running, finished or gone), or None when it has none."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(live_events.c.seq, live_events.c.data, live_events.c.created_at)
                .where(live_events.c.thread_id == thread_id)
                .order_by(live_events.c.seq)
            ).all()
        if not rows or rows[0].seq != 0:
            return None
        first = json.loads(rows[0].data)
        last = rows[-1]
        return LiveState(
            turn_id=first["turn_id"],
            question=first.get("question") or "",
            started_at=rows[0].created_at,
            last_seq=last.seq,
            last_at=last.created_at,
            done=json.loads(last.data).get("type") == "done",
        )

    def running(self, thread_id: str) -> LiveState | None:
        """The dialog's turn in flight, or None."""
        found = self.current(thread_id)
        return found if found is not None and found.running else None

    def events(self, turn_id: str, after: int) -> list[tuple[int, dict[str, Any]]]:
        """The turn's events after sequence number `after`, oldest first (BATCH at most)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(live_events.c.seq, live_events.c.data)
                .where(live_events.c.turn_id == turn_id)
                .where(live_events.c.seq > after)
                .order_by(live_events.c.seq)
                .limit(BATCH)
            ).all()
        return [(r.seq, json.loads(r.data)) for r in rows]


def _dumps(event: dict[str, Any]) -> str:
    return json.dumps(event, ensure_ascii=False, default=str)


def _event(seq: int, payload: dict[str, Any]) -> ServerSentEvent:
    return ServerSentEvent(data=_dumps(payload), id=str(seq), sep=SEP)


GONE = {
    "type": "error",
    "error": {
        "code": "turn_lost",
        "message": "the answer stopped without an end (the server restarted?); ask again",
        "message_ru": "ответ прервался (сервер перезапускался?); задайте вопрос ещё раз",
    },
}


async def follow(live: LiveLog, thread_id: str, after: int = -1) -> AsyncIterator[ServerSentEvent]:
    """The dialog's latest turn as Server-Sent Events from sequence number `after` on (the
    ``id:`` of each event), to its end; ``{"type": "idle"}`` alone when there is none."""
    state = await run_in_threadpool(live.current, thread_id)
    if state is None or (state.done and after >= state.last_seq):
        yield _event(max(after, 0), {"type": "idle"})
        return
    seq, deadline = after, time.monotonic() + MAX_FOLLOW_S
    while time.monotonic() < deadline:
        found = await run_in_threadpool(live.events, state.turn_id, seq)
        for seq, payload in found:  # the last one read is where to go on from
            yield _event(seq, payload)
            if payload.get("type") == "done":
                return
        if not found:
            now = await run_in_threadpool(live.current, thread_id)
            if now is None or now.turn_id != state.turn_id:  # ended, and a newer turn began
                yield _event(seq + 1, {"type": "done"})
                return
            if not now.running and not now.done:  # its process died: no end will come
                yield _event(seq + 1, GONE)
                return
            await asyncio.sleep(POLL_S)
    yield _event(seq + 1, GONE)
