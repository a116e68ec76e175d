"""Run Python in an isolated subprocess: the parent side of the sandbox.

The isolation is Linux namespaces through util-linux `unshare` (no network, a private
mount table with everything read-only but the work folder, a private pid space killed as a
whole) plus resource limits and dropped privileges, set up by `child.py`. When any of it
cannot be set up, nothing runs: :class:`SandboxUnavailable` is raised instead.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

CHILD = Path(__file__).with_name("child.py")
ISOLATION_FAILED = 97
NOBODY = 65534
TAIL_BYTES = 8_000
MAX_OUT_FILES = 20
PROBE_TIMEOUT_S = 10


class SandboxUnavailable(RuntimeError):
    """The machine cannot isolate a subprocess: the code is not run."""


@dataclass(frozen=True)
class SandboxLimits:
    """Per-run limits; every one is enforced by the kernel (rlimits) or by the parent (wall)."""

    cpu_s: int = 20
    wall_s: float = 30.0
    memory_mb: int = 1024
    file_mb: int = 50
    procs: int = 32
    nofile: int = 64
    out_mb: int = 50  # all output files together


@dataclass
class SandboxResult:
    """What a run left: exit status, limit hit (if any), output tails and output files."""

    returncode: int
    ok: bool
    limit: str | None = None  # cpu | wall | memory | file_size | processes
    stdout: str = ""
    stderr: str = ""
    files: list[Path] = field(default_factory=list)
    wall_s: float = 0.0

    def as_dict(self) -> dict:
        data = asdict(self)
        data["files"] = [str(f) for f in self.files]
        return data


def _unshare() -> str | None:
    return shutil.which("unshare")


def _flags(real_root: bool) -> list[str]:
    base = ["--net", "--mount", "--pid", "--fork", "--kill-child", "--mount-proc"]
    return base if real_root else ["--user", "--map-root-user", *base]


@lru_cache(maxsize=1)
def isolation() -> tuple[str | None, str]:
    """("root" | "userns" | None, why): which isolation this machine gives, probed once."""
    tool = _unshare()
    if tool is None:
        return None, "util-linux `unshare` not found"
    real_root = os.geteuid() == 0
    try:
        done = subprocess.run([tool, *_flags(real_root), "true"], capture_output=True, timeout=PROBE_TIMEOUT_S,
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"unshare failed: {exc}"
    if done.returncode != 0:
        return None, f"unshare refused: {done.stderr.decode(errors='replace').strip()[:300]}"
    return ("root" if real_root else "userns"), "ok"


def _needed_paths() -> list[str]:
    paths = {sys.base_prefix, sys.prefix, os.path.realpath(sys.executable), str(CHILD.parent)}
    paths.update(v for k, v in sysconfig.get_paths().items() if k in ("stdlib", "platstdlib", "purelib", "platlib"))
    return sorted(paths)


def _tail(path: Path) -> str:
    try:
        with path.open("rb") as fh:
            fh.seek(max(0, path.stat().st_size - TAIL_BYTES))
            return fh.read().decode("utf-8", errors="replace")
    except OSError:
        return ""


def _limit_hit(rc: int, stderr: str, timed_out: bool) -> str | None:
    if timed_out:
        return "wall"
    if rc in (128 + signal.SIGXCPU, 128 + signal.SIGKILL, -signal.SIGXCPU, -signal.SIGKILL):
        return "cpu"
    if rc in (128 + signal.SIGXFSZ, -signal.SIGXFSZ) or "File too large" in stderr:
        return "file_size"
    if "MemoryError" in stderr or "Cannot allocate memory" in stderr:
        return "memory"
    if "BlockingIOError" in stderr or "Resource temporarily unavailable" in stderr:
        return "processes"
    return None


def run_python(script: str, *, inputs: dict[str, Path] | None = None, support: list[Path] | None = None,
               limits: SandboxLimits | None = None, work_root: Path | None = None,
               out_dir: Path | None = None) -> SandboxResult:
    """Run `script` (Python source) in a fresh work folder with `inputs` copied into `in/`.

    The script writes its results under `out/`; they come back in `SandboxResult.files`, in
    `out_dir` when given (else a temporary folder the caller owns); the work folder is removed. Raises SandboxUnavailable
    when the isolation cannot be set up; never runs the code unprotected.
    """
    mode, why = isolation()
    if mode is None:
        raise SandboxUnavailable(why)
    limits = limits or SandboxLimits()
    real_root = mode == "root"
    work = Path(tempfile.mkdtemp(prefix="vitrina-sbx-", dir=work_root))
    keep = Path(tempfile.mkdtemp(prefix="vitrina-sbx-out-", dir=work_root))
    try:
        for sub in ("in", "out", "tmp"):
            (work / sub).mkdir()
        for name, src in (inputs or {}).items():
            shutil.copyfile(src, work / "in" / name)
        for src in support or []:
            shutil.copyfile(src, work / src.name)
        (work / "main.py").write_text(script, encoding="utf-8")
        env = {"HOME": str(work), "TMPDIR": str(work / "tmp"), "MPLCONFIGDIR": str(work / "tmp"),
               "MPLBACKEND": "Agg", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
               "PYTHONDONTWRITEBYTECODE": "1", "LANG": "C.UTF-8"}
        config = {"work": str(work), "script": str(work / "main.py"), "real_root": real_root,
                  "needed": _needed_paths(), "env": env, **asdict(limits)}
        cfg_path = keep / "config.json"
        cfg_path.write_text(json.dumps(config), encoding="utf-8")
        if real_root:
            for path in [work, *work.rglob("*")]:
                os.chown(path, NOBODY, NOBODY)
        return _launch(work, keep, cfg_path, limits, real_root, out_dir or keep / "out")
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if out_dir is not None:
            shutil.rmtree(keep, ignore_errors=True)


def _launch(work: Path, keep: Path, cfg_path: Path, limits: SandboxLimits, real_root: bool, dest: Path
            ) -> SandboxResult:
    out_path, err_path = keep / "stdout.txt", keep / "stderr.txt"
    cmd = [str(_unshare()), *_flags(real_root), sys.executable, "-I", str(CHILD), str(cfg_path)]
    start = time.perf_counter()
    timed_out = False
    with out_path.open("wb") as out, err_path.open("wb") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, start_new_session=True,
                                env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"})
        try:
            proc.wait(timeout=limits.wall_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
    elapsed = time.perf_counter() - start
    stderr = _tail(err_path)
    if proc.returncode == ISOLATION_FAILED and "isolation unavailable" in stderr:
        raise SandboxUnavailable(stderr.strip().splitlines()[-1])
    files = _collect(work / "out", dest, limits.out_mb << 20)
    rc = proc.returncode
    return SandboxResult(returncode=rc, ok=rc == 0 and not timed_out, limit=_limit_hit(rc, stderr, timed_out),
                         stdout=_tail(out_path), stderr=stderr, files=files, wall_s=round(elapsed, 3))


def _collect(src: Path, dst: Path, budget: int) -> list[Path]:
    """Copy regular output files (no links, bounded count and size) out of the work folder."""
    dst.mkdir(parents=True, exist_ok=True)
    files: list[Path] = []
    if not src.is_dir():
        return files
    for path in sorted(src.iterdir())[:MAX_OUT_FILES]:
        if path.is_symlink() or not path.is_file():
            continue
        size = path.stat().st_size
        if size > budget:
            break
        budget -= size
        target = dst / path.name
        shutil.copyfile(path, target)
        files.append(target)
    return files
