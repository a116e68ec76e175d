"""Docstrings that run: every `>>>` example in the package is executed (sqlglot's test_docs)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import vitrina

MODULES = sorted(m.name for m in pkgutil.walk_packages(vitrina.__path__, prefix="vitrina.")
                 if not m.name.endswith("__main__"))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert failures == 0, f"{failures} failing docstring example(s) in {name}"
