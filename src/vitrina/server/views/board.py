"""The build board of `vitrina build` over HTTP, behind the API token: builds, the work tasks
of a build in columns by status, and one task's page (comments with their parsed hand-offs
and verdicts, child reviews, attachments such as the screenshots, the artifact diff).

The page (`/board`) is a shell anyone may load; every byte of board data needs a token."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends
from fastapi.responses import FileResponse

from vitrina.server.assets import STATIC_DIR
from vitrina.server.auth import Who
from vitrina.server.row_policy import refuse_policed
from vitrina.server.state import ServerState, server_state
from vitrina.server.views.board_store import board_store, not_found, task_or_404

State = Annotated[ServerState, Depends(server_state)]
COLUMNS = ("new", "in_progress", "review", "rework", "blocked", "done")
MEDIA = {"image/png": ".png", "image/jpeg": ".jpg"}  # attachments served: images only
DIFF_CHARS = 200_000


def _summary(task: Any) -> dict[str, Any]:
    return {
        "id": task.id,
        "kind": str(task.kind),
        "title": task.title,
        "status": str(task.status),
        "role": task.role,
        "step": task.step,
        "phase": task.phase,
        "round": task.round,
        "parent_id": task.parent_id,
        "updated_at": task.updated_at,
    }


def _body(text: str) -> str:
    """A comment's free text without its ===HANDOFF=== / ===VERDICT=== blocks (the page shows
    the parsed blocks as fields); the whole text when it does not parse."""
    from vitrina.team import parse_comment

    try:
        return parse_comment(text).body.strip()
    except Exception:  # a comment the protocol cannot read is shown as written
        return text


def board_page() -> FileResponse:
    return FileResponse(
        STATIC_DIR / "board.html", media_type="text/html", headers={"Cache-Control": "no-cache"}
    )


def board_builds(state: State, who: Who) -> dict[str, Any]:
    refuse_policed(state, who.owner)
    with board_store(state) as store:
        return {
            "builds": [
                {
                    "id": b.id,
                    "title": b.title,
                    "status": b.status,
                    "phase": b.phase,
                    "location": b.result.get("location"),
                }
                for b in store.builds(limit=100)
            ]
        }


def board_build(build_id: int, state: State, who: Who) -> dict[str, Any]:
    """The work tasks in columns by status, each with its reviews and their verdicts."""
    refuse_policed(state, who.owner)
    with board_store(state) as store:
        build = store.get_build(build_id)
        if build is None:
            raise not_found(f"build {build_id}", f"сборка {build_id} не найдена")
        tasks = store.tasks(build_id)
        columns: dict[str, list[dict[str, Any]]] = {c: [] for c in COLUMNS}
        for task in tasks:
            if str(task.kind) != "work":
                continue
            item = _summary(task)
            item["reviews"] = []
            for review in (t for t in tasks if t.parent_id == task.id):
                verdicts = [c.verdict for c in store.comments(review.id) if c.verdict]
                item["reviews"].append(
                    {
                        **_summary(review),
                        "verdict": (verdicts[-1] or {}).get("verdict") if verdicts else None,
                    }
                )
            columns.setdefault(str(task.status), []).append(item)
        return {
            "build": {
                "id": build.id,
                "title": build.title,
                "status": build.status,
                "phase": build.phase,
                "blocked": build.result.get("blocked"),
            },
            "columns": columns,
        }


def board_task(task_id: int, state: State, who: Who) -> dict[str, Any]:
    """One task: comments (text, parsed hand-off and verdict), reviews, attachments, diff."""
    refuse_policed(state, who.owner)
    from vitrina.team import Workspace

    with board_store(state) as store:
        task = task_or_404(store, task_id)
        build = store.get_build(task.build_id)
        diff = ""
        if build is not None and task.branch and str(task.kind) == "work":
            diff = Workspace(Path(build.workspace)).diff(task.branch)[:DIFF_CHARS]
        children = [t for t in store.tasks(task.build_id) if t.parent_id == task.id]
        return {
            "task": {**_summary(task), "body": task.body, "branch": task.branch},
            "comments": [
                {
                    "id": c.id,
                    "author": c.author,
                    "round": c.round,
                    "text": c.text,
                    "body": _body(c.text),  # the text above the blocks, for people
                    "handoff": c.handoff,
                    "verdict": c.verdict,
                    "problems": c.problems,
                }
                for c in store.comments(task.id)
            ],
            "children": [_summary(t) for t in children],
            "attachments": [
                {
                    "name": a.name,
                    "media_type": a.media_type,
                    "url": f"/api/board/tasks/{task.id}/attachments/{a.name}",
                }
                for a in store.attachments(task.id)
                if a.media_type in MEDIA
            ],
            "diff": diff,
        }


def board_attachment(task_id: int, name: str, state: State, who: Who) -> FileResponse:
    """An image attached to the task, only from the team's attachments folder."""
    refuse_policed(state, who.owner)
    root = (state.settings.home / "team" / "attachments").resolve()
    with board_store(state) as store:
        found = next((a for a in store.attachments(task_id) if a.name == name), None)
    if found is None or found.media_type not in MEDIA:
        raise not_found(f"attachment {name!r}", f"вложение {name!r} не найдено")
    path = Path(found.path).resolve()
    if not path.is_relative_to(root) or not path.is_file():
        raise not_found(f"attachment {name!r}", f"вложение {name!r} не найдено")
    return FileResponse(
        path,
        media_type=found.media_type,
        headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"},
    )
