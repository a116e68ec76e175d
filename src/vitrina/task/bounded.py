"""A size cap on every value a task node stores in state.

State is checkpointed after every node (and the checkpointer keeps versions), so one 30 MB
cell in a step's preview used to grow the task database by hundreds of megabytes. Every node
update goes through `bounded_update`: any string longer than `MAX_VALUE_CHARS` is written to
a file under the task's folder (`state-values/`, within the task folder's quota,
`task_folder_max_bytes`, shared with the steps' tables and files) and replaced in state by a
short reference; past the quota it is cut, and a trace event says so.

>>> bounded_update({"summary": "ok"}, None) == {"summary": "ok"}
True
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from vitrina.task.quota import FolderQuota
from vitrina.trace import TraceEvent
from vitrina.trace.events import EventKind

MAX_VALUE_CHARS = 64_000  # one string in state; a page of text, far above any summary or cell
FILES_QUOTA_BYTES = 200 << 20  # the task folder's quota when no settings are at hand
HEAD_CHARS = 200  # what stays in state of a spilled value
MAX_DEPTH = 12  # nesting walked (state values are shallow: plan -> step -> output -> preview)


class _Spill:
    def __init__(self, out_dir: str | None, quota_bytes: int) -> None:
        self.root = Path(out_dir) if out_dir else None
        self.folder = self.root / "state-values" if self.root else None
        self.quota_bytes = quota_bytes
        self.events: list[TraceEvent] = []

    def __call__(self, value: str) -> str:
        head = value[:HEAD_CHARS]
        if self.folder is not None and self.root is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
            # the whole task folder counts: tables, files and spilled values share one quota
            used = FolderQuota(self.root, self.quota_bytes).used()
            data = value.encode("utf-8")
            if used + len(data) <= self.quota_bytes:
                path = self.folder / f"{hashlib.sha256(data).hexdigest()[:16]}.txt"
                if not path.exists():
                    path.write_bytes(data)
                self.events.append(
                    TraceEvent(
                        node="state",
                        kind=EventKind.MEASUREMENT,
                        message="a large value went to a file",
                        data={"chars": len(value), "file": str(path)},
                    )
                )
                return f"{head}… [{len(value)} characters; the whole value is in {path}]"
        self.events.append(
            TraceEvent(
                node="state",
                kind=EventKind.REJECTED,
                message="a large value was cut: the task's file quota is used up",
                data={"chars": len(value), "kept": HEAD_CHARS},
            )
        )
        return f"{head}… [{len(value)} characters, cut: over the task's file quota]"


def _cap(value: Any, spill: _Spill, depth: int = 0) -> Any:
    if isinstance(value, str):
        return spill(value) if len(value) > MAX_VALUE_CHARS else value
    if depth >= MAX_DEPTH:
        return value
    if isinstance(value, (list, tuple)):
        items = [_cap(v, spill, depth + 1) for v in value]
        same = all(a is b for a, b in zip(items, value, strict=True))
        return value if same else type(value)(items)
    if isinstance(value, dict):
        capped = {k: _cap(v, spill, depth + 1) for k, v in value.items()}
        return value if all(capped[k] is v for k, v in value.items()) else capped
    if isinstance(value, BaseModel) and not isinstance(value, TraceEvent):
        changes = {}
        for name in type(value).model_fields:
            current = getattr(value, name)
            capped = _cap(current, spill, depth + 1)
            if capped is not current:
                changes[name] = capped
        return value.model_copy(update=changes) if changes else value
    return value


def bounded_update(update: Any, out_dir: str | None, quota_bytes: int | None = None) -> Any:
    """`update` with every over-long string spilled to a file (or cut), plus trace events;
    spilled files count against the task folder's quota (``quota_bytes``)."""
    if not isinstance(update, dict):
        return update
    spill = _Spill(out_dir, FILES_QUOTA_BYTES if quota_bytes is None else quota_bytes)
    capped = {k: (v if k == "trace" else _cap(v, spill)) for k, v in update.items()}
    if spill.events:
        capped["trace"] = [*(capped.get("trace") or []), *spill.events]
    return capped


def bounded(node: Callable[..., Any]) -> Callable[..., Any]:
    """A node whose updates go through `bounded_update` (the signature is kept for LangGraph)."""

    @functools.wraps(node)
    def wrapper(state: Any, *args: Any, **kwargs: Any) -> Any:
        update = node(state, *args, **kwargs)
        out_dir = (state or {}).get("out_dir") if isinstance(state, dict) else None
        runtime = kwargs.get("runtime", args[0] if args else None)
        settings = getattr(getattr(runtime, "context", None), "settings", None)
        return bounded_update(update, out_dir, getattr(settings, "task_folder_max_bytes", None))

    return wrapper
