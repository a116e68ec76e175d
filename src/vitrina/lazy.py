"""Lazy package exports (PEP 562), so `vitrina --help` does not import every job's stack."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` that imports `name` from `exports[name]` on first use."""

    def __getattr__(name: str) -> Any:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(import_module(exports[name]), name)

    return __getattr__
