"""The import graph of src/vitrina: layers point down, jobs meet only at public entry points.

Layers, lowest first (docs/architecture.md says what lives where):

* core: the root package ``vitrina``, ``config``, ``lazy``, ``i18n``, ``trace``,
  ``checkpoint``, ``llm``, ``warehouse``, ``catalog``, ``sql``, ``language``, ``present``,
  ``query``;
* jobs: ``ask``, ``docs``, ``task``, ``route``, ``eval``, ``onec``, ``team``;
* faces: ``server``, ``mcp``, ``cli``.

Rules:

1. the core never imports a job or a face, and ``language``, the lowest package, imports no
   other vitrina package;
2. a job never imports a face;
3. outside its own package a job is imported only through its public entry point, the
   package itself (``from vitrina.ask import AskService``: its ``__init__`` exports names
   lazily); ``vitrina.<job>.commands`` (the CLI plug-in) is imported by ``vitrina.cli`` alone;
4. there is no cycle among vitrina's top-level packages;
5. every top-level package has a layer: a new one is placed here and in docs/architecture.md;
6. no job plans through another job: the plan, the question reader, the planner, the
   compiler and ``run_checked`` are the core's (``vitrina.query``), imported from there;
   a job neither re-exports them nor has them imported from its entry point.

An edge is an ``import`` or ``from ... import`` anywhere in a module (inside functions and
``TYPE_CHECKING`` blocks too, relative imports resolved), ``import_module("...")``, or a
module-level collection of module names (a lazy-exports dict, the CLI's list of jobs).
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

import vitrina

CORE = frozenset(
    {
        "vitrina",
        "config",
        "lazy",
        "deferred_imports",
        "cli_options",  # the options every job's CLI plug-in shares (--db, --catalog)
        "i18n",
        "trace",
        "checkpoint",
        "llm",
        "warehouse",
        "catalog",
        "sql",
        "language",
        "present",
        "query",  # the plan, the question reader, the planner, the compiler, run_checked
        "advisory",  # PostgreSQL advisory locks: who runs a task or a turn across processes
    }
)
JOBS = frozenset({"ask", "docs", "task", "route", "eval", "onec", "team"})
FACES = frozenset({"server", "mcp", "cli", "__main__"})
SRC = Path(vitrina.__file__).parent

Edge = tuple[str, str]  # (importing module, imported module)


def module_name(path: Path, root: Path = SRC) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _named_modules(tree: ast.Module, known: set[str]) -> set[str]:
    """Modules named by strings: `import_module("...")`, and module-level dicts, tuples or
    lists whose strings are all module names (lazy exports, the CLI's list of jobs)."""
    found = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", None)) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            found.add(str(node.args[0].value))
    for stmt in tree.body:
        value = stmt.value if isinstance(stmt, ast.Assign | ast.AnnAssign) else None
        items = (
            value.values
            if isinstance(value, ast.Dict)
            else value.elts
            if isinstance(value, ast.Tuple | ast.List | ast.Set)
            else []
        )
        names = [i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)]
        if names and len(names) == len(items) and all(n in known for n in names):
            found.update(names)
    return found


def imports_of(module: str, source: str, known: Iterable[str], *, is_package: bool) -> set[str]:
    """The vitrina modules that `source` (the text of `module`) imports."""
    known = set(known)
    tree = ast.parse(source)
    found = _named_modules(tree, known)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            found.add(target)
            found.update(
                f"{target}.{alias.name}"
                for alias in node.names
                if f"{target}.{alias.name}" in known
            )
    return {m for m in found if m == "vitrina" or m.startswith("vitrina.")}


def source_edges(root: Path = SRC) -> set[Edge]:
    """Every import edge between modules of the package under `root`."""
    files = sorted(root.rglob("*.py"))
    known = {module_name(f, root) for f in files}
    edges: set[Edge] = set()
    for file in files:
        name = module_name(file, root)
        for target in imports_of(
            name, file.read_text(encoding="utf-8"), known, is_package=file.name == "__init__.py"
        ):
            if target != name:
                edges.add((name, target))
    return edges


def top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def layer(package: str) -> str | None:
    return next(
        (
            name
            for name, members in (("core", CORE), ("job", JOBS), ("face", FACES))
            if package in members
        ),
        None,
    )


def _public(importer: str, target: str) -> bool:
    job = top(target)
    return target == f"vitrina.{job}" or (
        target == f"vitrina.{job}.commands" and importer == "vitrina.cli"
    )


