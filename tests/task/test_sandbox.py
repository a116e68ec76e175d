"""The sandbox: hostile code fails safely within its limits and sees nothing of the host (no
files, no sockets, no network, a disk quota), as root and as an ordinary user; no isolation
means no run. No wall-clock figures here: a run that hit the wall limit says so (`killed`),
one stopped by a kernel limit ended by itself."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from vitrina.task.sandbox import SandboxLimits, SandboxUnavailable, run_python, runner
from vitrina.task.sandbox.mounts import _folders as mounts_folders

LIMITS = SandboxLimits(cpu_s=1, wall_s=5, memory_mb=512, file_mb=5, procs=16, disk_mb=16)
SRC = Path(runner.__file__).resolve().parents[2]  # src/vitrina
PG_SOCKETS = ("/var/run/postgresql/.s.PGSQL.5432", "/tmp/.s.PGSQL.5432")
MYSQL_SOCKETS = ("/run/mysqld/mysqld.sock", "/var/run/mysqld/mysqld.sock", "/tmp/mysql.sock")


pytestmark = pytest.mark.usefixtures("sandbox_required")


def run(code: str, out_dir: Path, **kw):
    return run_python(code, limits=kw.pop("limits", LIMITS), out_dir=out_dir, **kw)


def test_runs_numpy_with_data_in_and_out(tmp_path: Path):
    src = tmp_path / "t.json"
    src.write_text('{"columns": ["x"], "rows": [[1], [2]]}', encoding="utf-8")
    code = (
        "import json, numpy\nd = json.load(open('in/t.json'))\n"
        "json.dump({'s': float(numpy.sum([r[0] for r in d['rows']]))}, open('out/r.json', 'w'))"
    )
    result = run(code, tmp_path / "out", inputs={"t.json": src})
    assert result.ok, result.stderr
    assert [f.name for f in result.files] == ["r.json"] and result.files[
        0
    ].read_text() == '{"s": 3.0}'


# unshare(2) and setns(2) called directly (Python 3.11 has no os.unshare): refused with EPERM
UNSHARE = """
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.unshare({flags}) != 0:
    sys.exit('unshare refused: ' + os.strerror(ctypes.get_errno()))
print('UNSHARED')
"""
SETNS = """
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open('/proc/self/ns/user', os.O_RDONLY)
if libc.setns(fd, 0) != 0:
    sys.exit('setns refused: ' + os.strerror(ctypes.get_errno()))
print('JOINED')
"""


@pytest.mark.parametrize(
    ("name", "code", "expect", "limit"),
    [
        (
            "network",
            "import socket\nsocket.create_connection(('127.0.0.1', 22), timeout=2)",
            "Connection refused",
            None,
        ),  # the sandbox's own network namespace: only its loopback, where nothing listens
        (
            "internet",
            "import socket\nsocket.create_connection(('8.8.8.8', 53), timeout=2)",
            "Network is unreachable",
            None,
        ),
        (
            "fork bomb",
            "import os\nwhile True:\n    os.fork()",
            "Resource temporarily unavailable",
            "processes",
        ),
        ("memory hog", "x = bytearray(2 * 1024 ** 3)", "MemoryError", "memory"),
        (
            "endless loop",
            "while True:\n    pass",
            "",
            ("cpu", "wall"),
        ),  # wall when the machine is busy
        ("sleeping forever", "import time\ntime.sleep(600)", "", "wall"),
        (
            "write outside",
            "open('/vitrina-escape.txt', 'w').write('x')",
            "Read-only file system",
            None,
        ),
        ("write the source tree", f"open({str(Path(__file__))!r}, 'a').write('x')", "[Errno", None),
        (
            "huge file",
            "open('out/big', 'wb').write(b'0' * (20 << 20))",
            "File too large",
            "file_size",
        ),
        (
            "over the disk quota",
            "for n in range(8):\n    open(f'out/f{n}', 'wb').write(b'0' * (4 << 20))",
            "No space left on device",
            "disk",
        ),
        (
            "scratch over the quota",
            "for n in range(8):\n    open(f'tmp/f{n}', 'wb').write(b'0' * (4 << 20))",
            "No space left on device",
            "disk",
        ),
        (
            "remount",
            "import subprocess\nr = subprocess.run(['mount', '-o', 'remount,rw', "
            "'/'])\nraise SystemExit(r.returncode)",
            "",
            None,
        ),
        ("import vitrina", "import vitrina", "No module named 'vitrina'", None),
        (
            "nested user namespace",
            "import subprocess\nr = subprocess.run(['unshare', '--user', '--map-root-user', "
            "'true'])\nraise SystemExit(r.returncode)",
            "unshare failed",
            None,
        ),
        (
            "nested mount namespace",
            "import subprocess\nr = subprocess.run(['unshare', '--mount', 'true'])\n"
            "raise SystemExit(r.returncode)",
            "unshare failed",
            None,
        ),
        ("unshare by hand", UNSHARE.format(flags="0x10020000"), "unshare refused", None),
        ("setns by hand", SETNS, "setns refused", None),
        (
            "nested bwrap",
            "import subprocess\nr = subprocess.run(['bwrap', '--unshare-user', '--ro-bind', "
            "'/', '/', 'true'])\nraise SystemExit(r.returncode)",
            "bwrap:",
            None,
        ),
    ],
)
def test_hostile_code_fails_safely(name, code, expect, limit, tmp_path):
    result = run(code, tmp_path)
    assert not result.ok, name
    assert expect in result.stderr
    assert result.limit in (limit if isinstance(limit, tuple) else (limit,))
    assert result.killed == (result.limit == "wall")  # only the wall limit needs the parent's kill
    assert not Path("/vitrina-escape.txt").exists()


READ_ATTEMPT = """
import sys
path = sys.argv[0] and {path!r}
try:
    data = open(path, 'rb').read(100)
