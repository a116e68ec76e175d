"""EXPLAIN on the real engine: does the view compile, and how many rows will it read.

The estimate comes from the engine's own plan (DuckDB and PostgreSQL as JSON; SQLite
gives only the plan's steps, so its row estimate is unknown and says so). EXPLAIN plans
the query without running it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from vitrina.warehouse import Warehouse, WarehouseError

COST_LIMIT_ROWS = 50_000_000  # COST-002: above this, pre-aggregate or narrow the period


@dataclass
class Explained:
    ok: bool
    rows: int | None = None  # estimated rows read by the scans; None when the engine does not say
    cost: float | None = None  # the engine's own cost unit (PostgreSQL)
    error: str | None = None
    steps: list[str] = field(default_factory=list)


def _walk(node: Any) -> list[dict[str, Any]]:
    if isinstance(node, list):
        return [n for item in node for n in _walk(item)]
    if isinstance(node, dict):
        children = node.get("children") or node.get("Plans") or []
        return [node, *_walk(children)] + (_walk(node["Plan"]) if "Plan" in node else [])
    return []


def _duckdb(text: str) -> Explained:
    nodes = _walk(json.loads(text))
    scans = [n for n in nodes if "SCAN" in str(n.get("name", ""))]
    rows = sum(int(n.get("extra_info", {}).get("Estimated Cardinality", 0) or 0) for n in scans)
    return Explained(ok=True, rows=rows, steps=[str(n.get("name")) for n in nodes])


def _postgres(data: Any) -> Explained:
    plans = data if isinstance(data, list) else json.loads(data)
    nodes = _walk(plans)
    scans = [n for n in nodes if "Scan" in str(n.get("Node Type", ""))]
    top = plans[0]["Plan"] if plans and "Plan" in plans[0] else {}
    return Explained(
        ok=True,
        rows=sum(int(n.get("Plan Rows", 0)) for n in scans),
        cost=float(top.get("Total Cost", 0.0)),
        steps=[str(n.get("Node Type")) for n in nodes],
    )


def explain(sql: str, warehouse: Warehouse) -> Explained:
    """EXPLAIN a guarded SELECT; ``ok`` is False (with the engine's error) when it does not
    compile."""
    dialect = warehouse.dialect
    prefix = {
        "duckdb": "EXPLAIN (FORMAT JSON) ",
        "postgres": "EXPLAIN (FORMAT JSON) ",
        "sqlite": "EXPLAIN QUERY PLAN ",
    }.get(dialect, "EXPLAIN ")
    try:
        result = warehouse.execute(prefix + sql, row_cap=10_000)
    except WarehouseError as exc:
        return Explained(ok=False, error=str(exc))
    try:
        if dialect == "duckdb":
            return _duckdb(str(result.rows[0][-1]))
        if dialect == "postgres":
            return _postgres(result.rows[0][0])
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        return Explained(ok=True, error=f"the plan could not be read: {exc}")
    return Explained(ok=True, steps=[str(row[-1]) for row in result.rows])
