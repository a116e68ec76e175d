"""What keeps a coding agent honest: a scratch folder, a read-only world, and a fact check.

- The agent runs in a fresh scratch folder and answers in `answer.md` there; nothing else
  it writes is read.
- Where bubblewrap works, the agent sees the whole file system read-only except the scratch
  folder (its TMPDIR too) and its own state folders (a preset's login and cache), so it
  cannot write into the output folder, the model or the SQL (decision 161).
- Without bubblewrap, the output folder is compared before and after each call: a file the
  agent added or changed there is removed and named in the trace.
- Its text passes the `--llm` wording check against the facts: the rules document, the
  lineage, the model's names and the SQL definitions in the lineage.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from vitrina.docs.lineage import MeasureLineage
from vitrina.docs.workspace import Workspace

ANSWER = "answer.md"
MAX_SNAPSHOT = 200_000  # files compared in the output folder (a hard bound on the walk)
# where each preset keeps its login and cache, under $HOME: writable inside the sandbox
STATE_DIRS: dict[str, tuple[str, ...]] = {
    "claude": (".claude", ".claude.json", ".config/claude", ".cache"),
    "cursor": (".cursor", ".config/cursor", ".cache"),
    "codex": (".codex", ".cache"),
}


@lru_cache(maxsize=1)
def sandbox_works() -> bool:
    """Whether `bwrap` can make a read-only root here (containers may forbid namespaces)."""
    exe = shutil.which("bwrap")
    if exe is None:
        return False
    try:
        probe = subprocess.run(
            [exe, "--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev", "--", "true"],
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return probe.returncode == 0


def confine(argv: list[str], scratch: Path, preset: str | None) -> list[str]:
    """`argv` run under bubblewrap: read-only root, writable scratch (its TMPDIR) and state dirs."""
    exe = shutil.which("bwrap") or "bwrap"
    cmd = [exe, "--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev", "--proc", "/proc"]
    cmd += ["--bind", str(scratch), str(scratch)]
    home = Path.home()
    for rel in STATE_DIRS.get(preset or "", ()):
        path = home / rel
        if path.exists():
            cmd += ["--bind", str(path), str(path)]
    return [*cmd, "--chdir", str(scratch), "--die-with-parent", "--", *argv]


@dataclass
class Snapshot:
    """Sizes and times of every file under a folder, to undo what an agent wrote there."""

    root: Path
    files: dict[str, tuple[int, int]] = field(default_factory=dict)

    @classmethod
    def take(cls, root: Path) -> Snapshot:
        snap = cls(root)
        for path in _files(root):
            st = path.stat()
            snap.files[str(path)] = (st.st_size, st.st_mtime_ns)
        return snap

    def clean(self) -> list[str]:
        """Remove every file added or changed since the snapshot; return their paths."""
        removed: list[str] = []
        for path in _files(self.root):
            try:
                st = path.stat()
            except OSError:
                continue
            if self.files.get(str(path)) != (st.st_size, st.st_mtime_ns):
                path.unlink(missing_ok=True)
                removed.append(str(path))
        return removed


def _files(root: Path) -> list[Path]:
    out: list[Path] = []
    if not root.is_dir():
        return out
    for dirpath, _dirs, names in os.walk(root):
        for name in names:
            out.append(Path(dirpath) / name)
            if len(out) >= MAX_SNAPSHOT:
                return out
    return out


def agent_facts(ws: Workspace, lin: MeasureLineage, rules_document: str) -> str:
    """Everything an agent's text may name: the rules document, the lineage, the model's
    tables, columns and measures, and the SQL definitions of the lineage's objects."""
    parts = [rules_document, lin.expression, lin.model_dump_json()]
    for table in ws.model.tables:
        parts.append(table.name)
        parts += [c.name for c in table.columns]
        parts += [m.name for m in table.measures]
    index = ws.index
    if index is not None:
        for name in [*(o.name for o in lin.sql_objects), *(p.name for p in lin.procedures)]:
            obj = index.get(name)
            if obj is not None:
                parts.append(obj.definition)
    return "\n".join(parts)
