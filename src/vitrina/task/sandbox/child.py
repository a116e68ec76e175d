"""The sandbox's pid 1: set up isolation, check it, then run the user's script in a child.

Started by `runner.py` as `unshare --net --mount --pid --fork --kill-child --mount-proc
[--user --map-root-user] python -I child.py CONFIG`. Standard library only; it never imports
vitrina. Steps, each fatal on failure (exit 97: isolation unavailable, nothing ran):

1. the work folder becomes its own mount; every other mount is remounted read-only;
2. when the interpreter lives under a folder others cannot enter (/root), that folder is
   replaced, in this mount namespace only, by a tmpfs exposing just the interpreter;
3. limits (CPU, address space, file size, processes, open files, no core files);
4. privileges dropped: real root becomes `nobody`; a user-namespace root loses every capability;
5. checks: no write outside the work folder, no network; then the script runs in a forked
   child and this process exits with its status (its exit kills the whole pid namespace).
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import runpy
import socket
import stat
import sys
import traceback

ISOLATION_FAILED = 97
NOBODY = 65534
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_MOVE, MS_REC = 32, 4096, 8192, 16384
MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 1024, 2048, 1 << 21
FLAG_BITS = {"nosuid": MS_NOSUID, "nodev": MS_NODEV, "noexec": MS_NOEXEC, "noatime": MS_NOATIME,
             "nodiratime": MS_NODIRATIME, "relatime": MS_RELATIME}
PR_SET_NO_NEW_PRIVS, PR_CAPBSET_DROP = 38, 24
MAX_MOUNTS = 500  # a bound on the mount table walk

libc = ctypes.CDLL(None, use_errno=True)


class SetupError(Exception):
    """Isolation could not be set up or did not hold."""


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = [None if v is None else v.encode() for v in (source, target, fstype, data)]
    if libc.mount(enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3]) != 0:
        err = ctypes.get_errno()
        raise SetupError(f"mount {target}: {os.strerror(err)}")


def _mounts() -> list[tuple[str, int]]:
    """(mount point, per-mount flags) from /proc/self/mountinfo, shortest path first."""
    out = []
    with open("/proc/self/mountinfo", encoding="utf-8") as fh:
        for n, line in enumerate(fh):
            if n >= MAX_MOUNTS:
                raise SetupError("too many mounts")
            parts = line.split()
            point = parts[4].encode().decode("unicode_escape")
            flags = 0
            for opt in parts[5].split(","):
                flags |= FLAG_BITS.get(opt, 0)
            out.append((point, flags))
    return sorted(out, key=lambda m: len(m[0]))


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _expose(needed: list[str], stage: str) -> None:
    """Make the interpreter reachable for `nobody` when a folder above it is closed (0700)."""
    blocked: dict[str, set[str]] = {}
    for path in needed:
        parts = os.path.realpath(path).split("/")[1:]
        for depth in range(1, len(parts)):
            folder = "/" + "/".join(parts[:depth])
            if not os.stat(folder).st_mode & stat.S_IXOTH:
                blocked.setdefault(folder, set()).add(parts[depth])
                break
    for n, (folder, children) in enumerate(sorted(blocked.items())[:8]):
        mnt = os.path.join(stage, str(n))
        os.makedirs(mnt, exist_ok=True)
        _mount("tmpfs", mnt, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=64k")
        for child in sorted(children):
            src = os.path.join(folder, child)
            dst = os.path.join(mnt, child)
            if os.path.isdir(src):
                os.mkdir(dst)
            else:
                open(dst, "w").close()
            _mount(src, dst, None, MS_BIND | MS_REC)
        _mount(mnt, folder, None, MS_MOVE)


def _read_only_everywhere_but(work: str) -> None:
    _mount(work, work, None, MS_BIND)
    for point, flags in _mounts():
        if _inside(point, work) or _inside(point, "/proc"):
            continue
        try:
            _mount(None, point, None, MS_REMOUNT | MS_BIND | MS_RDONLY | flags)
        except SetupError:
            if point == "/":
                raise
            # a mount that refuses: the checks below decide whether that matters


def _limits(cfg: dict) -> None:
    cpu, mem, fsize = int(cfg["cpu_s"]), int(cfg["memory_mb"]) << 20, int(cfg["file_mb"]) << 20
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    resource.setrlimit(resource.RLIMIT_NPROC, (int(cfg["procs"]), int(cfg["procs"])))
    resource.setrlimit(resource.RLIMIT_NOFILE, (int(cfg["nofile"]), int(cfg["nofile"])))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def _drop_privileges(real_root: bool) -> None:
    if real_root:
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)  # all capabilities go with uid 0
    else:
        with open("/proc/sys/kernel/cap_last_cap", encoding="ascii") as fh:
            last = int(fh.read())
        for cap in range(last + 1):
            libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)  # execve can never give them back
        data = (_CapData * 2)()
        if libc.capset(ctypes.byref(_CapHeader(0x20080522, 0)), data) != 0:
            raise SetupError("capset failed")
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise SetupError("no_new_privs failed")


def _check(work: str) -> None:
    """Isolation must hold: no write outside the work folder, no network."""
    for folder in {"/tmp", "/var/tmp", "/dev/shm", os.path.dirname(work), "/"}:
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


def _run_script(script: str, work: str) -> int:
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.chdir(work)
            sys.argv = [script]
            sys.path.insert(0, os.path.dirname(script))
            runpy.run_path(script, run_name="__main__")
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
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


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as fh:
        cfg = json.load(fh)
    work = os.path.realpath(cfg["work"])
    real_root = bool(cfg["real_root"])
    try:
        if real_root:
            _expose(cfg["needed"], os.path.join(work, ".stage"))
        _read_only_everywhere_but(work)
        _limits(cfg)
        _drop_privileges(real_root)
        _check(work)
    except (SetupError, OSError) as exc:
        print(f"vitrina-sandbox: isolation unavailable: {exc}", file=sys.stderr)
        return ISOLATION_FAILED
    for key, value in cfg["env"].items():
        os.environ[key] = value
    return _run_script(cfg["script"], work)


if __name__ == "__main__":
    sys.exit(main())
