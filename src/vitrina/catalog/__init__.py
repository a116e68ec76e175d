"""The knowledge base: topics, tables, columns, relations, metrics, instructions, values.

The names are imported on first use (`vitrina.lazy`): `vitrina catalog --help` and the
CLI's other paths do not load the pydantic models until a catalog is read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vitrina.lazy import lazy_exports

_EXPORTS = {
    "Catalog": "vitrina.catalog.catalog",
    "CatalogError": "vitrina.catalog.errors",
    "CatalogProblem": "vitrina.catalog.errors",
    "DEMO_CATALOG": "vitrina.catalog.loader",
    "load_catalog": "vitrina.catalog.loader",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)


if TYPE_CHECKING:  # the lazy names, for type checkers and IDEs (tests/test_lazy_exports.py)
    from vitrina.catalog.catalog import Catalog as Catalog
    from vitrina.catalog.errors import CatalogError as CatalogError
    from vitrina.catalog.errors import CatalogProblem as CatalogProblem
    from vitrina.catalog.loader import DEMO_CATALOG as DEMO_CATALOG
    from vitrina.catalog.loader import load_catalog as load_catalog
