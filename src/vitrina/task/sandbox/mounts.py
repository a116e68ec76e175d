"""What the sandboxed interpreter needs from the host, each file or folder at its own path.

Not the venv folder, not the project: the interpreter binary (links followed), its standard
library, its shared `libpython` and the installed distributions an analysis imports (numpy,
pandas, scipy, statsmodels, matplotlib where installed, and what they require), each
top-level entry of a distribution on its own. Wherever Vitrina is installed (/home/USER/...,
/tmp/..., /opt/...), the sandbox sees these paths and the folders above them, nothing beside
them; `child.py` gets the same list and fails when anything else of the host is visible.
Standard library only (runs before vitrina's dependencies are importable, e.g. under the
system Python).
"""

from __future__ import annotations

import importlib.metadata as metadata
import os
import re
import sys
import sysconfig
from dataclasses import dataclass, field

# what `analyze` and `python` steps may import, with their requirements (missing ones skipped;
# matplotlib for charts where it is installed: the sandbox sets MPLBACKEND=Agg)
ANALYSIS_PACKAGES = ("numpy", "pandas", "scipy", "statsmodels", "matplotlib")
# folders the sandbox gets whole (read-only) from the host: shared libraries and the loader
# (child.py's SYSTEM: the same list, checked there)
SYSTEM_DIRS = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin")
MAX_DISTRIBUTIONS = 60  # the requirement walk stops here
MAX_LINKS = 16  # links followed from one path
REQUIREMENT_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


@dataclass
class Mounts:
    """The bwrap arguments that make the sandbox root, and what they expose."""

    args: list[str] = field(default_factory=list)
    known: list[str] = field(default_factory=list)  # every bound or linked path (own paths)
    site: list[str] = field(default_factory=list)  # folders the child adds to sys.path
    interpreter: str = ""  # the real interpreter binary, run inside


def _system(path: str) -> bool:
    return any(path == d or path.startswith(d + "/") for d in SYSTEM_DIRS)


def _under(path: str, folders: set[str]) -> bool:
    return any(path == d or path.startswith(d.rstrip("/") + "/") for d in folders)


class _Plan:
    """Links to recreate and paths to bind, both at their own paths."""

    def __init__(self) -> None:
        self.links: dict[str, str] = {}
        self.binds: list[str] = []

    def add(self, path: str) -> None:
        """Bind `path`; a link on the way (the venv's bin/python -> the base interpreter) is
        recreated as a link and its target bound too."""
        path = os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
        for _ in range(MAX_LINKS):
            if not os.path.islink(path):
                break
            target = os.readlink(path)
            if not _system(path):
                self.links[path] = target
            path = os.path.normpath(os.path.join(os.path.dirname(path), target))
            path = os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
        if os.path.exists(path) and not _system(path) and path not in self.binds:
            self.binds.append(path)


def _interpreter(plan: _Plan) -> str:
    """The interpreter binary, its standard library (lib-dynload within) and libpython: the
    base installation's, not a venv's (a venv adds nothing the interpreter needs)."""
    real = os.path.realpath(sys.executable)
    plan.add(real)
    base = {"base": sys.base_prefix, "platbase": sys.base_prefix}
    for key in ("stdlib", "platstdlib"):
        folder = sysconfig.get_paths(vars=base).get(key, "")
        if folder and os.path.isdir(folder):
            plan.add(folder)
    if sysconfig.get_config_var("Py_ENABLE_SHARED"):
        libdir = sysconfig.get_config_var("LIBDIR") or ""
        for name in (sysconfig.get_config_var("INSTSONAME"), sysconfig.get_config_var("LDLIBRARY")):
            if name and os.path.lexists(os.path.join(libdir, name)):
                plan.add(os.path.join(libdir, name))
    return real


def _requirements(dist: metadata.Distribution) -> list[str]:
    """Names of what `dist` requires outside its extras (markers are not evaluated: a
    requirement that is not installed is skipped by the caller)."""
    names = []
    for req in dist.requires or []:
        marker = req.split(";", 1)[1] if ";" in req else ""
        match = REQUIREMENT_NAME.match(req)
        if match and "extra" not in marker:
            names.append(match.group(1))
    return names


def _distributions(wanted: tuple[str, ...]) -> list[metadata.Distribution]:
    """The wanted distributions and everything they require, as installed here (bounded)."""
    found: dict[str, metadata.Distribution] = {}
    queue = list(wanted)
    while queue and len(found) < MAX_DISTRIBUTIONS:
        name = queue.pop(0)
        key = re.sub(r"[-_.]+", "-", name).lower()
        if key in found:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        found[key] = dist
        queue.extend(_requirements(dist))
    return list(found.values())


def _entries(dist: metadata.Distribution) -> tuple[str, list[str]]:
    """(the folder it is installed in, its top-level entries there: package folders, modules,
    `.libs` folders of bundled shared libraries, its .dist-info), from its RECORD, else from
    top_level.txt."""
    root = os.path.realpath(str(dist.locate_file("")))
    names = [f.parts[0] for f in dist.files or [] if f.parts]
    if not names:
        names = (dist.read_text("top_level.txt") or "").split()
        names += [f"{n}.py" for n in names]
    tops: list[str] = []
    for first in names:
        if first in ("..", "__pycache__") or first.endswith(".pth"):
            continue
        path = os.path.join(root, first)
        if path not in tops and os.path.lexists(path):
            tops.append(path)
    return root, tops


def _folders(binds: list[str]) -> list[str]:
    """The folders above each bind, made by bwrap (0755: `nobody` passes a host's 0700)."""
    folders: list[str] = []
    for path in binds:
        parts = path.strip("/").split("/")[:-1]
        folders += ["/" + "/".join(parts[:n]) for n in range(1, len(parts) + 1)]
    return [f for f in dict.fromkeys(folders) if not _system(f)]


def sandbox_mounts(packages: tuple[str, ...] = ANALYSIS_PACKAGES) -> Mounts:
    """The sandbox root: the system library folders whole, then the interpreter's own files
    and the analysis packages at their own paths, read-only."""
    mounts = Mounts()
    for d in SYSTEM_DIRS:
        if os.path.islink(d):
            mounts.args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            mounts.args += ["--ro-bind", d, d]
    plan = _Plan()
    mounts.interpreter = _interpreter(plan)
    for dist in _distributions(packages):
        root, tops = _entries(dist)
        for path in tops:
            plan.add(path)
        if tops and root not in mounts.site:
            mounts.site.append(root)
    folders = {p for p in plan.binds if os.path.isdir(p)}
    # a path inside an already bound folder is there already (a base Python's own packages)
    binds = [p for p in plan.binds if not _under(p, folders - {p})]
    links = {p: t for p, t in plan.links.items() if not _under(p, folders)}
    for folder in _folders([*binds, *links]):
        if folder not in binds and folder not in links:
            mounts.args += ["--perms", "0755", "--dir", folder]
    for path in sorted(binds, key=len):
        mounts.args += ["--ro-bind", path, path]
    for path, target in links.items():
        mounts.args += ["--symlink", target, path]
    mounts.known = sorted({*binds, *links})
    return mounts
