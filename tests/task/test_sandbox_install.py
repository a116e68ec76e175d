"""The sandbox wherever Vitrina is installed: a project folder (the source tree and a venv with
numpy and pandas in it) under /tmp and under /home/USER, run as root and as an ordinary user.

Why not a full `pip install` per case: it takes minutes and the network. What the sandbox
depends on is where the files are, so each case builds a real venv at that place
(`python -m venv --without-pip`: its own bin/python link and pyvenv.cfg), puts the numpy and
pandas distributions physically into its site-packages (hard links of the dev venv's files:
the same bytes at the new paths, no copy), the source tree next to it and a path .pth as an
editable install writes. The driver then runs with that venv's interpreter, imports vitrina
from that tree and runs the sandbox: every path it computes is under the install folder. The
fresh-clone check in docs/decisions/147 does the same with `make .venv/.installed`.
"""

from __future__ import annotations

import json
import os
import pwd
import secrets
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from vitrina.task.sandbox import runner
from vitrina.task.sandbox.mounts import _distributions, _entries

SRC = Path(__file__).resolve().parents[2] / "src" / "vitrina"
PACKAGES = ("numpy", "pandas")
# run inside the install: the sandbox from that tree, then what each case must show
DRIVER = r"""
import json, os, sys
from vitrina.task.sandbox import runner
from vitrina.task.sandbox.runner import SandboxLimits, isolation, nested_namespaces, run_python

limits = SandboxLimits(cpu_s=5, wall_s=30, memory_mb=1024, file_mb=5, procs=16, disk_mb=16)
place = sys.argv[1]
walk = (  # each folder above the known paths, a site-packages folder's entries, no deeper
    "import os\nfor d, ds, fs in os.walk(%r):\n    print(d, sorted(ds + fs))\n"
    "    ds[:] = [] if d.endswith('site-packages') else ds" % place
)
codes = {
    "numpy": "import numpy, pandas\nopen('out/r.txt', 'w').write(str(numpy.sum("
    "pandas.Series([1, 2]).to_numpy())))",
    "secret": "print(open(%r).read())" % sys.argv[2],
    "walk": walk,
    "vitrina": "import vitrina",
    "userns": "import subprocess\nraise SystemExit(subprocess.run(['unshare', '--user', "
    "'--map-root-user', '--mount', 'true']).returncode)",
}
out = {"runner": runner.__file__, "mode": isolation(), "nested": nested_namespaces(),
       "known": runner._mounts().known}
for name, code in codes.items():
    r = run_python(code, limits=limits, work_root=__import__("pathlib").Path(sys.argv[3]))
    out[name] = {"ok": r.ok, "out": r.stdout[-3000:], "err": r.stderr[-600:],
                 "files": {f.name: f.read_text() for f in r.files}}
print(json.dumps(out))
"""


pytestmark = pytest.mark.usefixtures("sandbox_required")


def _link_tree(src: Path, dst: Path) -> None:
    """Hard links when on one file system, copies otherwise."""
    if src.is_dir():
        shutil.copytree(src, dst, copy_function=_link, symlinks=True)
    else:
        _link(str(src), str(dst))


