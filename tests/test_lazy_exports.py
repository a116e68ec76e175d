"""Lazy package exports stay visible to type checkers: every package whose `__init__` exports
names through `vitrina.lazy.lazy_exports` also imports each of them, from the same module,
in an `if TYPE_CHECKING:` block (so mypy and IDEs see real types, not `__getattr__`'s Any),
and each lazy name is the object its module defines."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import vitrina

SRC = Path(vitrina.__file__).parent


def _lazy_packages() -> dict[str, tuple[dict[str, str], dict[str, str]]]:
    """package -> (lazy name -> module, TYPE_CHECKING name -> module)."""
    found = {}
    for init in sorted(SRC.rglob("__init__.py")):
        tree = ast.parse(init.read_text(encoding="utf-8"))
        assigned = {
            s.targets[0].id: s.value
            for s in tree.body
            if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name)
        }
        lazy: dict[str, str] | None = None
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "lazy_exports":
                arg = node.args[1]
                value = assigned[arg.id] if isinstance(arg, ast.Name) else arg
                lazy = ast.literal_eval(value)
        if lazy is None:
            continue
        typed = {}
        for stmt in tree.body:
            if isinstance(stmt, ast.If) and getattr(stmt.test, "id", None) == "TYPE_CHECKING":
                for imp in stmt.body:
                    if isinstance(imp, ast.ImportFrom) and imp.module:
                        typed |= {a.asname or a.name: imp.module for a in imp.names}
        package = ".".join(init.relative_to(SRC.parent).parent.parts)
        found[package] = (lazy, typed)
    return found


PACKAGES = _lazy_packages()


def test_the_scan_finds_the_lazy_packages():
    assert {"vitrina.ask", "vitrina.llm", "vitrina.server", "vitrina.team"} <= set(PACKAGES)


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_type_checkers_see_every_lazy_name(package):
    lazy, typed = PACKAGES[package]
    assert typed == lazy, (
        f"{package}/__init__.py: its `if TYPE_CHECKING:` block must import exactly the lazy "
        f"names from their modules; missing or different: {set(lazy.items()) ^ set(typed.items())}"
    )


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_each_lazy_name_is_its_modules_object(package):
    lazy, _ = PACKAGES[package]
    loaded = importlib.import_module(package)
    for name, module in lazy.items():
        assert getattr(loaded, name) is getattr(importlib.import_module(module), name)
