"""The sandbox's first process: set the limits, check the isolation, run the script, send
back its output files.

Started by `runner.py` inside bubblewrap as `python -I child.py CONFIG FD`. Standard
library only; it never imports vitrina (vitrina is not even mounted). Steps, each fatal on
failure (exit 97: isolation unavailable, nothing ran):

1. identity: started as root (no user namespace), it becomes the real `nobody` (every
   capability goes with uid 0); limits: CPU, address space, file size, processes, open
   files, no core files;
2. checks: nothing writable outside the work folder, no network interface but loopback,
   nothing of the host visible but the paths the parent bound on purpose (the system library
   folders, the interpreter's files and the analysis packages at their own paths, and the
   folders above those: a sibling in /home/USER, /tmp or /run fails the check), and no user
   or mount namespace can be made inside (when the parent could deny them);
3. the script runs in a forked child that does not hold FD (the pipe to the parent);
4. the regular files under out/ go back over FD as one tar stream (bounded count).
"""

from __future__ import annotations

import builtins
import json
import os
import resource
import runpy
import socket
import sys
import tarfile
import traceback

ISOLATION_FAILED = 97
NOBODY = 65534
# never inside, whatever the parent bound: the host's users, keys and database sockets
HOST_FILES = (
    "/etc/passwd",
    "/etc/shadow",
    "/root/.ssh",
    "/var/run",
    "/run/postgresql",
    "/run/mysqld",
    "/tmp/.s.PGSQL.5432",
)
SYSTEM = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin")  # bound whole, read-only
MIN_DEPTH = 3  # a bound path is at least PREFIX/bin/python: never /home/USER or /tmp/NAME
MAX_SEEN = 5_000  # entries the visibility walk reads before it gives up (and fails)
OWN = "/vitrina-sandbox"  # this script and its config
CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000


class SetupError(Exception):
    """Isolation could not be set up or did not hold."""


def _become_nobody() -> None:
    if os.getuid() == 0 or os.geteuid() == 0:
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)
    if os.getuid() != NOBODY or os.geteuid() != NOBODY:
        raise SetupError(f"the sandbox runs as uid {os.geteuid()}, not nobody")
    try:
        os.setuid(0)
    except OSError:  # EPERM as the real nobody; EINVAL in a user namespace where 0 is not mapped
        return
    raise SetupError("uid 0 could be taken back")


def _limits(cfg: dict) -> None:
    cpu, mem, fsize = int(cfg["cpu_s"]), int(cfg["memory_mb"]) << 20, int(cfg["file_mb"]) << 20
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    resource.setrlimit(resource.RLIMIT_NPROC, (int(cfg["procs"]), int(cfg["procs"])))
    resource.setrlimit(resource.RLIMIT_NOFILE, (int(cfg["nofile"]), int(cfg["nofile"])))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _ancestors(paths: list[str]) -> set[str]:
    found = {"/"}
    for path in paths:
        parts = path.strip("/").split("/")[:-1]
        found.update("/" + "/".join(parts[:n]) for n in range(1, len(parts) + 1))
    return found


def _unexpected(cfg: dict) -> list[str]:
    """What the sandbox shows beyond the known paths: each entry of / and of every folder
    above a known path must be a system folder, a known path, or such a folder itself."""
    broad = [p for p in cfg["known"] if len(p.strip("/").split("/")) < MIN_DEPTH]
    if broad:
        raise SetupError(f"a whole host folder is bound into the sandbox: {broad[:10]}")
    known = set(cfg["known"]) | set(SYSTEM) | {"/proc", "/dev", cfg["work"], OWN}
    above = _ancestors(sorted(known))
    stray: list[str] = []
    queue, seen = ["/"], 0
    while queue:
        folder = queue.pop()
        for name in sorted(os.listdir(folder)):
            seen += 1
            if seen > MAX_SEEN:
                raise SetupError(f"more than {MAX_SEEN} entries above the sandbox's own paths")
            path = os.path.join(folder, name)
            if path in known:
                continue
            if path in above and os.path.isdir(path) and not os.path.islink(path):
                queue.append(path)
            else:
                stray.append(path)
    return stray


