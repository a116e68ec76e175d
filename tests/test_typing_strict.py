"""mypy is strict on the query core and on every job's public entry (issue 35): the strict
override in pyproject.toml names each job package and every module its lazy exports point to,
so a new public entry cannot escape strict checking, and no strict module hides in a debt list
(a module named in two override sections would take its options from whichever mypy reads last)."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import vitrina

ROOT = Path(__file__).resolve().parent.parent
SRC = Path(vitrina.__file__).parent
JOBS = ("ask", "docs", "eval", "onec", "route", "task", "team")
CORE = (
    "vitrina.sql",
    "vitrina.sql.*",
    "vitrina.llm",
    "vitrina.llm.*",
    "vitrina.query",
    "vitrina.query.*",
)


def _overrides() -> list[dict[str, object]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    overrides: list[dict[str, object]] = config["tool"]["mypy"]["overrides"]
    return overrides


def _strict_modules() -> set[str]:
    strict = [o for o in _overrides() if o.get("disallow_untyped_defs")]
    assert len(strict) == 1, "one strict override section, so the list is read in one place"
    modules = strict[0]["module"]
    assert isinstance(modules, list)
    return set(modules)


def _job_entries() -> set[str]:
    """Each job package and the modules its lazy public names come from (the imports of its
    `if TYPE_CHECKING:` block, which tests/test_lazy_exports.py keeps equal to the lazy names)."""
    found: set[str] = set()
    for job in JOBS:
        found.add(f"vitrina.{job}")
        tree = ast.parse((SRC / job / "__init__.py").read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
                found |= {n.module for n in node.body if isinstance(n, ast.ImportFrom) and n.module}
    return found


def test_strict_covers_the_core_and_every_job_entry() -> None:
    strict = _strict_modules()
    missing = (set(CORE) | _job_entries()) - strict
    assert not missing, f"add to the strict mypy override in pyproject.toml: {sorted(missing)}"


def test_strict_lists_only_the_core_and_job_entries() -> None:
    extra = _strict_modules() - set(CORE) - _job_entries()
    assert not extra, f"strict modules that are no job entry (move them to CORE here): {extra}"


def test_no_strict_module_in_a_debt_list() -> None:
    strict = _strict_modules()
    for override in _overrides():
        if override.get("disallow_untyped_defs"):
            continue
        modules = override["module"]
        named = set(modules if isinstance(modules, list) else [modules])
        assert not named & strict, f"strict modules with debts switched off: {named & strict}"


def test_each_module_in_one_override_section() -> None:
    seen: dict[str, int] = {}
    for override in _overrides():
        modules = override["module"]
        for module in modules if isinstance(modules, list) else [modules]:
            seen[module] = seen.get(module, 0) + 1
    twice = sorted(m for m, n in seen.items() if n > 1)
    assert not twice, f"modules named in several mypy override sections: {twice}"
