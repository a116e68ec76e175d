"""The board store on SQLite and on PostgreSQL: keyed writes find, never duplicate."""

from __future__ import annotations

import threading
import uuid
from pathlib import Path

from vitrina.team.board import BoardStore, board_url
from vitrina.team.lifecycle import TaskKind, TaskStatus


def _build(store: BoardStore):
    return store.create_build(
        key=f"b-{uuid.uuid4().hex[:8]}",
        title="Платежи",
        brief="title: Платежи",
        workspace="/tmp/ws",
        phase="scope",
    )


def test_keyed_rows_are_created_once(board_url: str) -> None:
    store = BoardStore(board_url)
    build, created = _build(store)
    assert created and build.status == "running"
    again, created = store.create_build(
        key=build.key, title="other", brief="", workspace="", phase="scope"
    )
    assert not created and again.id == build.id and again.title == "Платежи"

    task, created = store.create_task(
        build_id=build.id,
        key="step:scoping",
        kind=TaskKind.WORK,
        title="Scope",
        role="scoping",
        phase="scope",
        step="scoping",
    )
    same, created2 = store.create_task(
        build_id=build.id,
        key="step:scoping",
        kind=TaskKind.WORK,
        title="x",
        role="x",
        phase="x",
        step="x",
    )
    assert created and not created2 and same.id == task.id and same.role == "scoping"
    assert task.status is TaskStatus.NEW and len(store.tasks(build.id)) == 1

    comment, created = store.add_comment(
        task_id=task.id,
        key="verdict",
        author="data-steward",
        text="ok",
        verdict={"verdict": "APPROVED", "amendments": []},
    )
    second, created2 = store.add_comment(
        task_id=task.id, key="verdict", author="data-steward", text="changed"
    )
    assert created and not created2 and second.id == comment.id and second.text == "ok"
    assert second.verdict == {"verdict": "APPROVED", "amendments": []}

    assert store.set_marker(task.id, "merged", 0, "abc") is True
    assert store.set_marker(task.id, "merged", 0, "def") is False
    assert store.marker(task.id, "merged", 0).value == "abc"

    _att, created = store.attach(
        task_id=task.id,
        name="screenshot.png",
        path="/x.png",
        media_type="image/png",
        sha256="0" * 64,
    )
    att2, created2 = store.attach(
        task_id=task.id,
        name="screenshot.png",
        path="/y.png",
        media_type="image/png",
        sha256="1" * 64,
    )
    assert created and not created2 and att2.path == "/x.png"
    store.close()


def test_status_is_compare_and_set(board_url: str) -> None:
    store = BoardStore(board_url)
    build, _ = _build(store)
    task, _ = store.create_task(
        build_id=build.id,
        key="t",
        kind=TaskKind.WORK,
        title="t",
        role="scoping",
        phase="scope",
        step="scoping",
    )
    assert store.set_status(task.id, TaskStatus.NEW, TaskStatus.IN_PROGRESS)
    assert not store.set_status(
        task.id, TaskStatus.NEW, TaskStatus.BLOCKED
    )  # someone moved it first
    assert store.get_task(task.id).status is TaskStatus.IN_PROGRESS
    store.close()


def test_two_writers_race_for_one_review(board_url: str) -> None:
    """Two processes opening the same review at once end with one review task."""
    store = BoardStore(board_url)
    build, _ = _build(store)
    ids: list[int] = []

    def open_review() -> None:
        other = BoardStore(board_url)
        task, _ = other.create_task(
            build_id=build.id,
            key="review:1:data-steward:1",
            kind=TaskKind.REVIEW,
            title="Review",
            role="data-steward",
            phase="scope",
            step="scoping",
        )
        ids.append(task.id)
        other.close()

    threads = [threading.Thread(target=open_review) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(ids)) == 1 and len(store.tasks(build.id, kind=TaskKind.REVIEW)) == 1
    store.close()


def test_audit_log_keeps_every_action(board_url: str) -> None:
    store = BoardStore(board_url)
    build, _ = _build(store)
    store.audit(
        build_id=build.id,
        actor="chart-builder",
        action="merge",
        outcome="denied",
        reason="not allowed",
    )
    store.audit(
        build_id=build.id, actor="coordinator", action="merge", outcome="done", commit="abc"
    )
    log = store.audit_log(build.id)
    assert [(e.actor, e.outcome) for e in log] == [
        ("chart-builder", "denied"),
        ("coordinator", "done"),
    ]
    assert log[1].detail == {"commit": "abc"}
    store.close()


def test_board_url_follows_the_state_url(tmp_path: Path) -> None:
    assert board_url("postgresql://u@h/db", tmp_path) == "postgresql+psycopg://u@h/db"
    assert board_url(None, tmp_path) == f"sqlite:///{tmp_path / 'team' / 'board.sqlite'}"
