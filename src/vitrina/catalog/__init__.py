"""The knowledge base: topics, tables, columns, relations, metrics, instructions, values.

The names are imported on first use (`vitrina.lazy`): `vitrina catalog --help` and the
CLI's other paths do not load the pydantic models until a catalog is read.
"""

from __future__ import annotations

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
