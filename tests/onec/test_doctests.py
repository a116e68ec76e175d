"""Docstrings that run: the examples in the 1C and route helpers."""

from __future__ import annotations

import doctest

import pytest

from vitrina.language import names
from vitrina.onec import links
from vitrina.route.plans import request


@pytest.mark.parametrize("module", [names, links, request], ids=lambda m: m.__name__)
def test_doctests(module):
    assert doctest.testmod(module).failed == 0
