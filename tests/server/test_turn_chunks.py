"""A turn's SSE events go out in chunks: the first at once, those that follow within the
window together, and the turn's end without waiting for the window."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any

from vitrina.server import turns
from vitrina.server.store import ThreadRecord


class _Turn(turns.TurnRunner):
    """A runner whose turn emits scripted events: one step, then (once the test has seen the
    first chunk) two steps at once, then the result."""

    def __init__(self) -> None:
        super().__init__(object(), None, workers=1, max_rows=10)  # type: ignore[arg-type]
        self.first_seen = threading.Event()

    def _work(self, thread: ThreadRecord, text: str, emit: Any) -> None:
        emit({"type": "step", "step": "understand"})
        self.first_seen.wait(10)
        emit({"type": "step", "step": "plan"})
        emit({"type": "step", "step": "generate_sql"})
        emit({"type": "result", "run_id": "r1"})
        emit(turns._DONE)


def test_events_are_chunked_and_the_end_does_not_wait(monkeypatch) -> None:
    monkeypatch.setattr(turns, "CHUNK_EVERY_S", 30.0)  # a window no turn end may wait out
    runner = _Turn()

    async def read() -> tuple[list[list[str]], float]:
        chunks: list[list[str]] = []
        started = time.monotonic()
        async for chunk in runner.stream(ThreadRecord("t1", "local"), "q"):
            events = [
                json.loads(line.removeprefix("data: "))
                for line in chunk.decode().splitlines()
                if line.startswith("data: ")
            ]
            chunks.append([e.get("step") or e["type"] for e in events])
            runner.first_seen.set()
        return chunks, time.monotonic() - started

    try:
        chunks, seconds = asyncio.run(read())
    finally:
        runner.close()
    assert chunks == [["understand"], ["plan", "generate_sql", "result"]]
    assert seconds < 10, seconds  # the turn's end cut the 30 s window short