except OSError as exc:
    print('refused:', type(exc).__name__, exc)
    raise SystemExit(3)
print('READ', data[:20])
"""


@pytest.fixture
def host_secrets(tmp_path: Path, demo_db: Path) -> Iterator[dict[str, Path]]:
    """Files a sandboxed step must never read: the state database, another run's output, the
    warehouse, the task database, the user database of the host."""
    other_run = tmp_path / "outputs" / "task-other" / "result.xlsx"
    other_run.parent.mkdir(parents=True)
    other_run.write_bytes(b"PK other token's Excel")
    state = tmp_path / "state.sqlite"
    state.write_bytes(b"SQLite format 3\0 tokens")
    tasks = tmp_path / "tasks.sqlite"
    tasks.write_bytes(b"SQLite format 3\0 tasks")
    yield {
        "passwd": Path("/etc/passwd"),
        "state": state,
        "other_run": other_run,
        "warehouse": demo_db,
        "tasks": tasks,
        "proc_environ": Path(f"/proc/{os.getpid()}/environ"),
        "shadow": Path("/etc/shadow"),
        "this_test": Path(__file__),
    }


@pytest.mark.parametrize(
    "what",
    ["passwd", "shadow", "state", "other_run", "warehouse", "tasks", "this_test", "proc_environ"],
)
def test_host_files_cannot_be_read(what, host_secrets, tmp_path):
    path = host_secrets[what]
    assert path.exists() or what == "shadow"
    result = run(READ_ATTEMPT.format(path=str(path)), tmp_path / "out")
    assert result.returncode == 3 and "refused:" in result.stdout, (
        what,
        result.stdout,
        result.stderr,
    )
    assert "READ" not in result.stdout


def test_input_files_are_read_only_and_the_only_data(tmp_path):
    src = tmp_path / "t.json"
    src.write_text("{}", encoding="utf-8")
    code = (
        "import os\nprint(sorted(os.listdir('in')))\n"
        "try:\n    open('in/t.json', 'w').write('x')\nexcept OSError as exc:\n    "
        "print('refused', exc)\n"
    )
    result = run(code, tmp_path / "out", inputs={"t.json": src})
    assert result.ok and "['t.json']" in result.stdout and "refused" in result.stdout
    assert src.read_text(encoding="utf-8") == "{}"
    with pytest.raises(ValueError, match="not allowed"):
        run("pass", tmp_path / "out", inputs={"../escape": src})


CONNECT = """
import socket
target = {target!r}
kind = {kind!r}
try:
    if kind == 'tcp':
        socket.create_connection(tuple(target), timeout=2)
    else:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(2)
        s.connect(target)
