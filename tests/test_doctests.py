"""Docstrings that run: one test per module whose docstrings hold `>>>` examples.

Modules are chosen by reading their source with `ast`, so a module without examples
makes no test (a test that cannot fail), and a module whose examples doctest does not
find fails (`attempted == 0`) instead of passing silently.
"""

from __future__ import annotations

import ast
import doctest
import importlib
from pathlib import Path

import pytest

import vitrina

PACKAGE = Path(vitrina.__file__).parent
DOCSTRING_OWNERS = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def has_examples(source: str) -> bool:
    """True when a module, class or function docstring of `source` holds a `>>>` line.

    >>> has_examples("def f():\\n    '''Twice.\\n\\n    >>> f()\\n    2\\n    '''")
    True
    >>> has_examples("PROMPT = '''>>> not a docstring'''")
    False
    """
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, DOCSTRING_OWNERS):
            doc = ast.get_docstring(node, clean=False) or ""
            if any(line.lstrip().startswith(">>>") for line in doc.splitlines()):
                return True
    return False


def modules_with_examples() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "__main__.py" or not has_examples(path.read_text(encoding="utf-8")):
            continue
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


MODULES = modules_with_examples()


def test_examples_are_found() -> None:
    """The scan itself: this module's own examples and a known module's are seen."""
    assert "vitrina.present.numbers" in MODULES and "vitrina.language.periods.calendar" in MODULES
    assert doctest.testmod(importlib.import_module(__name__)).attempted == 2


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name}: `>>>` in a docstring but doctest found no example"
    assert result.failed == 0, f"{result.failed} failing docstring example(s) in {name}"
