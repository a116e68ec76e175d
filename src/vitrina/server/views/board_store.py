"""The board's store for one request, and the board's 404, shared by the read views
(`views.board`) and people's actions (`views.board_actions`).

Why a module of its own: both halves open the team's store for one request and close it on
every path, and both answer a missing build, task or attachment; one place for each keeps
the two halves from drifting (the actions had their own 404 with other Russian words)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from vitrina.server.errors import ApiError
from vitrina.server.state import ServerState


@contextmanager
def board_store(state: ServerState) -> Iterator[Any]:
    """The team's BoardStore at the server's board URL, closed when the block ends (an
    error included)."""
    from vitrina.team import BoardStore, board_url

    store = BoardStore(board_url(state.settings.state_url, state.settings.home))
    try:
        yield store
    finally:
        store.close()


def not_found(what: str, said_ru: str) -> ApiError:
    """404 `board_not_found`: `what` in English ("task 7"), the Russian sentence whole
    ("задача 7 не найдена": the verb agrees with the noun, so the caller writes it)."""
    return ApiError(404, "board_not_found", f"{what} not found", said_ru)


def task_or_404(store: Any, task_id: int) -> Any:
    """The board task `task_id`, or the board's 404."""
    task = store.get_task(task_id)
    if task is None:
        raise not_found(f"task {task_id}", f"задача {task_id} не найдена")
    return task
