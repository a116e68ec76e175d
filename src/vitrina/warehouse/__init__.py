"""Warehouse access: read-only connections, the demo warehouse, introspection."""

from vitrina.warehouse.engine import Warehouse, WarehouseError, dialect_of
from vitrina.warehouse.result import QueryResult

__all__ = ["QueryResult", "Warehouse", "WarehouseError", "dialect_of"]
