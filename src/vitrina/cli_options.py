"""Command-line options that several jobs' commands share, declared once (Typer `Annotated`
aliases), so `--db` and `--catalog` read the same and say the same everywhere."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

WarehouseUrl = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="Warehouse: a SQLAlchemy URL (postgresql+psycopg://reader@host/db, "
        "duckdb:///dwh.duckdb) or a DuckDB/SQLite file path (default: the demo warehouse).",
    ),
]
CatalogDir = Annotated[
    Path | None, typer.Option("--catalog", help="Catalog folder (default: the demo catalog).")
]
