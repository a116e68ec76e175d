"""Running one turn for the API: in a worker thread, its progress pushed to an SSE stream.

The turn runs to its end even when the client goes away, so a dialog is never left half
written; the response (sse-starlette's EventSourceResponse, async: no thread per open
stream) only reads from a queue. One turn at a time per dialog in a process, and at most
`streams_per_token` open streams per token (`slots`, shared with the task event streams).

Like `vitrina chat`, every message goes through the supervisor's intent rules first: a data
question (or the answer to a pending clarification) streams through the ask graph step by
step; a multi-step task starts on the task job (its plan is approved in the chat or on
/task); a metadata search, measure docs, a report or help go to the supervisor's roles.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.background import BackgroundTask

from vitrina.advisory import LocksExhausted, SessionHeld, SessionLocks, engine_session_locks
from vitrina.config import Settings
from vitrina.present.cells import cut_reply
from vitrina.server.docs_source import render_markdown
from vitrina.server.errors import ApiError
from vitrina.server.history import result_links
from vitrina.server.live import LiveLog, LiveTurn
from vitrina.server.roles import allows
from vitrina.server.seams import AskServing
from vitrina.server.store import Store, ThreadRecord
from vitrina.server.streams import DEFAULT_PER_OWNER, StreamSlots
from vitrina.server.tokens import owner_policy

log = logging.getLogger("vitrina.server")
_DONE = object()


SEP = "\n"  # line ends of the stream (sse-starlette's default is CRLF)
PING_S = 15
MAX_BATCH = 64  # events sent in one chunk at most
CHUNK_EVERY_S = 0.05  # a turn's events go out at most this often (`TurnRunner.stream`)
# turns (running or queued) one process holds the advisory lock of at once on a PostgreSQL
# state, all on one session (decision 212): a bound in code, far above what a process queues
MAX_TURN_LOCKS = 1000
# a refused message names the question that runs: its live record is looked for this often
NAME_TRIES, NAME_WAIT_S = 5, 0.1
DEFAULT_CELL_CHARS = Settings.model_fields["result_cell_max_chars"].default


def sse(payload: dict[str, Any]) -> ServerSentEvent:
    """One Server-Sent Event: a single ``data:`` line of JSON."""
    return ServerSentEvent(data=json.dumps(payload, ensure_ascii=False, default=str), sep=SEP)


def event_stream(
    events: AsyncIterator[ServerSentEvent | bytes], release: Any = None
) -> EventSourceResponse:
    """The response of a stream: async, pinged, never cached; `release` runs when it ends."""
    return EventSourceResponse(
        events,
        sep=SEP,
        ping=PING_S,
        background=BackgroundTask(release) if release is not None else None,
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


def public_result(result: Any, max_rows: int, max_chars: int) -> dict[str, Any]:
    """An AskResult for a client: file paths become API links, rows are capped, long text
    cells are cut (`cells_cut` counts them; the Excel download keeps the whole values)."""
    shown = result.model_copy(update={"rows": result.rows[:max_rows]})
    data = shown.model_dump(mode="json")
    data.pop("excel", None)
    data.pop("chart_png", None)
    data["rows_truncated"] = len(result.rows) > max_rows
    data.update(result_links(result))
    return cut_reply(data, max_chars)


def turn_note(steps: list[dict[str, Any]], result: Any) -> dict[str, Any]:
    """What a reload shows of a turn that its checkpoint does not hold: the step durations,
    the "model was unavailable" note and the suggested follow-ups (both made after the graph
    ran, from the turn's model budget and the catalog)."""
    return {
        "steps": steps,
        "model_unavailable": result.model_unavailable,
        "suggestions": list(result.suggestions or []),
    }


def web_markdown(markdown: str) -> str:
    """The supervisor's web reply without lines that name server files (the page links files)."""
    lines = markdown.splitlines()
    return "\n".join(line for line in lines if not line.startswith(("excel: ", "chart_png: ")))


class TurnRunner:
    """Runs turns of an AskService on a bounded pool; tracks which dialogs are busy.

    ``start_task(request) -> task_id`` starts a task on the app's task runner (the one the
    /task page follows); ``route`` is the supervisor (a RouteService over the same ask
    service), built on the first request that is not a data question."""

    def __init__(
        self,
        service: AskServing,
        store: Store,
        *,
        workers: int,
        max_rows: int,
        max_chars: int = DEFAULT_CELL_CHARS,
        start_task: Callable[..., str] | None = None,
        route: Any = None,
        streams_per_token: int = DEFAULT_PER_OWNER,
        docs_dir: Callable[[], Any] | None = None,
    ) -> None:
        self.service = service
        self.store = store
        self.max_rows = max_rows
        self.max_chars = max_chars
        self.start_task = start_task
        self._route = route
        self._docs_dir = docs_dir  # the manual /docs serves: the supervisor's docs answer it
        self._route_lock = threading.Lock()
        self.slots = StreamSlots(streams_per_token)
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="vitrina-turn")
        self._busy: set[str] = set()
        self._lock = threading.Lock()
        self.live = LiveLog(store)  # turns in flight, for a reload or another tab
        # on a PostgreSQL state: a turn holds its dialog's advisory lock (decision 168)
        self.locks = turn_locks(store)
        self._held: dict[str, SessionHeld] = {}

    def claim(self, thread_id: str) -> None:
        with self._lock:
            if thread_id in self._busy:
                raise busy_error()
            self._busy.add(thread_id)

    def claim_anywhere(self, thread_id: str) -> None:
        """Claim the dialog here, and refuse when a turn of it runs on another process over
        the same state database. On PostgreSQL the dialog's advisory lock says so, atomically
        (two processes accepting a message at the same moment: one gets it) and for a holder
        on any machine (a dead one's lock ended with its connection); on SQLite (one machine)
        the live events do."""
        try:
            self.claim(thread_id)
        except ApiError:
            found = self.live.running(thread_id)
            raise busy_error(found.question if found else None) from None
        try:
            running = self._lock_turn(thread_id) if self.locks else self.live.running(thread_id)
        except Exception:
            self.release(thread_id)
            raise
        if running is not None:
            self.release(thread_id)
            raise busy_error(running.question or None)

    def _lock_turn(self, thread_id: str) -> Any:
        """Take the dialog's lock (kept until `release`); None when taken, else what runs."""
        assert self.locks is not None
        try:
            held = self.locks.try_hold("turn", thread_id)
        except LocksExhausted:
            raise ApiError(
                503,
                "server_busy",
                f"{self.locks.limit} answers are being prepared on this server; send the "
                "question again in a moment",
                f"сервер уже готовит {self.locks.limit} ответов; отправьте вопрос ещё раз "
                "через минуту",
            ) from None
        if held is not None:
            with self._lock:
                self._held[thread_id] = held
            return None
        log.info("dialog %s answers on another server process: message refused", thread_id)
        for _ in range(NAME_TRIES):  # the other turn's record begins just after its lock
            found = self.live.running(thread_id)
            if found is not None:
                return found
            time.sleep(NAME_WAIT_S)
        return _Elsewhere()

    def open_turn(self, thread: ThreadRecord, text: str) -> LiveTurn | None:
        """Before the turn runs: its dialog named and used now, and its live record begun,
        so a reload or another tab sees the question from the moment it was accepted.
        A failure here is logged: the turn still runs, only a reload cannot follow it."""
        try:
            self.store.record_turn(thread.id, text)  # the title shows while it runs
            return self.live.begin(thread.id, text)
        except Exception as exc:
            log.warning("turn of dialog %s not kept for a reload: %s", thread.id, exc)
            return None

    def release(self, thread_id: str) -> None:
        with self._lock:
            self._busy.discard(thread_id)
            held = self._held.pop(thread_id, None)
        if held is not None:
            held.release()

    def route_service(self) -> Any:
        with self._route_lock:
            if self._route is None:
                from vitrina.route import RouteService

                manual = self._docs_dir() if self._docs_dir is not None else None
                self._route = RouteService(
                    self.service.settings,
                    ask_service=self.service,
                    docs_index=manual / "index.json" if manual is not None else None,
                )
            return self._route

    def intent(self, thread: ThreadRecord, text: str) -> tuple[str, bool]:
        """The supervisor's intent by its rules (no model call), and whether a clarification
        waits for this reply ("ask" then)."""
        from vitrina.ask import pending_of
        from vitrina.route import classify

        snapshot = self.service.graph.get_state({"configurable": {"thread_id": thread.id}})
        if pending_of(snapshot):
            return "ask", True
        return classify(text).intent, False

    def _ask(self, thread: ThreadRecord, text: str, emit: Any, waiting: bool) -> None:
        from vitrina.ask import AskResult

        steps: list[dict[str, Any]] = []
        for item in self.service.stream(
            text,
            thread_id=thread.id,
            segment=thread.segment,
            topics=thread.topics or None,
            waiting=waiting,
            policy=self.policy_of(thread.owner),
        ):
            if not isinstance(item, AskResult):  # a graph step
                steps.append({"step": item.step, "ms": item.ms})
                emit(
                    {
                        "type": "step",
                        "step": item.step,
                        "ms": item.ms,
                        "trace": [e.model_dump(mode="json") for e in item.trace],
                    }
                )
                continue
            checkpoint = item.checkpoint_id
            self.store.record_turn(
                thread.id,
                item.question or text,
                run_id=item.run_id,
                # what the checkpoint does not hold survives a reload
                note=("steps", turn_note(steps, item), checkpoint) if checkpoint else None,
            )
            emit(
                {
                    "type": "result",
                    "run_id": item.run_id,
                    "thread_id": thread.id,
                    "result": {
                        **public_result(item, self.max_rows, self.max_chars),
                        "kind": "ask",
                    },
                }
            )

    def policy_of(self, owner: str) -> Any:
        """The row policy of the dialog's owner (its token), or None ("local": no token)."""
        return owner_policy(self.store, owner)

    def _may_run_tasks(self, owner: str) -> bool:
        """Only analysts and admins start tasks (a dialog's owner is its token; "local" without
        auth)."""
        if owner == "local":
            return True
        record = self.store.token(owner)
        return record is not None and allows(record.role, "analyst")

    def _routed(self, thread: ThreadRecord, text: str, intent: str, emit: Any) -> None:
        """A request for another role: the reply is kept as a note of the dialog."""
        from vitrina.language.detect import detect_lang

        started = time.perf_counter()
        turn: dict[str, Any] = {
            "kind": "route",
            "question": text,
            "intent": intent,
            "lang": detect_lang(text),
        }
        if (
            intent == "task"
            and self.start_task is not None
            and not self._may_run_tasks(thread.owner)
        ):
            answer = (
                "Задачи доступны токенам с ролью analyst; у этого токена роль viewer."
                if turn["lang"] == "ru"
                else "Tasks need a token with the analyst role; this token is a viewer."
            )
            turn.update(
                status="refused", role="task", answer=answer, answer_html=render_markdown(answer)
            )
        elif intent == "task" and self.start_task is not None:
            from vitrina.route import strip_prefix

            turn.update(
                status="task",
                role="task",
                # the supervisor's "Задача:" chose the role and is no part of the task
                task_id=self.start_task(strip_prefix(text)[1], owner=thread.owner),
                answer=None,
            )
        else:
            result = self.route_service().handle(
                text,
                face="web",
                thread_id=f"{thread.id}-route",
                policy=self.policy_of(thread.owner),
                ask_thread=thread.id,  # a report is an answer of this dialog
            )
            if (result.report or {}).get("result"):
                self._report(thread, text, result, started, emit)
                return
            markdown = web_markdown(str(result.reply.get("markdown") or result.answer or ""))
            turn.update(
                status=result.status,
                role=result.role,
                intent=result.intent,
                answer=markdown,
                answer_html=render_markdown(markdown),
                # the search steps, plan scores and SQL: shown with "technical details" only
                details_html=render_markdown(str(result.reply.get("details_markdown") or "")),
                nodes=result.nodes,
            )
        ms = round((time.perf_counter() - started) * 1000, 2)
        turn["steps"] = [{"step": turn.get("role") or intent, "ms": ms}]
        emit({"type": "step", "step": turn["steps"][0]["step"], "ms": ms, "trace": []})
        self.store.record_turn(thread.id, text, note=("route", turn, None))
        emit({"type": "result", "run_id": None, "thread_id": thread.id, "result": turn})

    def _report(
        self, thread: ThreadRecord, text: str, result: Any, started: float, emit: Any
    ) -> None:
        """A report of the planner, shown as an answer: its run is an ask run of this dialog
        (table paged and sorted by run id, Excel, chart, follow-ups); the option chosen, in
        words, beside it, and every option's code and score for the technical details."""
        from vitrina.ask import AskResult
        from vitrina.route import report_note

        answer = AskResult.model_validate(result.report["result"])
        ms = round((time.perf_counter() - started) * 1000, 2)
        steps = [{"step": "report", "ms": ms}]
        emit({"type": "step", "step": "report", "ms": ms, "trace": []})
        note = {**turn_note(steps, answer), "report": report_note(result)}
        checkpoint = answer.checkpoint_id
        self.store.record_turn(
            thread.id,
            answer.question or text,
            run_id=answer.run_id,
            note=("steps", note, checkpoint) if checkpoint else None,
        )
        shown = public_result(answer, self.max_rows, self.max_chars)
        emit(
            {
                "type": "result",
                "run_id": answer.run_id,
                "thread_id": thread.id,
                "result": {**shown, "kind": "ask", "steps": steps, "report": note["report"]},
            }
        )

    def _work(self, thread: ThreadRecord, text: str, emit: Any) -> None:
        try:
            intent, waiting = self.intent(thread, text)
            if intent == "ask":
                self._ask(thread, text, emit, waiting)
            else:
                self._routed(thread, text, intent, emit)
        except Exception as exc:  # the stream must end with an event the client can show
            log.error("turn failed on dialog %s", thread.id, exc_info=exc)
            emit(
                {
                    "type": "error",
                    "error": {
                        "code": "turn_failed",
                        "message": f"the question could not be answered: {type(exc).__name__}",
                        "message_ru": f"на вопрос не удалось ответить: {type(exc).__name__}",
                    },
                }
            )
        finally:
            self.release(thread.id)
            emit(_DONE)

    async def stream(
        self, thread: ThreadRecord, text: str, live: LiveTurn | None = None
    ) -> AsyncIterator[bytes]:
        """SSE events of one turn; the caller has already claimed the dialog.

        The events go out in chunks at most every CHUNK_EVERY_S: a turn emits ~15 step
        events a few milliseconds apart, and each send through the ASGI stack (the loop's
        wake-up, the middlewares, the socket write) cost more than the event itself. The
        first event goes out at once; a step shows at most CHUNK_EVERY_S late."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Any] = asyncio.Queue()
        finished = asyncio.Event()

        def deliver(item: Any) -> None:  # on the loop
            queue.put_nowait(item)
            if item is _DONE:
                finished.set()

        def emit(item: Any) -> None:  # in the turn's thread: the JSON is encoded here, off
            # the loop, so a large result never holds up other clients' requests
            encoded = item if item is _DONE else sse(item).encode()
            with contextlib.suppress(
                RuntimeError
            ):  # loop gone (shutdown): the turn itself still finished
                loop.call_soon_threadsafe(deliver, encoded)

        try:
            self.pool.submit(self._work, thread, text, _kept(emit, live))
        except RuntimeError:
            self.release(thread.id)
            raise
        done = False
        while not done:
            items = [await queue.get()]
            while not queue.empty() and len(items) < MAX_BATCH:
                items.append(queue.get_nowait())
            done = _DONE in items
            chunk = b"".join(item for item in items if item is not _DONE)
            if chunk:
                yield chunk
            if not done:  # let the next events gather (the turn's end still ends the wait)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(finished.wait(), CHUNK_EVERY_S)

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=False)
        self.live.close()
        if self.locks is not None:
            self.locks.close()


class _Elsewhere:
    """A turn running on another process whose live record has not begun yet."""

    question = ""


def turn_locks(store: Store) -> SessionLocks | None:
    """Advisory locks on one session of the store's PostgreSQL engine (None on SQLite): one
    per turn claimed, queued or running."""
    engine = getattr(store, "engine", None)
    if getattr(getattr(engine, "dialect", None), "name", None) != "postgresql":
        return None
    return engine_session_locks(engine, limit=MAX_TURN_LOCKS)


def busy_error(question: str | None = None) -> ApiError:
    """409 in words: the dialog answers another message; what to do about it."""
    asked = f" «{question[:120]}»" if question else ""
    return ApiError(
        409,
        "thread_busy",
        f"this dialog is still answering the previous question{asked}; your text is kept: "
        "send it when that answer has come",
        f"диалог ещё отвечает на предыдущий вопрос{asked}; ваш текст сохранён — "
        "отправьте его, когда придёт ответ",
    )


def _kept(emit: Any, live: Any) -> Any:
    """`emit` that also keeps each event in the turn's live log (a failure there is logged,
    never the turn's failure)."""
    if live is None:
        return emit

    def both(item: Any) -> None:
        try:
            if item is _DONE:
                live.finish()
            else:
                live.add(item)
        except Exception as exc:
            log.warning("live event of a turn not kept: %s", exc)
        emit(item)

    return both
