"""The eval modules' docstring examples run."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["vitrina.eval.compare", "vitrina.eval.order", "vitrina.eval.metrics", "vitrina.eval.bank",
           "vitrina.eval.report_terminal"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0