def _link(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def make_install(root: Path, python: str) -> Path:
    """A project folder at `root`: src/vitrina, .venv (its interpreter `python`'s venv) with
    numpy, pandas and their requirements in its own site-packages; returns the venv's python."""
    shutil.copytree(SRC, root / "src" / "vitrina", ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([python, "-m", "venv", "--without-pip", str(root / ".venv")], check=True)
    site = next((root / ".venv" / "lib").glob("python3*/site-packages"))
    for dist in _distributions(PACKAGES):
        for entry in _entries(dist)[1]:
            _link_tree(Path(entry), site / Path(entry).name)
    (site / "__editable__.vitrina-0.1.0.pth").write_text(f"{root / 'src'}\n", encoding="utf-8")
    (root / "secret.txt").write_text("the project folder's own file", encoding="utf-8")
    return root / ".venv" / "bin" / "python"


@pytest.fixture(scope="module")
def user() -> Iterator[str]:
    """A throwaway ordinary user with a home under /home (root only)."""
    if os.geteuid() != 0:
        pytest.skip("creating a user with a /home folder needs root")
    if not (shutil.which("useradd") and shutil.which("runuser")):
        pytest.skip("needs useradd and runuser")
    name = f"vtsbx{secrets.token_hex(3)}"
    subprocess.run(["useradd", "-m", "-s", "/bin/sh", name], check=True, capture_output=True)
    try:
        yield name
    finally:
        subprocess.run(["userdel", "-r", name], check=False, capture_output=True)


def _ids(name: str) -> tuple[int, int]:
    entry = pwd.getpwnam(name)
    return entry.pw_uid, entry.pw_gid


def _base_python(as_user: bool) -> str:
    """The interpreter the venv is made from: this one's base (pyenv's under /root here) as
    root; an ordinary user cannot enter /root, so Debian's python3 (same minor version)."""
    if not as_user:
        return os.path.realpath(sys.executable)
    system = "/usr/bin/python3"
    if not os.path.exists(system):
        pytest.skip("needs /usr/bin/python3 for the ordinary user's venv")
    version = subprocess.run(
        [system, "-c", "import sys; print(sys.version_info[:2])"], capture_output=True, text=True
    ).stdout.strip()
    if version != str(sys.version_info[:2]):
        pytest.skip(f"/usr/bin/python3 is {version}, the test's packages are built for another")
    return system


@pytest.mark.parametrize(
    ("place", "who"),
    [("/tmp", "root"), ("/home", "root"), ("/tmp", "user"), ("/home", "user")],
)
def test_sandbox_runs_from_an_install_under(place, who, request):
    as_user = who == "user"
    if os.geteuid() != 0 and (place == "/home" or as_user):
        pytest.skip("an install under /home and a second user need root")
    name = request.getfixturevalue("user") if (as_user or place == "/home") else None
    home = Path(pwd.getpwnam(name).pw_dir) if name else None
    parent = home if place == "/home" else Path("/tmp")
    root = Path(tempfile.mkdtemp(prefix="vitrina-", dir=parent))
    try:
        python = make_install(root, _base_python(as_user))
        work = root / "work"
        work.mkdir()
        (parent / "beside.txt").write_text("a file beside the install", encoding="utf-8")
        cmd = [str(python), "-c", DRIVER, place, str(root / "secret.txt"), str(work)]
        if as_user:  # the user reads the install (root's, as after a `sudo make`), owns work/
            # never chown -R: the venv's files are hard links of the dev venv's
            root.chmod(0o755)
            os.chown(work, *_ids(str(name)))
            cmd = [str(shutil.which("runuser")), "-u", str(name), "--", *cmd]
        done = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
            cwd=root,
            env={"PATH": "/usr/bin:/bin", "HOME": str(home or root), "LANG": "C.UTF-8"},
        )
        assert done.returncode == 0, done.stderr[-3000:]
        out = json.loads(done.stdout.splitlines()[-1])
        assert out["runner"].startswith(str(root / "src")), out["runner"]
        assert out["mode"] == ["bwrap", "ok"]
        assert out["nested"][0], out["nested"]
        if as_user and "--disable-userns" in runner._bwrap_options():
            assert out["nested"][1] == "denied: seccomp filter, bwrap --disable-userns"
        assert out["numpy"]["ok"] and out["numpy"]["files"] == {"r.txt": "3"}, out["numpy"]
        assert not out["secret"]["ok"] and "No such file" in out["secret"]["err"]
        assert not out["vitrina"]["ok"] and "No module named 'vitrina'" in out["vitrina"]["err"]
        assert not out["userns"]["ok"] and "unshare failed" in out["userns"]["err"]
        # what the sandbox shows of /tmp or /home: the known files and the folders above them
        assert out["walk"]["ok"], out["walk"]["err"]
        shown = out["walk"]["out"]
        assert "beside.txt" not in shown and "secret.txt" not in shown and "src" not in shown
        site = [k for k in out["known"] if k.startswith(str(root))]
        assert site and all("/site-packages/" in k for k in site), site
        assert f"{root}/.venv/lib" in shown
    finally:
        shutil.rmtree(root, ignore_errors=True)
        (parent / "beside.txt").unlink(missing_ok=True)
