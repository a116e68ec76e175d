"""A crash in the middle of a build, then a restart of the same brief: nothing is done twice.

The crash is raised at exact points between two writes (after a review is opened, after a
verdict is posted, between the git merge and the board's merge marker, after a hand-off),
and once for real: the `vitrina build` process is killed with SIGKILL and started again.
"""

from __future__ import annotations

import collections
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from vitrina.team.board import BoardStore
from vitrina.team.lifecycle import TaskKind
from vitrina.team.primitives import MARK_MERGED, verdict_of
from vitrina.team.workspace import Workspace

from .conftest import ROOT

BRIEF = """title: Платежи 2025
period: 2025 год
kpis:
  - name: Сумма платежей
    by: месяц
  - name: Средний чек
    by: регион
"""


class Crash(RuntimeError):
    pass


def crash_at(action: str, nth: int, *, verdict: bool = False):
    seen = collections.Counter()

    def hook(name: str, detail: dict) -> None:
        if name != action or (verdict and not detail.get("verdict")):
            return
        seen[name] += 1
        if seen[name] == nth:
            raise Crash(f"crash after {action} #{nth}")

    return hook


def assert_nothing_twice(store: BoardStore, build_id: int) -> None:
    tasks = store.tasks(build_id)
    reviews = [(t.parent_id, t.role, t.round) for t in tasks if t.kind is TaskKind.REVIEW]
    assert len(reviews) == len(set(reviews)), "a review was opened twice"
    works = [t.step for t in tasks if t.kind is TaskKind.WORK]
    assert len(works) == len(set(works)) == 6
    for task in tasks:
        comments = store.comments(task.id)
        if task.kind is TaskKind.REVIEW:
            assert sum(1 for c in comments if c.verdict) == 1, (
                f"review {task.id} has not exactly one verdict"
            )
            assert verdict_of(comments) is not None
        keys = [c.key for c in comments]
        assert len(keys) == len(set(keys))
    build = store.get_build(build_id)
    workspace = Workspace(Path(build.workspace))
    merges = workspace.merges()
    assert len(merges) == 6, "a branch was merged twice (or not at all)"
    for task in (t for t in tasks if t.kind is TaskKind.WORK):
        assert store.marker(task.id, MARK_MERGED, 0) is not None
        tip = workspace.tip(task.branch)
        parents = [
            subprocess.run(
                ["git", "--git-dir", str(workspace.path), "rev-parse", f"{m}^2"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            for m in merges
        ]
        assert parents.count(tip) == 1
    assert build.status == "done"


@pytest.mark.parametrize(
    ("action", "nth", "verdict"),
    [
        ("create_review", 2, False),  # the review exists, the coordinator's comment does not
        ("comment", 3, True),  # the verdict is on the board, the review is not done yet
        ("git_merged", 3, False),  # main has the merge, the board has no merge marker
        ("hand_off", 4, False),  # the task is in review, no review opened yet
    ],
)
def test_a_crash_then_a_restart_duplicates_nothing(
    run_build, tmp_path: Path, action: str, nth: int, verdict: bool
) -> None:
    board = f"sqlite:///{tmp_path / 'crash-board.sqlite'}"
    with pytest.raises(Crash):
        run_build(BRIEF, board=board, on_event=crash_at(action, nth, verdict=verdict))
    service, report = run_build(BRIEF, board=board)
    assert report.status == "done", report.blocked
    assert len(service.store.builds()) == 1  # the same build was resumed, not a new one started
    assert_nothing_twice(service.store, report.build.id)


@pytest.mark.parametrize("after_merges", [1, 2, 4])
def test_a_killed_build_process_resumes_without_duplicates(
    demo_db: Path, tmp_path: Path, after_merges: int
) -> None:
    """SIGKILL `vitrina build` after N merges, start it again: one review, verdict and merge
    each."""
    brief = tmp_path / "brief.yaml"
    brief.write_text(BRIEF, encoding="utf-8")
    board_file = tmp_path / "board.sqlite"
    env = {**os.environ, "VITRINA_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT / "src")}
    command = [
        sys.executable,
        "-m",
        "vitrina.cli",
        "build",
        str(brief),
        "--db",
        f"duckdb:///{demo_db}",
        "--board",
        f"sqlite:///{board_file}",
        "--no-browser",
        "--json",
    ]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    merged = 0
    while time.monotonic() < deadline and process.poll() is None:
        if board_file.exists():
            try:
                with create_engine(f"sqlite:///{board_file}").connect() as conn:
                    merged = conn.execute(
                        text("SELECT COUNT(*) FROM team_markers WHERE name = 'merged'")
                    ).scalar()
            except Exception:  # the schema is still being created
                merged = 0
        if merged >= after_merges:
            process.send_signal(signal.SIGKILL)
            break
        time.sleep(0.02)
    process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL, "the build finished before it could be killed"
    rerun = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stdout[-2000:] + rerun.stderr[-2000:]
    store = BoardStore(f"sqlite:///{board_file}")
    try:
        [build] = store.builds()
        assert_nothing_twice(store, build.id)
    finally:
        store.close()
