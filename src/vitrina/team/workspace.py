"""The artifact workspace: a bare git repository, one branch per task, merged on acceptance.

Everything goes through git plumbing run as a subprocess with argument lists (no shell, no
working tree, no checkout): a write hashes the files, builds a tree on a private index and
moves the branch with a compare-and-swap ``update-ref``; a merge is ``merge-tree
--write-tree`` plus ``commit-tree`` with two parents. A crash between two commands leaves
either the old or the new branch tip, never a half-written tree, and repeating a write or
a merge changes nothing. The user's global git configuration is ignored (no hooks, no
signing prompts). See docs/decisions/051-git-workspace.md.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from vitrina.team.errors import WorkspaceError

MAIN = "main"
SAFE_PATH = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*(/[A-Za-z0-9_][A-Za-z0-9_.-]*)*$")
SAFE_BRANCH = re.compile(r"^[a-z0-9][a-z0-9/_-]{0,120}$")
ZERO = "0" * 40
GIT_TIMEOUT_S = 60


def check_path(path: str) -> str:
    """A repository path a role may write: relative, no '..', no hidden or git files."""
    if not SAFE_PATH.fullmatch(path) or any(part in ("..", ".") for part in path.split("/")):
        raise WorkspaceError(
            f"'{path}' is not an allowed artifact path (letters, digits, _ . - and /)"
        )
    return path


@dataclass(frozen=True)
class MergeResult:
    sha: str
    created: bool  # False: the branch was already merged (a repeated call)


class Workspace:
    """One build's artifacts. ``Workspace.open(path)`` creates the repository when missing."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_TERMINAL_PROMPT": "0",
        }

    @classmethod
    def open(cls, path: Path) -> Workspace:
        ws = cls(path)
        if not (path / "HEAD").is_file():
            path.mkdir(parents=True, exist_ok=True)
            ws._git("init", "--bare", "--quiet", "--initial-branch", MAIN)
        if ws.tip(MAIN) is None:
            ws.write(
                MAIN,
                {
                    "README.md": "# Build workspace\n\nArtifacts of one `vitrina build`: one "
                    "branch per task, merged into main on acceptance.\n"
                },
                "Start the workspace",
                author="coordinator",
            )
        return ws

    # plumbing ---------------------------------------------------------------------------
    def _git(
        self,
        *args: str,
        input: bytes | None = None,
        env: dict[str, str] | None = None,
        check: bool = True,
    ) -> subprocess.CompletedProcess[bytes]:
        try:
            proc = subprocess.run(
                ["git", "--git-dir", str(self.path), *args],
                input=input,
                capture_output=True,
                env={**self._env, **(env or {})},
                timeout=GIT_TIMEOUT_S,
            )
        except FileNotFoundError as exc:
            raise WorkspaceError(
                "git is not installed: the build workspace needs the git command"
            ) from exc
        except subprocess.TimeoutExpired as exc:
            raise WorkspaceError(f"git {args[0]} ran longer than {GIT_TIMEOUT_S} s") from exc
        if check and proc.returncode != 0:
            message = proc.stderr.decode("utf-8", "replace").strip() or proc.stdout.decode(
                "utf-8", "replace"
            )
            raise WorkspaceError(f"git {args[0]} failed in {self.path}: {message.strip()[:400]}")
        return proc

    def _out(self, *args: str, **kw: object) -> str:
        return self._git(*args, **kw).stdout.decode("utf-8").strip()  # type: ignore[arg-type]

    @staticmethod
    def _identity(author: str) -> dict[str, str]:
        name = re.sub(r"[^a-z0-9-]", "", author.lower()) or "vitrina"
        email = f"{name}@team.vitrina.local"
        return {
            "GIT_AUTHOR_NAME": name,
            "GIT_AUTHOR_EMAIL": email,
            "GIT_COMMITTER_NAME": name,
            "GIT_COMMITTER_EMAIL": email,
        }

    @staticmethod
    def _ref(branch: str) -> str:
        if not SAFE_BRANCH.fullmatch(branch) or ".." in branch or branch.endswith("/"):
            raise WorkspaceError(f"'{branch}' is not an allowed branch name")
        return f"refs/heads/{branch}"

    # branches ---------------------------------------------------------------------------
    def tip(self, branch: str) -> str | None:
        proc = self._git(
            "rev-parse", "--verify", "--quiet", self._ref(branch) + "^{commit}", check=False
        )
        return proc.stdout.decode().strip() or None

    def ensure_branch(self, branch: str, base: str = MAIN) -> str:
        """The branch, cut from ``base`` when it does not exist yet; returns its tip."""
        tip = self.tip(branch)
        if tip:
            return tip
        base_tip = self.tip(base)
        if base_tip is None:
            raise WorkspaceError(f"branch {base} does not exist in {self.path}")
        proc = self._git("update-ref", self._ref(branch), base_tip, ZERO, check=False)
        if (
            proc.returncode != 0 and self.tip(branch) is None
        ):  # lost a race: someone else created it
            raise WorkspaceError(f"cannot create branch {branch}: {proc.stderr.decode().strip()}")
        return self.tip(branch) or base_tip

    def branches(self) -> list[str]:
        out = self._out("for-each-ref", "--format=%(refname:short)", "refs/heads/")
        return [line for line in out.splitlines() if line]

    # files ------------------------------------------------------------------------------
    def write(
        self, branch: str, files: dict[str, str | bytes], message: str, *, author: str
    ) -> str | None:
        """Commit ``files`` on ``branch`` (created from main when missing); None when nothing
        changed, else the new commit. The branch moves only if nobody moved it meanwhile."""
        for path in files:
            check_path(path)
        parent = self.tip(branch)
        if parent is None and branch != MAIN:
            parent = self.ensure_branch(branch)
        with tempfile.TemporaryDirectory(prefix="vitrina-index-") as tmp:
            env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
            if parent:
                self._git("read-tree", parent, env=env)
            for path, content in sorted(files.items()):
                data = content.encode("utf-8") if isinstance(content, str) else content
                blob = self._out("hash-object", "-w", "--stdin", input=data)
                self._git("update-index", "--add", "--cacheinfo", f"100644,{blob},{path}", env=env)
            tree = self._out("write-tree", env=env)
        if parent and self._out("rev-parse", f"{parent}^{{tree}}") == tree:
            return None
        args = ["commit-tree", tree, "-m", message] + (["-p", parent] if parent else [])
        commit = self._out(*args, env=self._identity(author))
        self._git("update-ref", self._ref(branch), commit, parent or ZERO)
        return commit

    def read(self, branch: str, path: str) -> str | None:
        data = self.read_bytes(branch, path)
        return data.decode("utf-8") if data is not None else None

    def read_bytes(self, branch: str, path: str) -> bytes | None:
        check_path(path)
        proc = self._git("cat-file", "blob", f"{self._ref(branch)}:{path}", check=False)
        return proc.stdout if proc.returncode == 0 else None

    def blob_id(self, branch: str, path: str) -> str | None:
        """The content id of a file on a branch (the version used for optimistic locking)."""
        check_path(path)
        proc = self._git(
            "rev-parse", "--verify", "--quiet", f"{self._ref(branch)}:{path}", check=False
        )
        return proc.stdout.decode().strip() or None

    def files(self, branch: str, prefix: str = "") -> list[str]:
        args = ["ls-tree", "-r", "--name-only", self._ref(branch)]
        if prefix:
            args += ["--", check_path(prefix.rstrip("/"))]
        return [line for line in self._out(*args).splitlines() if line]

    # merges -----------------------------------------------------------------------------
    def is_merged(self, branch: str, into: str = MAIN) -> bool:
        tip, base = self.tip(branch), self.tip(into)
        if tip is None or base is None:
            return False
        return self._git("merge-base", "--is-ancestor", tip, base, check=False).returncode == 0

    def merge(
        self, branch: str, message: str, *, author: str = "coordinator", into: str = MAIN
    ) -> MergeResult:
        """Merge ``branch`` into ``into`` with a merge commit, once."""
        tip, base = self.tip(branch), self.tip(into)
        if tip is None or base is None:
            raise WorkspaceError(f"cannot merge {branch} into {into}: a branch is missing")
        if self.is_merged(branch, into):
            return MergeResult(self._merge_commit_of(tip, into) or base, created=False)
        proc = self._git("merge-tree", "--write-tree", "--messages", base, tip, check=False)
        if proc.returncode != 0:
            detail = proc.stdout.decode("utf-8", "replace").strip().splitlines()[1:6]
            raise WorkspaceError(f"{branch} conflicts with {into}: {' | '.join(detail)}")
        tree = proc.stdout.decode().split()[0]
        commit = self._out(
            "commit-tree", tree, "-p", base, "-p", tip, "-m", message, env=self._identity(author)
        )
        self._git("update-ref", self._ref(into), commit, base)
        return MergeResult(commit, created=True)

    def _merge_commit_of(self, tip: str, into: str) -> str | None:
        out = self._out("rev-list", "--merges", "--parents", self._ref(into))
        for line in out.splitlines():
            parts = line.split()
            if tip in parts[2:]:
                return parts[0]
        return None

    def merges(self, into: str = MAIN) -> list[str]:
        """Merge commits on ``into``, newest first (what a test counts to prove no double merge)."""
        return [
            line for line in self._out("rev-list", "--merges", self._ref(into)).splitlines() if line
        ]

    def diff(self, branch: str, base: str = MAIN) -> str:
        """What the branch changes against where it was cut from (for the board's task page)."""
        tip, head = self.tip(branch), self.tip(base)
        if tip is None or head is None:
            return ""
        merge = self._merge_commit_of(tip, base) if self.is_merged(branch, base) else None
        if merge:  # what the merge brought into main
            return self._out("diff", "--stat", "--patch", f"{merge}^1", merge)
        return self._out("diff", "--stat", "--patch", self._out("merge-base", head, tip), tip)
