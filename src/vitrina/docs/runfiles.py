"""The files of one docs run: the queue, the ledger, the lineage store and the trace.

The graph's checkpointed state holds only pointers (the run folder, a cursor, a total),
so a checkpoint costs the same at the first measure and at the ten-thousandth. What a
measure produced lives here: `ledger.jsonl` (one line per queue position, appended with
one write), `lineage.jsonl` (the lineage JSON, addressed by offset from the ledger) and
`trace.jsonl`. A line cut by a crash is ignored on resume and its measure is redone, so
counts stay exact and nothing is done twice.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import IO, Any

DOC_VERSION = "4"  # bump when the document layout changes: every document is rewritten once
MANIFEST = (
    ".vitrina-docs.json"  # in the output folder: what the last run wrote, for the no-work check
)
QUEUE = "queue.json"
LEDGER = "ledger.jsonl"
LINEAGE = "lineage.jsonl"
TRACE = "trace.jsonl"


@lru_cache(maxsize=1)
def file_mode() -> int:
    """The mode a plain `open()` gives a new file: 0666 less the umask (0644 under 022).

    `mkstemp` creates its temp file 0600, and the rename keeps that: a web server or a
    teammate could not read the documents. Every output is set to this mode instead. Read
    once per process (a process that changes its umask calls `file_mode.cache_clear()`).
    """
    return 0o666 & ~_umask()


def _umask() -> int:
    try:  # Linux says it without changing it
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    current = os.umask(0o022)  # elsewhere: read it by setting it, and put it back at once
    os.umask(current)
    return current


@contextmanager
def atomic_open(path: Path) -> Iterator[IO[str]]:
    """A text file written through a temp file in the same folder and renamed into place.

    A kill mid-write leaves the old file (or none), never a truncated one; the file gets
    the mode a new file would (`file_mode`).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:40]}.", suffix=".tmp")
    try:
        os.fchmod(fd, file_mode())
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            yield fh
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write `path` through a temp file in the same folder and rename it into place.

    A kill mid-write leaves the old file (or none), never a truncated one.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:40]}.", suffix=".tmp")
    try:
        os.fchmod(fd, file_mode())
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class RunFiles:
    """One run folder; every method is safe to call again after a crash."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)

    def reset(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        for name in (QUEUE, LEDGER, LINEAGE, TRACE):
            (self.root / name).unlink(missing_ok=True)

    # --- queue ------------------------------------------------------------------------
    def write_queue(
        self, queue: list[dict[str, Any]], missed: list[dict[str, Any]], meta: dict[str, Any]
    ) -> None:
        atomic_write(
            self.root / QUEUE,
            json.dumps({"queue": queue, "missed": missed, "meta": meta}, ensure_ascii=False),
        )

    def read_queue(self) -> dict[str, Any]:
        return json.loads((self.root / QUEUE).read_text(encoding="utf-8"))

    # --- ledger -----------------------------------------------------------------------
    def record(self, row: dict[str, Any], lineage_json: str | None = None) -> None:
        """Append one measure's result; its lineage first, so a ledger row never points at
        nothing."""
        self.root.mkdir(parents=True, exist_ok=True)
        if lineage_json is not None:
            data = (lineage_json + "\n").encode("utf-8")
            with open(self.root / LINEAGE, "ab") as fh:
                offset = fh.seek(0, os.SEEK_END)
                fh.write(data)
            row = {**row, "lineage_at": [offset, len(data) - 1]}
        _append(self.root / LEDGER, json.dumps(row, ensure_ascii=False, default=str))

    def rows(self) -> dict[int, dict[str, Any]]:
        """Ledger rows by queue position (the last row of a position wins; cut lines skipped)."""
        out: dict[int, dict[str, Any]] = {}
        for row in _lines(self.root / LEDGER):
            if isinstance(row.get("i"), int):
                out[row["i"]] = row
        return out

    def lineage_bytes(self, row: dict[str, Any], fh: Any) -> bytes | None:
        at = row.get("lineage_at")
        if not at:
            return None
        fh.seek(at[0])
        data = fh.read(at[1])
        return data if len(data) == at[1] else None

    def open_lineage(self) -> Any:
        path = self.root / LINEAGE
        return open(path, "rb") if path.exists() else open(os.devnull, "rb")

    # --- trace ------------------------------------------------------------------------
    def trace(self, events: list[dict[str, Any]]) -> None:
        if events:
            _append(
                self.root / TRACE,
                "\n".join(json.dumps(e, ensure_ascii=False, default=str) for e in events),
            )

    def trace_events(self) -> list[dict[str, Any]]:
        return list(_lines(self.root / TRACE))


def _append(path: Path, text: str) -> None:
    """One write() of whole lines: a crash can cut only the last line, which readers skip."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (text + "\n").encode("utf-8"))
    finally:
        os.close(fd)


def _lines(path: Path) -> Iterator[dict[str, Any]]:
    if not path.exists():
        return
    with path.open(encoding="utf-8", errors="replace") as fh:
        for line in fh:
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut by a crash: its measure is documented again
            if isinstance(value, dict):
                yield value