def _unshare(flags: int) -> None:
    unshare = getattr(os, "unshare", None)  # Python 3.12+
    if unshare is not None:
        unshare(flags)
        return
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(flags) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


def _nested(flags: int, name: str) -> None:
    """unshare(flags) must be refused: tried in a throwaway child process."""
    pid = os.fork()
    if pid == 0:
        try:
            _unshare(flags)
        except OSError:
            os._exit(1)
        except BaseException:
            os._exit(2)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
    if code == 0:
        raise SetupError(f"a nested {name} namespace can be made inside the sandbox")
    if code != 1:
        raise SetupError(f"could not check that a nested {name} namespace is refused")


def _check(cfg: dict) -> None:
    """Isolation must hold: no write outside the work folder, no network, nothing of the host
    but the known paths, no nested user or mount namespace."""
    work = cfg["work"]
    folders = {"/", "/usr", "/proc", "/dev", OWN, os.path.dirname(sys.executable)}
    folders.update(p for p in cfg["known"] if os.path.isdir(p) and not os.path.islink(p))
    for folder in folders:
        probe = os.path.join(folder, f".vitrina-probe-{os.getpid()}")
        try:
            with open(probe, "w"):
                pass
        except OSError:
            continue
        os.unlink(probe)
        raise SetupError(f"{folder} is writable inside the sandbox")
    interfaces = sorted(name for _, name in socket.if_nameindex())
    if interfaces != ["lo"]:
        raise SetupError(f"network interfaces inside the sandbox: {interfaces}")
    stray = [p for p in HOST_FILES if os.path.lexists(p)] or _unexpected(cfg)
    if stray:
        raise SetupError(f"host files visible inside the sandbox: {stray[:10]}")
    if cfg["nested_namespaces_denied"]:
        _nested(CLONE_NEWUSER, "user")
        _nested(CLONE_NEWNS, "mount")
    if not os.access(work, os.W_OK):
        raise SetupError(f"the work folder {work} is not writable")


def _script_path(cfg: dict) -> None:
    """The allowed packages' folders on sys.path (the interpreter runs with -S: none of its own
    site folders), and exit()/quit() as a script expects them."""
    for folder in cfg["site"]:
        if folder not in sys.path:
            sys.path.append(folder)
    builtins.exit = builtins.quit = sys.exit  # type: ignore[assignment]


def _run_script(script: str, work: str, pipe_fd: int) -> int:
    pid = os.fork()
    if pid == 0:
        os.close(pipe_fd)  # the script cannot write to the parent's pipe
        code = 0
        try:
            os.chdir(work)
            sys.argv = [script]
            sys.path.insert(0, os.path.dirname(script))
            runpy.run_path(script, run_name="__main__")
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if not isinstance(exc.code, int | None):  # sys.exit("why"), as Python prints it
                print(exc.code, file=sys.stderr)
        except BaseException:
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def _send_outputs(out: str, pipe_fd: int, max_files: int) -> None:
    """Regular files of out/ (no links, no folders), at most `max_files`, as a tar on the pipe."""
    with os.fdopen(pipe_fd, "wb") as pipe, tarfile.open(fileobj=pipe, mode="w|") as archive:
        names = sorted(os.listdir(out))[:max_files] if os.path.isdir(out) else []
        for name in names:
            path = os.path.join(out, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            try:
                archive.add(path, arcname=name, recursive=False)
            except (OSError, BrokenPipeError):
                return  # the parent stopped reading (over budget): it keeps what it has


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as fh:
        cfg = json.load(fh)
    pipe_fd = int(sys.argv[2])
    work = cfg["work"]
    try:
        _become_nobody()
        _limits(cfg)
        _check(cfg)
    except (SetupError, OSError, ValueError) as exc:
        print(f"vitrina-sandbox: isolation unavailable: {exc}", file=sys.stderr)
        return ISOLATION_FAILED
    for key, value in cfg["env"].items():
        os.environ[key] = value
    _script_path(cfg)
    code = _run_script(cfg["script"], work, pipe_fd)
    try:
        _send_outputs(os.path.join(work, "out"), pipe_fd, int(cfg["max_files"]))
    except (OSError, tarfile.TarError) as exc:
        print(f"vitrina-sandbox: output files not sent: {exc}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