def _cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The package cycles, one per strongly connected group (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def violations(edges: Iterable[Edge]) -> list[str]:
    """Every broken rule of the module docstring, one line each."""
    found: list[str] = []
    graph: dict[str, set[str]] = {}
    for importer, target in sorted(set(edges)):
        src, dst = top(importer), top(target)
        for package in (src, dst):
            if layer(package) is None:
                found.append(
                    f"{package}: top-level package without a layer (edge {importer} -> {target})"
                )
        if src == dst:
            continue
        graph.setdefault(src, set()).add(dst)
        if src == "language":
            found.append(f"language imports another package: {importer} -> {target}")
        if layer(src) == "core" and layer(dst) in ("job", "face"):
            found.append(f"core imports a {layer(dst)}: {importer} -> {target}")
        if layer(src) == "job" and layer(dst) == "face":
            found.append(f"job imports a face: {importer} -> {target}")
        if layer(dst) == "job" and not _public(importer, target):
            found.append(
                f"not through {dst}'s public entry point vitrina.{dst}: {importer} -> {target}"
            )
    found += [f"package cycle: {' <-> '.join(group)}" for group in _cycles(graph)]
    return list(dict.fromkeys(found))


def test_import_graph_follows_the_layers() -> None:
    edges = source_edges()
    assert len(edges) > 500  # the parser sees the real graph, not an empty one
    assert violations(edges) == []


def test_every_kind_of_violation_is_reported() -> None:
    fake = {
        ("vitrina.catalog.retrieval.terms", "vitrina.ask.understand"),  # core -> job, private
        ("vitrina.present.table", "vitrina.server"),  # core -> face
        ("vitrina.language.periods.grain", "vitrina.present.columns"),  # language is lowest
        ("vitrina.ask.service", "vitrina.server.app"),  # job -> face
        ("vitrina.route.plans.request", "vitrina.ask.nodes.resolve_context"),  # private
        ("vitrina.server.app", "vitrina.task.service"),  # a face goes through the entry too
        ("vitrina.route.commands", "vitrina.ask.commands"),  # commands are the CLI's alone
        ("vitrina.build.brief", "vitrina.present"),  # a package without a layer
        ("vitrina.sql.guard", "vitrina.catalog"),
        ("vitrina.catalog.loader", "vitrina.sql.format"),
    }
    assert set(violations(fake)) == {
        "build: top-level package without a layer (edge vitrina.build.brief -> vitrina.present)",
        "core imports a job: vitrina.catalog.retrieval.terms -> vitrina.ask.understand",
        "not through ask's public entry point vitrina.ask: "
        "vitrina.catalog.retrieval.terms -> vitrina.ask.understand",
        "core imports a face: vitrina.present.table -> vitrina.server",
        "language imports another package: "
        "vitrina.language.periods.grain -> vitrina.present.columns",
        "job imports a face: vitrina.ask.service -> vitrina.server.app",
        "not through ask's public entry point vitrina.ask: "
        "vitrina.route.commands -> vitrina.ask.commands",
        "not through ask's public entry point vitrina.ask: "
        "vitrina.route.plans.request -> vitrina.ask.nodes.resolve_context",
        "not through task's public entry point vitrina.task: "
        "vitrina.server.app -> vitrina.task.service",
        "package cycle: catalog <-> sql",
    }
    allowed = {
        ("vitrina.route.service", "vitrina.ask"),
        ("vitrina.cli", "vitrina.ask.commands"),
        ("vitrina.ask.planner", "vitrina.language.periods"),
        ("vitrina.ask.nodes.x", "vitrina.ask.plan"),
    }
    assert violations(allowed) == []


def test_the_parser_finds_every_kind_of_edge() -> None:
    known = {
        "vitrina",
        "vitrina.ask",
        "vitrina.ask.plan",
        "vitrina.ask.nodes",
        "vitrina.ask.nodes.answer",
        "vitrina.present",
        "vitrina.present.charts",
        "vitrina.server",
        "vitrina.task.service",
        "vitrina.docs.run",
        "vitrina.sql",
    }
    source = '''"""Docstring naming vitrina.server: no edge."""
from typing import TYPE_CHECKING
from importlib import import_module
from . import answer
from ...present import charts
import vitrina.ask.plan
if TYPE_CHECKING:
    from vitrina.task.service import TaskService
EXPORTS = {"TaskService": "vitrina.task.service", "QueryPlan": "vitrina.ask.plan"}
LABELS = ("sql", "vitrina.sql")  # a span attribute, not a module list: no edge
def f():
    from vitrina import __version__
    return import_module("vitrina.docs.run")
'''
    found = imports_of("vitrina.ask.nodes.fake", source, known, is_package=False)
    assert found == {
        "vitrina.ask.nodes",
        "vitrina.ask.nodes.answer",
        "vitrina.present",
        "vitrina.present.charts",
        "vitrina.ask.plan",
        "vitrina.task.service",
        "vitrina",
        "vitrina.docs.run",
    }


JOB_PACKAGES = sorted(f"vitrina.{job}" for job in JOBS if (SRC / job / "__init__.py").exists())
JOB_PACKAGES.append("vitrina.query")  # the core's lazy entry point, checked the same way


@pytest.mark.parametrize("package", JOB_PACKAGES)
def test_public_entry_points_resolve(package: str) -> None:
    """Every exported name imports, and none is shadowed by a submodule of the same name."""
    module = importlib.import_module(package)
    submodules = {m.name for m in pkgutil.iter_modules(module.__path__)}
    for name in getattr(module, "__all__", []):
        lazy = name in getattr(module, "_EXPORTS", {})
        assert not (lazy and name in submodules), (
            f"{package}.{name} is both an export and a submodule"
        )
        assert getattr(module, name) is not None


QUERY_NAMES = frozenset(importlib.import_module("vitrina.query").__all__)


def planning_through_jobs(sources: Mapping[str, str]) -> list[str]:
    """Rule 6 over module sources (name -> text): a query-core name imported from a job's
    entry point outside that job, or a job's entry point exporting a `vitrina.query` name."""
    found = []
    for module, source in sorted(sources.items()):
        tree = ast.parse(source)
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
                continue
            job = top(node.module)
            if node.module != f"vitrina.{job}" or job not in JOBS or top(module) == job:
                continue
            for alias in node.names:
                if alias.name in QUERY_NAMES:
                    found.append(
                        f"plans through {job}: {module} imports {alias.name} from "
                        f"vitrina.{job} (import it from vitrina.query)"
                    )
        if top(module) in JOBS and module == f"vitrina.{top(module)}":
            for target in sorted(_export_targets(tree)):
                if target.startswith("vitrina.query"):
                    found.append(f"{module} re-exports the query core ({target})")
    return list(dict.fromkeys(found))


def _export_targets(tree: ast.Module) -> set[str]:
    """The module names of a package's lazy-export dict (`_EXPORTS = {name: module}`)."""
    targets = set()
    for stmt in tree.body:
        value = stmt.value if isinstance(stmt, ast.Assign | ast.AnnAssign) else None
        if isinstance(value, ast.Dict):
            targets |= {
                v.value
                for v in value.values
                if isinstance(v, ast.Constant) and isinstance(v.value, str)
            }
    return targets


def test_no_job_plans_through_another_job() -> None:
    sources = {module_name(f): f.read_text(encoding="utf-8") for f in sorted(SRC.rglob("*.py"))}
    assert planning_through_jobs(sources) == []


def test_planning_through_a_job_is_reported() -> None:
    """Planted faults: each kind is reported; the query core's own imports are not."""
    sources = {
        "vitrina.route.plans.scoring": "from vitrina.ask import QueryPlan, compile_plan\n",
        "vitrina.team.data.views": "from vitrina.ask import read_question, AskService\n",
        "vitrina.ask": '_EXPORTS = {"build_plan": "vitrina.query.planner"}\n',
        "vitrina.ask.nodes.x": "from vitrina.query import build_plan\n",  # its own core import
        "vitrina.route.service": "from vitrina.ask import AskService\n",  # the service: fine
        "vitrina.mcp.tools": "from vitrina.query import run_checked\n",
    }
    assert planning_through_jobs(sources) == [
        "vitrina.ask re-exports the query core (vitrina.query.planner)",
        "plans through ask: vitrina.route.plans.scoring imports QueryPlan from vitrina.ask "
        "(import it from vitrina.query)",
        "plans through ask: vitrina.route.plans.scoring imports compile_plan from vitrina.ask "
        "(import it from vitrina.query)",
        "plans through ask: vitrina.team.data.views imports read_question from vitrina.ask "
        "(import it from vitrina.query)",
    ]


def test_the_query_entry_point_declares_its_exports_for_type_checkers() -> None:
    """Every lazy export of vitrina.query has a real import in its TYPE_CHECKING block."""
    tree = ast.parse((SRC / "query" / "__init__.py").read_text(encoding="utf-8"))
    guarded = {
        alias.asname or alias.name
        for node in tree.body
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"
        for stmt in node.body
        if isinstance(stmt, ast.ImportFrom)
        for alias in stmt.names
    }
    assert guarded == QUERY_NAMES
