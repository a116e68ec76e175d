"""The knowledge base: topics, tables, columns, relations, metrics, instructions, values."""

from vitrina.catalog.catalog import Catalog
from vitrina.catalog.errors import CatalogError, CatalogProblem
from vitrina.catalog.loader import DEMO_CATALOG, load_catalog

__all__ = ["DEMO_CATALOG", "Catalog", "CatalogError", "CatalogProblem", "load_catalog"]
