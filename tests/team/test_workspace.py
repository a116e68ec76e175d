"""The git workspace: a branch per task, writes and merges that happen once, hostile paths
refused."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from vitrina.team.errors import WorkspaceError
from vitrina.team.workspace import Workspace


def test_branch_write_read_merge(tmp_path: Path) -> None:
    ws = Workspace.open(tmp_path / "ws")
    ws.ensure_branch("task/1-scoping")
    first = ws.write("task/1-scoping", {"spec/scope.yaml": "kpis: []\n"}, "scope", author="scoping")
    assert first is not None
    assert (
        ws.write("task/1-scoping", {"spec/scope.yaml": "kpis: []\n"}, "scope", author="scoping")
        is None
    )
    assert ws.read("task/1-scoping", "spec/scope.yaml") == "kpis: []\n"
    assert (
        ws.read("main", "spec/scope.yaml") is None
    )  # the review reads the branch, main has nothing yet
    merged = ws.merge("task/1-scoping", "Merge task 1")
    again = ws.merge("task/1-scoping", "Merge task 1")
    assert merged.created and not again.created and again.sha == merged.sha
    assert ws.merges() == [merged.sha] and ws.read("main", "spec/scope.yaml") == "kpis: []\n"
    assert "spec/scope.yaml" in ws.diff("task/1-scoping")


def test_commits_carry_the_role_and_ignore_the_users_git_config(
    tmp_path: Path, monkeypatch
) -> None:
    hooks = tmp_path / "gitconfig"
    hooks.write_text("[commit]\n\tgpgsign = true\n[user]\n\tname = Someone Else\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(hooks))
    ws = Workspace.open(tmp_path / "ws")
    ws.write("task/2-data", {"datasets/a.sql": "SELECT 1"}, "data", author="data-engineer")
    log = subprocess.run(
        ["git", "--git-dir", str(ws.path), "log", "-1", "--format=%an <%ae>", "task/2-data"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert log == "data-engineer <data-engineer@team.vitrina.local>"


def test_two_tasks_merge_without_conflicts(tmp_path: Path) -> None:
    ws = Workspace.open(tmp_path / "ws")
    ws.write("task/1-scoping", {"spec/scope.yaml": "a: 1\n"}, "scope", author="scoping")
    ws.write(
        "task/2-dataset", {"spec/dataset.yaml": "b: 2\n"}, "dataset", author="dataset-architect"
    )
    ws.merge("task/1-scoping", "m1")
    ws.merge("task/2-dataset", "m2")
    assert sorted(ws.files("main", "spec")) == ["spec/dataset.yaml", "spec/scope.yaml"]
    assert len(ws.merges()) == 2


@pytest.mark.parametrize(
    "path",
    [
        "../escape.txt",
        "/etc/passwd",
        "spec/../../x",
        ".git/config",
        "a//b",
        "",
        "dashboard/.hidden",
        "spec/scope.yaml\n",
        "a b.txt",
    ],
)
def test_hostile_paths_are_refused(tmp_path: Path, path: str) -> None:
    ws = Workspace.open(tmp_path / "ws")
    with pytest.raises(WorkspaceError, match="not an allowed artifact path"):
        ws.write("task/1-x", {path: "x"}, "x", author="scoping")


@pytest.mark.parametrize("branch", ["../main", "task/1 x", "-delete", "refs/heads/main/"])
def test_hostile_branch_names_are_refused(tmp_path: Path, branch: str) -> None:
    ws = Workspace.open(tmp_path / "ws")
    with pytest.raises(WorkspaceError, match="not an allowed branch name"):
        ws.write(branch, {"a.txt": "x"}, "x", author="scoping")
