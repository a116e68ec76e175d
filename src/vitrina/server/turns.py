"""Running one turn for the API: in a worker thread, its progress pushed to an SSE stream.

The turn runs to its end even when the client goes away, so a dialog is never left half
written; the response (sse-starlette's EventSourceResponse, async: no thread per open
stream) only reads from a queue. One turn at a time per dialog in a process, and at most
`streams_per_token` open streams per token (`slots`, shared with the task event streams).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.background import BackgroundTask

from vitrina.server.errors import ApiError
from vitrina.server.history import run_links
from vitrina.server.store import Store, ThreadRecord
from vitrina.server.streams import DEFAULT_PER_OWNER, StreamSlots

log = logging.getLogger("vitrina.server")
_DONE = object()


SEP = "\n"  # line ends of the stream (sse-starlette's default is CRLF)
PING_S = 15


def sse(payload: dict[str, Any]) -> ServerSentEvent:
    """One Server-Sent Event: a single ``data:`` line of JSON."""
    return ServerSentEvent(data=json.dumps(payload, ensure_ascii=False, default=str), sep=SEP)


def event_stream(events: AsyncIterator[ServerSentEvent], release: Any = None) -> EventSourceResponse:
    """The response of a stream: async, pinged, never cached; `release` runs when it ends."""
    return EventSourceResponse(events, sep=SEP, ping=PING_S,
                               background=BackgroundTask(release) if release is not None else None,
                               headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def public_result(result: Any, max_rows: int) -> dict[str, Any]:
    """An AskResult for a client: file paths become API links, rows are capped."""
    data = result.model_dump(mode="json")
    data.pop("excel", None)
    data.pop("chart_png", None)
    rows = data.get("rows") or []
    data["rows_truncated"] = len(rows) > max_rows
    data["rows"] = rows[:max_rows]
    data.update(run_links(result.run_id, excel=bool(result.excel), chart=bool(result.chart)))
    return data


class TurnRunner:
    """Runs turns of an AskService on a bounded pool; tracks which dialogs are busy."""

    def __init__(self, service: Any, store: Store, *, workers: int, max_rows: int,
                 streams_per_token: int = DEFAULT_PER_OWNER) -> None:
        self.service = service
        self.store = store
        self.max_rows = max_rows
        self.slots = StreamSlots(streams_per_token)
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="vitrina-turn")
        self._busy: set[str] = set()
        self._lock = threading.Lock()

    def claim(self, thread_id: str) -> None:
        with self._lock:
            if thread_id in self._busy:
                raise ApiError(409, "thread_busy", "this dialog is still answering the previous message",
                               "диалог ещё отвечает на предыдущее сообщение")
            self._busy.add(thread_id)

    def release(self, thread_id: str) -> None:
        with self._lock:
            self._busy.discard(thread_id)

    def _work(self, thread: ThreadRecord, text: str, emit: Any) -> None:
        try:
            for item in self.service.stream(text, thread_id=thread.id, segment=thread.segment,
                                            topics=thread.topics or None):
                if hasattr(item, "step"):
                    emit({"type": "step", "step": item.step, "ms": item.ms,
                          "trace": [e.model_dump(mode="json") for e in item.trace]})
                    continue
                if item.run_id:
                    self.store.add_run(item.run_id, thread.id)
                self.store.touch_thread(thread.id, item.question or text)
                emit({"type": "result", "run_id": item.run_id, "thread_id": thread.id,
                      "result": public_result(item, self.max_rows)})
        except Exception as exc:  # the stream must end with an event the client can show
            log.error("turn failed on dialog %s", thread.id, exc_info=exc)
            emit({"type": "error", "error": {"code": "turn_failed",
                                             "message": f"the question could not be answered: {type(exc).__name__}",
                                             "message_ru": f"на вопрос не удалось ответить: {type(exc).__name__}"}})
        finally:
            self.release(thread.id)
            emit(_DONE)

    async def stream(self, thread: ThreadRecord, text: str) -> AsyncIterator[ServerSentEvent]:
        """SSE events of one turn; the caller has already claimed the dialog."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Any] = asyncio.Queue()

        def emit(item: Any) -> None:
            with contextlib.suppress(RuntimeError):  # loop gone (shutdown): the turn itself still finished
                loop.call_soon_threadsafe(queue.put_nowait, item)

        try:
            self.pool.submit(self._work, thread, text, emit)
        except RuntimeError:
            self.release(thread.id)
            raise
        while True:
            item = await queue.get()
            if item is _DONE:
                return
            yield sse(item)

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=False)
