"""Who resumes a task after a crash: one claim per (task, checkpoint) in `tasks.sqlite`,
held by the process that made it; a claim whose process has died is taken over.

Two servers starting over one task store must not both resume a task, so a resume is
claimed once per checkpoint. But a resumed run can die again before it writes a new
checkpoint (a second crash inside the step in flight, e.g. after the step's work and before
its commit). Keyed on the checkpoint alone, its claim stayed and every later start skipped
the task: shown `running` for good, every decision refused. So the claim names its holder,
and a holder that no longer runs gives the claim up.

The store is a local SQLite file, so every claimer runs on this machine and can tell whether
a holder still runs: a holder is `BOOT:PID:START` (the boot id, the process id and the
process's start time in clock ticks since boot, from /proc), so a reboot or a pid used again
by a new process does not pass for the old holder. Without /proc (macOS) the pid alone says.

>>> alive(this_process())
True
>>> alive(None), alive("")
(False, False)
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

PROC = Path("/proc")


def _boot_id() -> str:
    try:
        return (PROC / "sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def _start_ticks(pid: int) -> str | None:
    """The process's start time (field 22 of /proc/PID/stat); None when it does not run,
    "" where there is no /proc."""
    if not PROC.is_dir():
        return ""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[-1].split()  # the name in (...) may hold spaces
    return fields[19] if len(fields) > 19 else None


def this_process() -> str:
    return f"{_boot_id()}:{os.getpid()}:{_start_ticks(os.getpid()) or ''}"


def alive(holder: str | None) -> bool:
    """Whether the process a claim names still runs (an empty or unreadable holder: no)."""
    parts = (holder or "").rsplit(":", 2)
    if len(parts) != 3 or not parts[1].isdigit():
        return False
    boot, pid, start = parts[0], int(parts[1]), parts[2]
    if boot != _boot_id():
        return False  # made before this machine last started
    if PROC.is_dir():
        return _start_ticks(pid) == start
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process with that pid
    return True


def ensure_table(cur: sqlite3.Cursor) -> None:
    """`task_resumes`, with the holder column (added to a table made before it had one)."""
    cur.execute(
        "CREATE TABLE IF NOT EXISTS task_resumes (task_id TEXT NOT NULL, "
        "checkpoint_id TEXT NOT NULL, holder TEXT, PRIMARY KEY (task_id, checkpoint_id))"
    )
    columns = {row[1] for row in cur.execute("PRAGMA table_info(task_resumes)").fetchall()}
    if "holder" not in columns:
        cur.execute("ALTER TABLE task_resumes ADD COLUMN holder TEXT")


def claim(cur: sqlite3.Cursor, task_id: str, checkpoint_id: str) -> bool:
    """Claim the resume of `task_id` from `checkpoint_id` for this process: True when it is
    new, or when its holder has died (taken over with a compare-and-set on the holder, so of
    two processes taking over the same claim one wins)."""
    ensure_table(cur)
    me = this_process()
    cur.execute(
        "INSERT OR IGNORE INTO task_resumes (task_id, checkpoint_id, holder) VALUES (?, ?, ?)",
        (task_id, checkpoint_id, me),
    )
    if cur.rowcount == 1:
        return True
    row = cur.execute(
        "SELECT holder FROM task_resumes WHERE task_id = ? AND checkpoint_id = ?",
        (task_id, checkpoint_id),
    ).fetchone()
    holder = row[0] if row else None
    if alive(holder):
        return False  # resumed by this process, or by another one that still runs
    cur.execute(
        "UPDATE task_resumes SET holder = ? WHERE task_id = ? AND checkpoint_id = ? "
        "AND holder IS ?",
        (me, task_id, checkpoint_id, holder),
    )
    return bool(cur.rowcount == 1)
