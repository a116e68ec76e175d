"""Run Python in a sandbox that sees nothing: the parent side, on bubblewrap (`bwrap`).

The sandbox is a fresh root file system that holds the system library folders, the
interpreter's own files and the analysis packages at their own paths (`mounts.py`; never the
venv folder or the project, wherever they are installed), all read-only, the step's input
files (read-only) and a work folder on a size-capped tmpfs (the total disk quota): no /etc,
nothing of /home, /tmp or /run beside those files, no state database, no other run's files,
no warehouse. Every namespace is new (`--unshare-all`: user, pid, network with only a down
loopback, ipc, uts, cgroup), all capabilities are dropped, the uid is `nobody`; there is no
socket to reach (no TCP, and no Unix socket file is mounted); a seccomp filter
(`seccomp.py`) and, as an ordinary user, `--disable-userns` deny nested namespaces. Inside,
`child.py` sets the kernel limits (CPU, address space, file size, processes, open files),
checks the isolation against the list of bound paths and runs the script. Output files come
back over a pipe (a bounded tar stream) when the script ends; the work folder vanishes with
the sandbox. The same command line works as root and as an ordinary user (bwrap uses an
unprivileged user namespace).

Fail closed: without a working `bwrap`, :class:`SandboxUnavailable` says why and what to
install; the code is never run unprotected.
"""

from __future__ import annotations

import io
import json
import logging
import os
import platform
import re
import shutil
import signal
import subprocess
import tarfile
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

from vitrina.task.sandbox import seccomp
from vitrina.task.sandbox.mounts import Mounts, sandbox_mounts

LOG = logging.getLogger(__name__)
CHILD = Path(__file__).with_name("child.py")
ISOLATION_FAILED = 97
NOBODY = 65534
TAIL_BYTES = 8_000
MAX_OUT_FILES = 20
PROBE_TIMEOUT_S = 10
WORK = (
    "/vitrina-work"  # the work folder inside the sandbox (a name no host path is expected to use)
)
SAFE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,120}$")
INSTALL_HINT = (
    "install bubblewrap: `sudo apt-get install bubblewrap` (Debian/Ubuntu; `make sandbox` does it "
    "when run as root)"
)


class SandboxUnavailable(RuntimeError):
    """The machine cannot isolate a subprocess: the code is not run."""


@dataclass(frozen=True)
class SandboxLimits:
    """Per-run limits; every one is enforced by the kernel (rlimits, tmpfs size) or by the parent
    (wall)."""

    cpu_s: int = 20
    wall_s: float = 30.0
    memory_mb: int = 1024
    file_mb: int = 50
    procs: int = 32
    nofile: int = 64
    out_mb: int = 50  # all output files together
    disk_mb: int = 200  # the whole work folder (a tmpfs of this size): scratch files, outputs


@dataclass
class SandboxResult:
    """What a run left: exit status, limit hit (if any), output tails and output files."""

    returncode: int
    ok: bool
    limit: str | None = None  # cpu | wall | memory | file_size | disk | processes
    stdout: str = ""
    stderr: str = ""
    files: list[Path] = field(default_factory=list)
    wall_s: float = 0.0
    killed: bool = False  # the parent killed it at the wall limit
    nested_namespaces: str = ""  # "denied: how" or "allowed: why" (see nested_namespaces())

    def as_dict(self) -> dict:
        data = asdict(self)
        data["files"] = [str(f) for f in self.files]
        return data


def _bwrap() -> str | None:
    return shutil.which("bwrap")


@lru_cache(maxsize=1)
def _mounts() -> Mounts:
    """The sandbox root for this interpreter (the installed packages do not change while a
    process runs)."""
    return sandbox_mounts()