except OSError as exc:
    print('refused:', type(exc).__name__, exc)
    raise SystemExit(3)
print('CONNECTED')
"""


@pytest.fixture
def listeners(tmp_path: Path) -> Iterator[dict[str, object]]:
    """A TCP and a Unix socket listening on the host, plus an abstract Unix socket."""
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(4)
    unix_dir = Path(tempfile.mkdtemp(prefix="vsbx-", dir="/tmp"))  # short: sun_path is 108 bytes
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(str(unix_dir / "s.sock"))
    unix.listen(4)
    abstract = socket.socket(socket.AF_UNIX)
    abstract.bind("\0vitrina-sandbox-test")
    abstract.listen(4)
    yield {
        "tcp": list(tcp.getsockname()),
        "unix": str(unix_dir / "s.sock"),
        "abstract": "\0vitrina-sandbox-test",
    }
    for s in (tcp, unix, abstract):
        s.close()
    shutil.rmtree(unix_dir, ignore_errors=True)


@pytest.mark.parametrize(
    "which",
    [
        "tcp listener",
        "unix listener",
        "abstract unix",
        "pg tcp",
        "mysql tcp",
        "pg unix",
        "mysql unix",
    ],
)
def test_no_socket_reaches_the_host(which, listeners, tmp_path):
    targets = {
        "tcp listener": ("tcp", listeners["tcp"]),
        "unix listener": ("unix", listeners["unix"]),
        "abstract unix": ("unix", listeners["abstract"]),
        "pg tcp": ("tcp", ["127.0.0.1", 5432]),
        "mysql tcp": ("tcp", ["127.0.0.1", 3306]),
    }
    if which in ("pg unix", "mysql unix"):
        found = [
            p for p in (PG_SOCKETS if which == "pg unix" else MYSQL_SOCKETS) if os.path.exists(p)
        ]
        targets[which] = (
            "unix",
            found[0] if found else (PG_SOCKETS if which == "pg unix" else MYSQL_SOCKETS)[0],
        )
    kind, target = targets[which]
    result = run(CONNECT.format(target=target, kind=kind), tmp_path / "out")
    assert result.returncode == 3 and "refused:" in result.stdout, (
        which,
        result.stdout,
        result.stderr,
    )


def test_as_an_ordinary_user(tmp_path):
    """The same sandbox started by an unprivileged user (uid 65534) with the system Python:
    the sandbox package is standard library only (vitrina's own `__init__` imports nothing
    else), so it is imported from a copy of the source tree that uid 65534 can read (the
    checkout itself may sit in a 0700 folder)."""
    if os.geteuid() != 0:
        pytest.skip(
            "the test suite already runs as an ordinary user: every other test is this case"
        )
    python = shutil.which("python3", path="/usr/bin:/bin")
    if python is None or shutil.which("setpriv") is None:
        pytest.skip("needs /usr/bin/python3 and setpriv to start a process as another user")
    shared = Path(tempfile.mkdtemp(prefix="vsbx-user-", dir="/tmp"))
    try:
        shared.chmod(0o777)
        src = shared / "src"
        shutil.copytree(SRC, src / "vitrina", ignore=shutil.ignore_patterns("__pycache__"))
        driver = f"""
import json, sys
sys.path.insert(0, {str(src)!r})
from vitrina.task.sandbox import runner as sbx
limits = sbx.SandboxLimits(cpu_s=2, wall_s=20, memory_mb=512, file_mb=5, procs=16, disk_mb=8)
out = {{"mode": sbx.isolation()}}
for name, code in {{"passwd": "open('/etc/passwd').read()",
                    "net": "import socket; socket.create_connection(('127.0.0.1', 5432), timeout=2)",
                    "disk": "[open(f'out/f{{n}}', 'wb').write(b'0' * (3 << 20)) for n in range(5)]",
                    "ok": "open('out/r.txt', 'w').write('hi')"}}.items():
    r = sbx.run_python(code, limits=limits, work_root=__import__('pathlib').Path({str(shared)!r}))
    out[name] = {{"ok": r.ok, "limit": r.limit, "err": r.stderr[-300:], "files": [f.name for f in r.files]}}
