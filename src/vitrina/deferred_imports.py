"""Third-party modules that are imported on every path but used on almost none: their code
runs on first attribute access instead of at import.

LangGraph imports langchain-core's tracers, which import `langsmith.run_trees`, which imports
`langsmith._internal._v2_migration_utils` and with it all of `langsmith.types` (~140 ms of
generated pydantic models, a seventh of a cold `vitrina ask`). run_trees touches that module
only inside one function (the LangSmith client's query backend), never at import, so the
module object can exist empty until then. Deferring is safe whatever the library does next:
a module used at import time simply loads at that moment, a renamed one is never matched.

Unlike `importlib.util.LazyLoader` (not thread-safe on Python 3.11), the first access runs
the module's code under a lock that other threads' first accesses wait on, and only a
*missing* attribute triggers it (`__getattr__`), so `__spec__`, `__path__` and the like never
do: a package's submodules import without running its `__init__`.
"""

from __future__ import annotations

import sys
import threading
import types
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec, PathFinder
from typing import Any

DEFERRED = frozenset({"langsmith.types", "langgraph_sdk"})
_LOCK = threading.RLock()
_PENDING = "__vitrina_deferred_loader__"


class _DeferredModule(types.ModuleType):
    """A module whose code has not run yet; the first missing attribute runs it."""

    def __getattr__(self, attr: str) -> Any:
        with _LOCK:  # another thread asking meanwhile waits here, then finds the attribute
            loader = self.__dict__.pop(_PENDING, None)
            if loader is not None:
                try:
                    loader.exec_module(self)
                except BaseException:  # as a failed import: gone from sys.modules, error raised
                    if sys.modules.get(self.__name__) is self:
                        del sys.modules[self.__name__]
                    raise
                finally:
                    self.__class__ = types.ModuleType
        if attr in self.__dict__:
            return self.__dict__[attr]
        raise AttributeError(f"module {self.__name__!r} has no attribute {attr!r}")


class _DeferredLoader(Loader):
    def __init__(self, real: Loader) -> None:
        self.real = real

    def create_module(self, spec: ModuleSpec) -> types.ModuleType | None:
        return self.real.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        module.__dict__[_PENDING] = self.real
        module.__class__ = _DeferredModule


class _DeferredFinder(MetaPathFinder):
    def find_spec(self, name: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        if name not in DEFERRED:
            return None
        spec = PathFinder.find_spec(name, path, target)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _DeferredLoader(spec.loader)
        return spec


def install() -> None:
    """Defer the modules of DEFERRED in this process (idempotent; before they are imported)."""
    if not any(isinstance(f, _DeferredFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _DeferredFinder())
