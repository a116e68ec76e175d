"""Dialogs: create, list, read back from the checkpoints, and post a message (SSE)."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import Depends
from sse_starlette import EventSourceResponse

from vitrina.present.cells import cut_reply
from vitrina.server.auth import Principal, Who
from vitrina.server.errors import ApiError
from vitrina.server.history import thread_turns, with_notes
from vitrina.server.replies import rendered
from vitrina.server.state import ServerState, server_state
from vitrina.server.store import ThreadRecord
from vitrina.server.turns import event_stream
from vitrina.server.views.models import (
    Feedback,
    Message,
    NewThread,
    RenameThread,
    ThreadDetail,
    ThreadSummary,
)

State = Annotated[ServerState, Depends(server_state)]


def owned_thread(state: ServerState, who: Principal, thread_id: str) -> ThreadRecord:
    """The dialog if this token owns it; 404 otherwise (a foreign dialog looks like a missing
    one)."""
    record = state.store.thread(thread_id) if len(thread_id) <= 64 else None
    if record is None or record.owner != who.owner:
        raise ApiError(
            404,
            "thread_not_found",
            f"dialog {thread_id!r} not found",
            f"диалог {thread_id!r} не найден",
        )
    return record


def create_thread(body: NewThread, state: State, who: Who) -> dict[str, str]:
    """Start a dialog with its segment (auto or one of the catalog's) and optional topics."""
    unknown = [t for t in body.topics if t not in state.service.catalog.topics]
    if unknown:
        raise ApiError(
            422,
            "unknown_topic",
            f"unknown topics: {', '.join(unknown)}",
            f"неизвестные темы: {', '.join(unknown)}",
            known=sorted(state.service.catalog.topics),
        )
    info = state.service.catalog.info
    try:
        segment = info.dialog_segment(body.segment)
    except ValueError as exc:
        raise ApiError(
            422,
            "unknown_segment",
            str(exc),
            f"неизвестный сегмент «{body.segment}»: в каталоге есть "
            + ", ".join(["auto", *info.segment_ids()]),
            known=["auto", *info.segment_ids()],
        ) from exc
    thread_id = uuid.uuid4().hex[:16]
    state.store.create_thread(thread_id, who.owner, segment, body.topics)
    return {"id": thread_id}


def list_threads(state: State, who: Who) -> list[ThreadSummary]:
    """This token's dialogs, most recently used first."""
    return [ThreadSummary(**t.public()) for t in state.store.list_threads(who.owner)]


def get_thread(thread_id: str, state: State, who: Who) -> ThreadDetail:
    """A dialog's turns: status, question, SQL, answer, table, chart spec and trace of each
    (long text cells cut, `cells_cut` per turn; encoded in the worker thread). The turn in
    flight is read before the dialog: its title is written before its live record, so a turn
    seen running always comes with its title."""
    running = state.runner.live.running(thread_id) if len(thread_id) <= 64 else None
    record = owned_thread(state, who, thread_id)  # a foreign dialog's answer is a 404 all the same
    turns = with_notes(
        thread_turns(state.service.graph, thread_id),
        state.store.notes(thread_id, "steps"),
        state.store.notes(thread_id, "route"),
    )
    pending = (
        turns[-1]["clarification"] if turns and turns[-1]["status"] == "clarification" else None
    )
    limit = state.settings.result_cell_max_chars
    turns = [cut_reply(t, limit) if t.get("kind") == "ask" else t for t in turns]
    return rendered(
        ThreadDetail(
            **record.public(),
            turns=turns,
            pending_clarification=pending,
            live=running.public() if running else None,
        )
    )


def rename_thread(thread_id: str, body: RenameThread, state: State, who: Who) -> ThreadSummary:
    """Give a dialog a title of its own (the first question is the default)."""
    owned_thread(state, who, thread_id)
    state.store.rename_thread(thread_id, body.title.strip())
    return ThreadSummary(**owned_thread(state, who, thread_id).public())


def delete_thread(thread_id: str, state: State, who: Who) -> dict[str, str]:
    """Delete a dialog: its record, notes and checkpoints."""
    owned_thread(state, who, thread_id)
    state.runner.claim(thread_id)  # not while it answers
    try:
        checkpointer = state.service.checkpointer
        if hasattr(checkpointer, "delete_thread"):
            checkpointer.delete_thread(thread_id)
        state.store.delete_thread(thread_id)
        state.runner.live.forget(thread_id)
    finally:
        state.runner.release(thread_id)
    return {"id": thread_id, "status": "deleted"}


async def post_message(
    thread_id: str, body: Message, state: State, who: Who
) -> EventSourceResponse:
    """Ask (or answer a clarification); progress streams back as Server-Sent Events.

    Each event is one ``data:`` line of JSON: ``{"type": "step", "step", "ms", "trace"}`` per
    graph step, then ``{"type": "result", "run_id", "result"}`` (or ``{"type": "error"}``).
    """
    text = body.text.strip()
    limit = state.options.max_question_chars
    if not text or len(text) > limit:
        raise ApiError(
            422,
            "invalid_text",
            f"text must be 1 to {limit} characters",
            f"текст должен быть от 1 до {limit} символов",
        )
    from starlette.concurrency import run_in_threadpool

    record = await run_in_threadpool(owned_thread, state, who, thread_id)
    release = state.runner.slots.acquire(who.owner)
    try:
        await run_in_threadpool(state.runner.claim_anywhere, thread_id)
    except ApiError:
        release()
        raise
    live = await run_in_threadpool(state.runner.open_turn, record, text)
    return event_stream(state.runner.stream(record, text, live), release)


async def follow_turn(
    thread_id: str, state: State, who: Who, after: int = -1
) -> EventSourceResponse:
    """The dialog's latest turn as Server-Sent Events, replayed from event `after` (the
    ``id:`` of the last event seen; -1: from its question) and followed to its end: a
    reload or another tab sees the turn that runs. ``{"type": "turn", "question"}`` first,
    then the turn's ``step`` events, ``result`` (its run id: read the dialog for the answer)
    or ``error``, then ``done``; ``{"type": "idle"}`` alone when no turn runs."""
    from starlette.concurrency import run_in_threadpool

    from vitrina.server.live import follow

    await run_in_threadpool(owned_thread, state, who, thread_id)
    release = state.runner.slots.acquire(who.owner)
    return event_stream(follow(state.runner.live, thread_id, max(-1, after)), release)


def post_feedback(thread_id: str, body: Feedback, state: State, who: Who) -> dict[str, str]:
    """Rate one answer of an own dialog; it is kept per owner and lands in the eval review
    queue (`vitrina eval review`), so what users flag becomes an eval case."""
    from vitrina.eval import EvalStore, record_feedback

    owned_thread(state, who, thread_id)
    values = state.service.run_values(thread_id, body.run_id)
    if values is None:
        raise ApiError(
            404,
            "run_not_found",
            f"no answer {body.run_id!r} in this dialog",
            f"ответа {body.run_id!r} в этом диалоге нет",
        )
    store = EvalStore.from_settings(state.settings)
    try:
        case_id = record_feedback(
            store,
            owner=who.owner,
            thread_id=thread_id,
            ask_run_id=body.run_id,
            rating=body.rating,
            comment=body.comment,
            question=values.get("question") or "",
            answer=values.get("answer") or "",
            sql=values.get("sql"),
        )
    finally:
        store.close()
    state.store.add_note(
        uuid.uuid4().hex,
        thread_id,
        "feedback",
        {"run_id": body.run_id, "rating": body.rating, "comment": body.comment.strip()},
        ref=body.run_id,
    )
    return {"status": "saved", "case_id": case_id}
