"""A warehouse given as a plain file path becomes the SQLAlchemy URL it means.

Users type `--db warehouse.duckdb` or `--db Chinook.db` far more often than the URL form;
the file's own header says which engine wrote it (SQLite's "SQLite format 3", DuckDB's "DUCK"
at byte 8), and a missing file is read by its suffix so the error names the file. A SQLite
file is opened with SQLite's read-only URI (`mode=ro`), as the README's URL form does.
"""

from __future__ import annotations

from pathlib import Path

SQLITE_MAGIC = b"SQLite format 3\x00"
DUCKDB_MAGIC = b"DUCK"  # bytes 8-11 of a DuckDB database file
DUCKDB_SUFFIXES = (".duckdb", ".ddb")
SQLITE_SUFFIXES = (".sqlite", ".sqlite3", ".db")


def as_warehouse_url(value: str) -> str:
    """`value` unchanged when it is a URL, else the URL of the file it names.

    >>> as_warehouse_url("postgresql://reader@127.0.0.1:5432/dwh")
    'postgresql://reader@127.0.0.1:5432/dwh'
    >>> as_warehouse_url("/nowhere/demo.duckdb")
    'duckdb:////nowhere/demo.duckdb'
    """
    if "://" in value or value == ":memory:":
        return value
    path = Path(value).expanduser()
    scheme = _engine_of(path)
    if scheme == "sqlite":  # opened read-only by SQLite itself, not only by the SQL guard
        return f"sqlite:///file:{path.resolve()}?mode=ro&uri=true"
    return f"{scheme}:///{path.resolve()}" if scheme else value


def _engine_of(path: Path) -> str | None:
    """duckdb or sqlite from the file's header, else from its suffix; None when neither."""
    try:
        with path.open("rb") as handle:
            head = handle.read(16)
    except OSError:
        head = b""
    if head.startswith(SQLITE_MAGIC):
        return "sqlite"
    if head[8:12] == DUCKDB_MAGIC:
        return "duckdb"
    suffix = path.suffix.lower()
    if suffix in DUCKDB_SUFFIXES:
        return "duckdb"
    if suffix in SQLITE_SUFFIXES:
        return "sqlite"
    return None