@lru_cache(maxsize=1)
def _bwrap_options() -> str:
    """bwrap's own list of options (`--disable-userns` came in 0.8.0)."""
    tool = _bwrap()
    if tool is None:
        return ""
    try:
        done = subprocess.run(
            [tool, "--help"], capture_output=True, timeout=PROBE_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.decode(errors="replace")


def _disable_userns() -> bool:
    """bwrap's own denial of nested user namespaces: only where it makes the sandbox's user
    namespace (an ordinary user) and knows the option."""
    return os.geteuid() != 0 and "--disable-userns" in _bwrap_options()


@lru_cache(maxsize=1)
def nested_namespaces() -> tuple[bool, str]:
    """(denied, how or why not): whether code in the sandbox is kept from making user and
    mount namespaces of its own. Logged once when it is not."""
    ways = []
    if seccomp.program() is not None:
        ways.append("seccomp filter")
    if _disable_userns():
        ways.append("bwrap --disable-userns")
    if ways:
        return True, "denied: " + ", ".join(ways)
    why = f"allowed: no seccomp filter for this architecture ({platform.machine()}) and " + (
        "bwrap runs as root (no user namespace of its own)"
        if os.geteuid() == 0
        else "bwrap lacks --disable-userns (0.8.0 or later has it)"
    )
    LOG.warning("vitrina sandbox: nested user and mount namespaces are %s", why)
    return False, why


def _seccomp_fd() -> int | None:
    """A file descriptor holding the filter, for bwrap's `--seccomp` (the caller closes it)."""
    code = seccomp.program()
    if code is None:
        return None
    fd = os.memfd_create("vitrina-seccomp", 0)
    os.write(fd, code)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _identity_args() -> list[str]:
    """Who the sandbox runs as. An ordinary user: `nobody` in a new user namespace, in which
    no further one can be made (`--disable-userns`, when bwrap has it). Root: no user
    namespace (there, uid 0 outside would exempt the sandbox from the process limit);
    instead only the two capabilities `child.py` needs to become the real `nobody` are kept,
    and it drops them with uid 0 before anything else runs."""
    if os.geteuid() == 0:
        return [
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--cap-drop",
            "ALL",
            "--cap-add",
            "CAP_SETUID",
            "--cap-add",
            "CAP_SETGID",
        ]
    userns = ["--unshare-user", "--disable-userns"] if _disable_userns() else []
    return [
        "--unshare-all",
        *userns,
        "--cap-drop",
        "ALL",
        "--uid",
        str(NOBODY),
        "--gid",
        str(NOBODY),
    ]


def _base_args(disk_mb: int, seccomp_fd: int | None) -> list[str]:
    return [
        *_identity_args(),
        *(["--seccomp", str(seccomp_fd)] if seccomp_fd is not None else []),
        "--die-with-parent",
        "--new-session",
        "--hostname",
        "sandbox",
        "--clearenv",
        *_mounts().args,
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--size",
        str(disk_mb << 20),
        "--perms",
        "0777",
        "--tmpfs",
        WORK,
        "--perms",
        "0777",
        "--dir",
        f"{WORK}/out",
        "--perms",
        "0777",
        "--dir",
        f"{WORK}/tmp",
        "--dir",
        f"{WORK}/in",
        "--chdir",
        WORK,
    ]


@lru_cache(maxsize=1)
def isolation() -> tuple[str | None, str]:
    """("bwrap", "ok") when this machine can run the sandbox, else (None, why and what to do)."""
    tool = _bwrap()
    if tool is None:
        return None, f"bubblewrap (bwrap) not found; {INSTALL_HINT}"
    seccomp_fd = _seccomp_fd()
    try:
        done = subprocess.run(
            [
                tool,
                *_base_args(1, seccomp_fd),
                "--remount-ro",
                "/dev",
                "--remount-ro",
                "/",
                "--",
                _mounts().interpreter,
                "-I",
                "-c",
                "pass",
            ],
            capture_output=True,
            timeout=PROBE_TIMEOUT_S,
            check=False,
            pass_fds=() if seccomp_fd is None else (seccomp_fd,),
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"bwrap failed to start: {exc}"
    finally:
        if seccomp_fd is not None:
            os.close(seccomp_fd)
    if done.returncode != 0:
        why = done.stderr.decode(errors="replace").strip()[:300]
        return None, (
            f"bwrap cannot create the sandbox here ({why}); it needs user namespaces: "
            "sysctl kernel.unprivileged_userns_clone=1 (or user.max_user_namespaces > 0), or a "
            "container started with permission to create them"
        )
    return "bwrap", "ok"


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
    if "No space left on device" in stderr:
        return "disk"
    if rc in (128 + signal.SIGXFSZ, -signal.SIGXFSZ) or "File too large" in stderr:
        return "file_size"
    if "MemoryError" in stderr or "Cannot allocate memory" in stderr:
        return "memory"
    if "BlockingIOError" in stderr or "Resource temporarily unavailable" in stderr:
        return "processes"
    return None


def _safe(name: str) -> str:
    if not SAFE_NAME.match(name):
        raise ValueError(f"sandbox file name {name!r} is not allowed (letters, digits, _ . - only)")
    return name


def run_python(
    script: str,
    *,
    inputs: dict[str, Path] | None = None,
    support: list[Path] | None = None,
    limits: SandboxLimits | None = None,
    work_root: Path | None = None,
    out_dir: Path | None = None,
) -> SandboxResult:
    """Run `script` (Python source) in the sandbox with `inputs` at `in/NAME` and `support`
    files next to the script, all read-only.

    The script writes its results under `out/`; they come back in `SandboxResult.files`, in
    `out_dir` when given (else a temporary folder the caller owns). Raises SandboxUnavailable
    when the isolation cannot be set up; never runs the code unprotected.
    """
    mode, why = isolation()
    if mode is None:
        raise SandboxUnavailable(why)
    limits = limits or SandboxLimits()
    keep = Path(tempfile.mkdtemp(prefix="vitrina-sbx-", dir=work_root))
    try:
        binds: list[str] = []
        for name, src in (inputs or {}).items():
            binds += ["--ro-bind", str(Path(src).resolve()), f"{WORK}/in/{_safe(name)}"]
        for src in support or []:
            binds += ["--ro-bind", str(Path(src).resolve()), f"{WORK}/{_safe(src.name)}"]
        (keep / "main.py").write_text(script, encoding="utf-8")
        env = {
            "HOME": WORK,
            "TMPDIR": f"{WORK}/tmp",
            "MPLCONFIGDIR": f"{WORK}/tmp",
            "MPLBACKEND": "Agg",
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            "LANG": "C.UTF-8",
            "PATH": "/usr/bin:/bin",
        }
        config = {
            "work": WORK,
            "script": f"{WORK}/main.py",
            "env": env,
            "max_files": MAX_OUT_FILES,
            "known": _mounts().known,
            "site": _mounts().site,
            "nested_namespaces_denied": nested_namespaces()[0],
            **asdict(limits),
        }
        (keep / "config.json").write_text(json.dumps(config), encoding="utf-8")
        binds += [
            "--ro-bind",
            str(keep / "main.py"),
            f"{WORK}/main.py",
            "--ro-bind",
            str(keep / "config.json"),
            "/vitrina-sandbox/config.json",
            "--ro-bind",
            str(CHILD),
            "/vitrina-sandbox/child.py",
        ]
        return _launch(binds, keep, limits, out_dir or keep / "out")
    except BaseException:  # nothing ran, or nothing came back: no folder left behind
        shutil.rmtree(keep, ignore_errors=True)
        raise
    finally:
        for name in ("main.py", "config.json"):
            (keep / name).unlink(missing_ok=True)
        if out_dir is not None:
            shutil.rmtree(keep, ignore_errors=True)


def _drain(fd: int, budget: int, into: io.BytesIO) -> None:
    """Read the output tar from the sandbox, keeping at most `budget` bytes (then close the
    pipe)."""
    with os.fdopen(fd, "rb") as pipe:
        while into.tell() <= budget:
            chunk = pipe.read(min(1 << 16, budget + 1 - into.tell()))
            if not chunk:
                break
            into.write(chunk)


def _launch(binds: list[str], keep: Path, limits: SandboxLimits, dest: Path) -> SandboxResult:
    out_path, err_path = keep / "stdout.txt", keep / "stderr.txt"
    read_fd, write_fd = os.pipe()
    seccomp_fd = _seccomp_fd()
    cmd = [
        str(_bwrap()),
        *_base_args(limits.disk_mb, seccomp_fd),
        *binds,
        "--remount-ro",
        "/dev",
        "--remount-ro",
        "/",
        "--",
        _mounts().interpreter,
        "-I",
        "-S",  # no site folder of the interpreter: child.py puts the allowed packages on the path
        "/vitrina-sandbox/child.py",
        "/vitrina-sandbox/config.json",
        str(write_fd),
    ]
    start = time.perf_counter()
    timed_out = False
    tar = io.BytesIO()
    budget = (limits.out_mb << 20) + (1 << 20)  # the files plus tar headers
    with out_path.open("wb") as out, err_path.open("wb") as err:
        try:
            proc = subprocess.Popen(
                cmd,
                stdout=out,
                stderr=err,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                pass_fds=(write_fd,) if seccomp_fd is None else (write_fd, seccomp_fd),
                env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"},
            )
        except OSError:
            os.close(read_fd)
            raise
        finally:  # the sandbox holds its own copies
            os.close(write_fd)
            if seccomp_fd is not None:
                os.close(seccomp_fd)
        reader = threading.Thread(target=_drain, args=(read_fd, budget, tar), daemon=True)
        reader.start()
        try:
            proc.wait(timeout=limits.wall_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(
                proc.pid, signal.SIGKILL
            )  # bwrap dies; --die-with-parent ends the whole sandbox
            proc.wait(timeout=10)
        reader.join(timeout=10)
    elapsed = time.perf_counter() - start
    stderr = _tail(err_path)
    if proc.returncode == ISOLATION_FAILED and "isolation unavailable" in stderr:
        raise SandboxUnavailable(stderr.strip().splitlines()[-1])
    files = [] if timed_out else _unpack(tar.getvalue(), dest, limits.out_mb << 20)
    rc = proc.returncode
    return SandboxResult(
        returncode=rc,
        ok=rc == 0 and not timed_out,
        limit=_limit_hit(rc, stderr, timed_out),
        stdout=_tail(out_path),
        stderr=stderr,
        files=files,
        wall_s=round(elapsed, 3),
        killed=timed_out,
        nested_namespaces=nested_namespaces()[1],
    )


def _unpack(data: bytes, dst: Path, budget: int) -> list[Path]:
    """Regular files with safe names out of the sandbox's tar (bounded count and total size)."""
    dst.mkdir(parents=True, exist_ok=True)
    files: list[Path] = []
    if not data:
        return files
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as archive:
            for member in archive.getmembers()[:MAX_OUT_FILES]:
                if not member.isreg() or not SAFE_NAME.match(member.name) or member.size > budget:
                    continue
                source = archive.extractfile(member)
                if source is None:
                    continue
                budget -= member.size
                target = dst / member.name
                target.write_bytes(source.read(member.size))
                files.append(target)
    except tarfile.TarError:
        # truncated at the budget or garbled: the files read so far are whole, the rest is dropped
        pass
    return files
