"""A size cap on every value a task node stores in state.

State is checkpointed after every node (and the checkpointer keeps versions), so one 30 MB
cell in a step's preview used to grow the task database by hundreds of megabytes. Every node
update goes through `bounded_update`: any string longer than `MAX_VALUE_CHARS` is written to
a file under the task's folder (`state-values/`, within `FILES_QUOTA_BYTES` per task) and
replaced in state by a short reference; past the quota it is cut, and a trace event says so.

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

from vitrina.trace import TraceEvent
from vitrina.trace.events import EventKind

MAX_VALUE_CHARS = 64_000  # one string in state; a page of text, far above any summary or cell
FILES_QUOTA_BYTES = 200 << 20  # spilled values of one task together
HEAD_CHARS = 200  # what stays in state of a spilled value
MAX_DEPTH = 12  # nesting walked (state values are shallow: plan -> step -> output -> preview)


class _Spill:
    def __init__(self, out_dir: str | None) -> None:
        self.folder = Path(out_dir) / "state-values" if out_dir else None
        self.events: list[TraceEvent] = []

    def __call__(self, value: str) -> str:
        head = value[:HEAD_CHARS]
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
            used = sum(f.stat().st_size for f in self.folder.iterdir() if f.is_file())
            data = value.encode("utf-8")
            if used + len(data) <= FILES_QUOTA_BYTES:
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


def bounded_update(update: Any, out_dir: str | None) -> Any:
    """`update` with every over-long string spilled to a file (or cut), plus trace events."""
    if not isinstance(update, dict):
        return update
    spill = _Spill(out_dir)
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
        return bounded_update(update, out_dir)

    return wrapper
