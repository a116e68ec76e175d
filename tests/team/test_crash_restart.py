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


# `vitrina build` in a child process that SIGKILLs itself at a hook: right after the board
# records its N-th merge (the "merge" action, done), the same point every run on any machine;
# polling the board from outside raced the build on a fast machine.
KILL_AT_MERGE = """
import os, signal, sys
from vitrina.team import primitives

after, seen, init = int(sys.argv[1]), [0], primitives.Primitives.__init__

def killing_init(self, *args, on_action=None, **kwargs):
    def hook(action, detail):
        if on_action is not None:
            on_action(action, detail)
        if action == "merge" and detail.get("outcome") == "done":
            seen[0] += 1
            if seen[0] == after:
                os.kill(os.getpid(), signal.SIGKILL)
    init(self, *args, on_action=hook, **kwargs)

primitives.Primitives.__init__ = killing_init
from vitrina.cli import main
sys.argv = ["vitrina", *sys.argv[2:]]
main()
"""


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
    arguments = [
        "build",
        str(brief),
        "--db",
        f"duckdb:///{demo_db}",
        "--board",
        f"sqlite:///{board_file}",
        "--no-browser",
        "--json",
    ]
    killed = subprocess.run(
        [sys.executable, "-c", KILL_AT_MERGE, str(after_merges), *arguments],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    with create_engine(f"sqlite:///{board_file}").connect() as conn:
        merged = conn.execute(
            text("SELECT COUNT(*) FROM team_markers WHERE name = 'merged'")
        ).scalar()
    assert merged == after_merges, "killed at the hook: exactly N merges are on the board"
    command = [sys.executable, "-m", "vitrina.cli", *arguments]
    rerun = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stdout[-2000:] + rerun.stderr[-2000:]
    store = BoardStore(f"sqlite:///{board_file}")
    try:
        [build] = store.builds()
        assert_nothing_twice(store, build.id)
    finally:
        store.close()
