"""The task folder quota: every byte a task's steps write counts against one budget.

A step used to write a 100 MB result three times (the table as JSON, as CSV, and a state copy
spilled to a file), with no limit on the folder. Now everything under the task's folder
(step tables, `write_file` files, copies of ask files, sandbox outputs, spilled state values)
counts against ``task_folder_max_bytes``: a table that would not fit is refused before it is
written (`save_table` takes the bytes left), and a tool call that left the folder over the
quota anyway has what it wrote removed and fails with a message that names the quota
(decision 146).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from vitrina.task.messages import text

MAX_ENTRIES = 20_000  # files and folders looked at in one walk; a task folder holds far fewer


class QuotaExceeded(Exception):
    """Writing this would take the task's folder over its quota (the message is for users)."""


Snapshot = dict[str, tuple[int, int]]  # path -> (size, mtime_ns)


def _walk(root: Path) -> Snapshot:
    """Every regular file under ``root`` with its size and mtime (a bounded walk: past
    MAX_ENTRIES the rest is not seen, and what is seen is already over any sane quota)."""
    found: Snapshot = {}
    stack = [root]
    seen = 0
    while stack and seen < MAX_ENTRIES:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > MAX_ENTRIES:
                break
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(Path(entry.path))
                elif entry.is_file(follow_symlinks=False):
                    info = entry.stat(follow_symlinks=False)
                    found[entry.path] = (info.st_size, info.st_mtime_ns)
            except OSError:
                continue
    return found


@dataclass(frozen=True)
class FolderQuota:
    """One task's folder and its byte budget."""

    root: Path
    max_bytes: int
    lang: str = "ru"

    def snapshot(self) -> Snapshot:
        return _walk(self.root)

    def used(self) -> int:
        return sum(size for size, _ in self.snapshot().values())

    def left(self) -> int:
        return max(0, self.max_bytes - self.used())

    def refusal(self, what: str, need: int | None = None) -> QuotaExceeded:
        """The error for a write of ``what`` (``need`` bytes, when known) that does not fit."""
        return QuotaExceeded(
            text(
                "folder_quota",
                self.lang if self.lang in ("ru", "en") else "ru",
                what=what,
                need=_mb(need) if need is not None else "?",
                used=_mb(self.used()),
                quota=_mb(self.max_bytes),
            )
        )

    def undo(self, before: Snapshot) -> list[str]:
        """Remove the files written or changed since ``before``; their paths."""
        removed = []
        for path, stamp in self.snapshot().items():
            if before.get(path) != stamp:
                try:
                    os.unlink(path)
                except OSError:
                    continue
                removed.append(path)
        return removed


def _mb(n: int) -> str:
    return f"{n / (1 << 20):.1f}"
