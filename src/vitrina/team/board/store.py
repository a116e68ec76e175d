"""The board store: builds, tasks, comments, markers, attachments and the audit log.

Every method is one short transaction. Writes that must happen once are keyed: the
insert either creates the row or finds the one an earlier (perhaps crashed) run wrote,
and says which (`created`). A status change is a compare-and-set on the old status, so
two writers can never both move the same task.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, insert, select, update
from sqlalchemy.exc import IntegrityError

from vitrina.team.board import schema as s
from vitrina.team.board.records import Attachment, AuditEntry, Build, Comment, Marker, Task
from vitrina.team.lifecycle import TaskKind, TaskStatus


def board_url(state_url: str | None, home: Path) -> str:
    """PostgreSQL when the state URL is one (several workers share the board), else SQLite."""
    if state_url and state_url.split(":", 1)[0].split("+", 1)[0] in ("postgresql", "postgres"):
        return "postgresql+psycopg://" + state_url.split("://", 1)[1]
    if state_url and state_url.startswith("sqlite"):
        return state_url
    path = home / "team" / "board.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path}"


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA busy_timeout=10000")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _loads(value: str | None) -> Any:
    return json.loads(value) if value else None


class BoardStore:
    """The board over one SQLAlchemy engine (SQLite file or PostgreSQL database)."""

    def __init__(self, url: str) -> None:
        if url.startswith("postgresql://") or url.startswith("postgres://"):
            url = "postgresql+psycopg://" + url.split("://", 1)[1]
        self.url = url
        self.engine: Engine = create_engine(url, pool_pre_ping=True)
        if url.startswith("sqlite"):
            event.listen(self.engine, "connect", _sqlite_pragmas)
        s.metadata.create_all(self.engine)

    def close(self) -> None:
        self.engine.dispose()

    def _insert_once(self, table: Any, row: dict[str, Any]) -> bool:
        """Insert a keyed row; False when its key is already there (written before)."""
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(table).values(**row))
        except IntegrityError:
            return False
        return True

    # builds ---------------------------------------------------------------------------
    def create_build(
        self,
        *,
        key: str,
        title: str,
        brief: str,
        workspace: str,
        phase: str,
        brief_path: str | None = None,
        out_dir: str | None = None,
    ) -> tuple[Build, bool]:
        """The build with this key, created when it does not exist yet."""
        now = time.time()
        row = {
            "key": key,
            "title": title,
            "brief": brief,
            "brief_path": brief_path,
            "status": "running",
            "phase": phase,
            "workspace": workspace,
            "out_dir": out_dir,
            "created_at": now,
            "updated_at": now,
        }
        created = self._insert_once(s.builds, row)
        build = self.find_build(key)
        assert build is not None
        return build, created

    def find_build(self, key: str) -> Build | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(s.builds).where(s.builds.c.key == key)).mappings().first()
        return _build(row) if row else None

    def get_build(self, build_id: int) -> Build | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(s.builds).where(s.builds.c.id == build_id)).mappings().first()
        return _build(row) if row else None

    def builds(self, limit: int = 50) -> list[Build]:
        with self.engine.connect() as conn:
            rows = (
                conn.execute(select(s.builds).order_by(s.builds.c.id.desc()).limit(limit))
                .mappings()
                .all()
            )
        return [_build(r) for r in rows]

    def update_build(
        self,
        build_id: int,
        *,
        status: str | None = None,
        phase: str | None = None,
        result: dict[str, Any] | None = None,
    ) -> None:
        values: dict[str, Any] = {"updated_at": time.time()}
        if status is not None:
            values["status"] = status
        if phase is not None:
            values["phase"] = phase
        if result is not None:
            values["result"] = _json(result)
        with self.engine.begin() as conn:
            conn.execute(update(s.builds).where(s.builds.c.id == build_id).values(**values))

    # tasks ----------------------------------------------------------------------------
    def create_task(
        self,
        *,
        build_id: int,
        key: str,
        kind: TaskKind,
        title: str,
        role: str,
        phase: str,
        step: str,
        body: str = "",
        parent_id: int | None = None,
        round: int = 1,
        branch: str | None = None,
    ) -> tuple[Task, bool]:
        """The task with this key in the build, created (status new) when it does not exist."""
        now = time.time()
        row = {
            "build_id": build_id,
            "key": key,
            "kind": str(kind),
            "title": title,
            "body": body,
            "status": str(TaskStatus.NEW),
            "role": role,
            "phase": phase,
            "step": step,
            "parent_id": parent_id,
            "round": round,
            "branch": branch,
            "created_at": now,
            "updated_at": now,
        }
        created = self._insert_once(s.tasks, row)
        task = self.find_task(build_id, key)
        assert task is not None
        return task, created

    def find_task(self, build_id: int, key: str) -> Task | None:
        with self.engine.connect() as conn:
            row = (
                conn.execute(
                    select(s.tasks).where(s.tasks.c.build_id == build_id, s.tasks.c.key == key)
                )
                .mappings()
                .first()
            )
        return Task(**row) if row else None

    def get_task(self, task_id: int) -> Task | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(s.tasks).where(s.tasks.c.id == task_id)).mappings().first()
        return Task(**row) if row else None

    def tasks(
        self, build_id: int, *, kind: TaskKind | None = None, parent_id: int | None = None
    ) -> list[Task]:
        query = select(s.tasks).where(s.tasks.c.build_id == build_id)
        if kind is not None:
            query = query.where(s.tasks.c.kind == str(kind))
        if parent_id is not None:
            query = query.where(s.tasks.c.parent_id == parent_id)
        with self.engine.connect() as conn:
            rows = conn.execute(query.order_by(s.tasks.c.id)).mappings().all()
        return [Task(**r) for r in rows]

    def set_status(
        self, task_id: int, expected: TaskStatus, target: TaskStatus, **fields: Any
    ) -> bool:
        """Compare-and-set: move the task only if it is still ``expected``; True when moved."""
        values = {"status": str(target), "updated_at": time.time(), **fields}
        with self.engine.begin() as conn:
            result = conn.execute(
                update(s.tasks)
                .where(s.tasks.c.id == task_id, s.tasks.c.status == str(expected))
                .values(**values)
            )
        return result.rowcount == 1

    def update_task(self, task_id: int, **fields: Any) -> None:
        """Fields other than the status (role, branch, body)."""
        if "status" in fields:
            raise ValueError("statuses change through set_status (compare-and-set)")
        with self.engine.begin() as conn:
            conn.execute(
                update(s.tasks)
                .where(s.tasks.c.id == task_id)
                .values(updated_at=time.time(), **fields)
            )

    # comments -------------------------------------------------------------------------
    def add_comment(
        self,
        *,
        task_id: int,
        key: str,
        author: str,
        text: str,
        round: int = 1,
        handoff: dict[str, Any] | None = None,
        verdict: dict[str, Any] | None = None,
        problems: list[str] | None = None,
    ) -> tuple[Comment, bool]:
        row = {
            "task_id": task_id,
            "key": key,
            "author": author,
            "text": text,
            "round": round,
            "handoff": _json(handoff) if handoff is not None else None,
            "verdict": _json(verdict) if verdict is not None else None,
            "problems": _json(problems or []),
            "created_at": time.time(),
        }
        created = self._insert_once(s.comments, row)
        with self.engine.connect() as conn:
            found = (
                conn.execute(
                    select(s.comments).where(
                        s.comments.c.task_id == task_id, s.comments.c.key == key
                    )
                )
                .mappings()
                .first()
            )
        assert found is not None
        return _comment(found), created

    def comments(self, task_id: int) -> list[Comment]:
        with self.engine.connect() as conn:
            rows = (
                conn.execute(
                    select(s.comments)
                    .where(s.comments.c.task_id == task_id)
                    .order_by(s.comments.c.id)
                )
                .mappings()
                .all()
            )
        return [_comment(r) for r in rows]

    # markers and attachments ------------------------------------------------------------
    def set_marker(self, task_id: int, name: str, round: int, value: str = "") -> bool:
        """True when the marker is new; False when it was already there (nothing changes)."""
        row = {
            "task_id": task_id,
            "name": name,
            "round": round,
            "value": value,
            "created_at": time.time(),
        }
        return self._insert_once(s.markers, row)

    def markers(self, task_id: int) -> list[Marker]:
        with self.engine.connect() as conn:
            rows = (
                conn.execute(
                    select(s.markers).where(s.markers.c.task_id == task_id).order_by(s.markers.c.id)
                )
                .mappings()
                .all()
            )
        return [Marker(**{k: v for k, v in r.items() if k != "id"}) for r in rows]

    def marker(self, task_id: int, name: str, round: int) -> Marker | None:
        return next((m for m in self.markers(task_id) if m.name == name and m.round == round), None)

    def attach(
        self, *, task_id: int, name: str, path: str, media_type: str, sha256: str
    ) -> tuple[Attachment, bool]:
        row = {
            "task_id": task_id,
            "name": name,
            "path": path,
            "media_type": media_type,
            "sha256": sha256,
            "created_at": time.time(),
        }
        created = self._insert_once(s.attachments, row)
        found = next(a for a in self.attachments(task_id) if a.name == name)
        return found, created

    def attachments(self, task_id: int) -> list[Attachment]:
        with self.engine.connect() as conn:
            rows = (
                conn.execute(
                    select(s.attachments)
                    .where(s.attachments.c.task_id == task_id)
                    .order_by(s.attachments.c.id)
                )
                .mappings()
                .all()
            )
        return [Attachment(**r) for r in rows]

    # audit ----------------------------------------------------------------------------
    def audit(
        self,
        *,
        build_id: int,
        actor: str,
        action: str,
        outcome: str,
        task_id: int | None = None,
        **detail: Any,
    ) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                insert(s.audit).values(
                    build_id=build_id,
                    task_id=task_id,
                    actor=actor,
                    action=action,
                    outcome=outcome,
                    detail=_json(detail),
                    at=time.time(),
                )
            )

    def audit_log(self, build_id: int, *, task_id: int | None = None) -> list[AuditEntry]:
        query = select(s.audit).where(s.audit.c.build_id == build_id)
        if task_id is not None:
            query = query.where(s.audit.c.task_id == task_id)
        with self.engine.connect() as conn:
            rows = conn.execute(query.order_by(s.audit.c.id)).mappings().all()
        return [AuditEntry(**{**r, "detail": _loads(r["detail"]) or {}}) for r in rows]


def _build(row: Any) -> Build:
    return Build(**{**row, "result": _loads(row["result"]) or {}})


def _comment(row: Any) -> Comment:
    return Comment(
        **{
            **row,
            "handoff": _loads(row["handoff"]),
            "verdict": _loads(row["verdict"]),
            "problems": _loads(row["problems"]) or [],
        }
    )