print(json.dumps(out))
"""  # noqa: E501
        done = subprocess.run(
            [
                "setpriv",
                "--reuid",
                "65534",
                "--regid",
                "65534",
                "--clear-groups",
                python,
                "-I",
                "-c",
                driver,
            ],
            capture_output=True,
            timeout=120,
            check=False,
            cwd=shared,
            env={"PATH": "/usr/bin:/bin", "HOME": str(shared), "TMPDIR": str(shared)},
        )
        assert done.returncode == 0, done.stderr.decode()[-2000:]
        out = json.loads(done.stdout.decode().splitlines()[-1])
        assert out["mode"] == ["bwrap", "ok"]
        assert not out["passwd"]["ok"] and "No such file" in out["passwd"]["err"]
        assert not out["net"]["ok"] and "Connection refused" in out["net"]["err"]
        assert not out["disk"]["ok"] and out["disk"]["limit"] == "disk"
        assert out["ok"]["ok"] and out["ok"]["files"] == ["r.txt"]
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def test_refuses_without_bwrap(monkeypatch):
    monkeypatch.setattr(runner, "_bwrap", lambda: None)
    runner.isolation.cache_clear()
    try:
        with pytest.raises(
            SandboxUnavailable, match=r"bubblewrap \(bwrap\) not found; install bubblewrap"
        ):
            run_python("print('never')")
    finally:
        runner.isolation.cache_clear()


def test_refuses_when_bwrap_cannot_run(monkeypatch, tmp_path):
    fake = tmp_path / "bwrap"
    fake.write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n"
    )
    fake.chmod(0o755)
    monkeypatch.setattr(runner, "_bwrap", lambda: str(fake))
    runner.isolation.cache_clear()
    try:
        with pytest.raises(SandboxUnavailable, match="user namespaces"):
            run_python("print('never')")
    finally:
        runner.isolation.cache_clear()


@pytest.fixture
def extra_mounts(monkeypatch) -> Iterator[list[tuple[str, bool]]]:
    """Paths the test binds into the sandbox at their own paths, each told to the self-check
    (True: a known bind like the interpreter's files) or not (False: what a mistake in the
    mounts would expose)."""
    extra: list[tuple[str, bool]] = []
    real = runner._mounts()

    def mounts():
        args, known = list(real.args), list(real.known)
        for path, told in extra:
            for folder in mounts_folders([path]):
                args += ["--perms", "0755", "--dir", folder]
            args += ["--ro-bind", path, path]
            known += [path] if told else []
        return runner.Mounts(args=args, known=known, site=real.site, interpreter=real.interpreter)

    monkeypatch.setattr(runner, "_mounts", mounts)
    yield extra


@pytest.fixture
def beside(tmp_path_factory) -> Iterator[Path]:
    """A folder under /tmp with a file the sandbox may see (bound on purpose) and one beside it."""
    folder = Path(tempfile.mkdtemp(prefix="vsbx-beside-", dir="/tmp"))
    (folder / "known.txt").write_text("known", encoding="utf-8")
    (folder / "secret.txt").write_text("secret", encoding="utf-8")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


LIST = "import os\nfor d in ('/tmp', {beside!r}):\n    print(d, sorted(os.listdir(d)))"


def test_known_binds_under_tmp_pass_the_self_check(extra_mounts, beside, tmp_path):
    extra_mounts.append((str(beside / "known.txt"), True))
    result = run(LIST.format(beside=str(beside)), tmp_path / "out")
    assert result.ok, result.stderr
    shown = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    assert shown[str(beside)] == "['known.txt']"
    # /tmp holds that folder and, when this checkout is under /tmp, its venv's known paths
    installs = {k.split("/")[2] for k in runner._mounts().known if k.startswith("/tmp/")}
    assert set(ast.literal_eval(shown["/tmp"])) == {beside.name, *installs}


@pytest.mark.parametrize(
    "stray",
    ["a sibling of a known bind", "/tmp's other content", "the PostgreSQL socket folder"],
)
def test_the_self_check_fails_on_anything_else_of_the_host(stray, extra_mounts, beside):
    extra_mounts.append((str(beside / "known.txt"), True))
    path = {
        "a sibling of a known bind": str(beside / "secret.txt"),
        "/tmp's other content": str(beside.parent / "pytest-of-root")
        if (beside.parent / "pytest-of-root").exists()
        else str(beside),
        "the PostgreSQL socket folder": "/run/postgresql",
    }[stray]
    if not os.path.exists(path):
        pytest.skip(f"{path} does not exist on this machine")
    extra_mounts.append((path, False))
    with pytest.raises(SandboxUnavailable, match="host files visible") as caught:
        run_python("print('never')", limits=LIMITS)
    named = re.findall(r"'([^']+)'", str(caught.value))  # the stray entry or a folder above it
    assert any(path == n or path.startswith(n + "/") for n in named), str(caught.value)


def test_the_self_check_fails_when_nested_namespaces_are_not_denied(monkeypatch):
    """A sandbox that says nested namespaces are denied, started without the filter (and
    without bwrap's --disable-userns): the child finds out and refuses to run the script."""
    monkeypatch.setattr(runner.seccomp, "program", lambda machine=None: None)
    monkeypatch.setattr(runner, "_disable_userns", lambda: False)
    monkeypatch.setattr(runner, "nested_namespaces", lambda: (True, "denied: (test)"))
    with pytest.raises(SandboxUnavailable, match="a nested user namespace can be made"):
        run_python("print('never')", limits=LIMITS)


def test_nested_namespaces_are_denied_here():
    denied, how = runner.nested_namespaces()
    assert denied, how
    assert "seccomp filter" in how


def test_says_so_when_nested_namespaces_cannot_be_denied(monkeypatch, caplog, tmp_path):
    """No filter for this machine and no --disable-userns: the run goes on (the other
    guarantees hold) and the result and the log say that nested namespaces are allowed."""
    monkeypatch.setattr(runner.seccomp, "program", lambda machine=None: None)
    monkeypatch.setattr(runner, "_disable_userns", lambda: False)
    runner.nested_namespaces.cache_clear()
    try:
        with caplog.at_level("WARNING", logger=runner.LOG.name):
            result = run("open('out/r.txt', 'w').write('ran')", tmp_path / "out")
    finally:
        runner.nested_namespaces.cache_clear()
    assert result.ok, result.stderr
    assert result.nested_namespaces.startswith("allowed: no seccomp filter")
    assert "nested user and mount namespaces are allowed" in caplog.text


def test_the_self_check_fails_when_a_whole_host_folder_is_bound(extra_mounts, beside):
    """A known bind must be a file or folder of an installation (PREFIX/bin/python at the
    least), never a whole /tmp/NAME or /home/USER: even told, the child refuses it."""
    extra_mounts.append((str(beside), True))
    with pytest.raises(SandboxUnavailable, match="a whole host folder is bound") as caught:
        run_python("print('never')", limits=LIMITS)
    assert str(beside) in str(caught.value)


def test_only_the_interpreter_and_the_analysis_packages_are_bound():
    """Not the venv folder, its bin/, the project or the other installed libraries: the base
    interpreter's files and the analysis packages' own entries."""
    mounts = runner._mounts()
    project = Path(__file__).resolve().parents[2]
    base = os.path.realpath(sys.base_prefix)
    assert not [k for k in mounts.known if k == str(project) or k.startswith(f"{project}/src")]
    assert sys.prefix not in mounts.known and f"{sys.prefix}/bin" not in mounts.known
    assert all(k.startswith(base + "/") or k.startswith(tuple(mounts.site)) for k in mounts.known)
    names = {Path(k).name for k in mounts.known}
    assert "numpy" in names
    # statsmodels is the optional 'forecast' extra: bound when installed
    assert ("statsmodels" in names) == (importlib.util.find_spec("statsmodels") is not None)
    assert not names & {"vitrina", "sqlglot", "duckdb", "sqlalchemy", "psycopg", "langchain_core"}


def test_a_refused_run_leaves_no_folder_behind(extra_mounts, beside, tmp_path):
    extra_mounts.append((str(beside / "secret.txt"), False))
    with pytest.raises(SandboxUnavailable):
        run_python("print('never')", limits=LIMITS, work_root=tmp_path)
    assert list(tmp_path.iterdir()) == []
