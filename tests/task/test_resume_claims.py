"""One claim per (task, checkpoint) to resume a task, held by a process: refused while its
holder runs, taken over once the holder has died (a resumed run that crashed again before
its next checkpoint must not leave the task stuck), and one winner among takers."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from vitrina.task import claims


def _db(tmp_path: Path) -> sqlite3.Connection:
    return sqlite3.connect(tmp_path / "tasks.sqlite", isolation_level=None)


def _holder(cur: sqlite3.Cursor) -> str | None:
    return cur.execute("SELECT holder FROM task_resumes").fetchone()[0]


def _dead_holder() -> str:
    """The holder a process that has exited leaves: its pid and start time, then gone."""
    code = "from vitrina.task.claims import this_process; print(this_process())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_a_claim_is_refused_while_its_holder_runs(tmp_path: Path) -> None:
    cur = _db(tmp_path).cursor()
    assert claims.claim(cur, "t1", "c1") is True
    assert _holder(cur) == claims.this_process()
    assert claims.claim(cur, "t1", "c1") is False  # this process already resumes it
    assert claims.claim(cur, "t1", "c2") is True  # a later checkpoint is a new claim


def test_a_dead_holders_claim_is_taken_over(tmp_path: Path) -> None:
    cur = _db(tmp_path).cursor()
    claims.ensure_table(cur)
    dead = _dead_holder()
    assert not claims.alive(dead)
    cur.execute("INSERT INTO task_resumes VALUES ('t1', 'c1', ?)", (dead,))
    assert claims.claim(cur, "t1", "c1") is True
    assert _holder(cur) == claims.this_process()
    assert claims.claim(cur, "t1", "c1") is False  # once


def test_a_claim_from_before_holders_is_taken_over(tmp_path: Path) -> None:
    """A table made by an earlier version (no holder column): its rows hold no process."""
    cur = _db(tmp_path).cursor()
    cur.execute(
        "CREATE TABLE task_resumes (task_id TEXT NOT NULL, checkpoint_id TEXT NOT NULL, "
        "PRIMARY KEY (task_id, checkpoint_id))"
    )
    cur.execute("INSERT INTO task_resumes VALUES ('t1', 'c1')")
    assert claims.claim(cur, "t1", "c1") is True
    assert claims.claim(cur, "t1", "c1") is False


def test_a_pid_used_again_or_another_boot_is_not_the_holder() -> None:
    boot, pid, start = claims.this_process().rsplit(":", 2)
    assert claims.alive(f"{boot}:{pid}:{start}")
    assert not claims.alive(f"{boot}:{pid}:{start}9")  # the same pid, another process
    assert not claims.alive(f"another-boot:{pid}:{start}")
    assert not claims.alive("garbage")
