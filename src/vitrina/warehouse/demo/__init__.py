"""The demo warehouse: a deterministic fintech/e-commerce company in an embedded DuckDB file.

Every job of Vitrina (ask, task, build, eval) needs a warehouse to run against with no
setup, so the demo is generated, not downloaded: same seed -> same rows, in seconds.
The file is written atomically (temp file, then rename) so that a crash never leaves a
half-built warehouse that looks complete, and `ensure_demo_warehouse` rebuilds it only
when it is missing or was built by another generator version.
"""

from __future__ import annotations

import contextlib
import os
import time
import uuid
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import duckdb
from pydantic import BaseModel

from vitrina.warehouse.demo.schema import DATA_TABLES, MARKER_TABLE, SCHEMA

__all__ = [
    "DATA_TABLES",
    "DEFAULT_SEED",
    "DEMO_VERSION",
    "MARKER_TABLE",
    "SCHEMA",
    "DemoMarker",
    "DemoStats",
    "Progress",
    "build_demo_warehouse",
    "ensure_demo_warehouse",
    "read_marker",
    "table_checksums",
]

DEMO_VERSION = "1"  # bump whenever the generator's output changes: ensure_* then rebuilds
DEFAULT_SEED = 20250501

Progress = Callable[[str, int, int], None]  # (step name, steps done, steps total)


class DemoStats(BaseModel):
    """What one build produced: rows per table and where the time went."""

    path: Path
    seed: int
    scale: float
    rows: dict[str, int]
    seconds: float
    step_seconds: dict[str, float]


class DemoMarker(BaseModel):
    """The row of dwh._vitrina_demo that says which generator built the file."""

    version: str
    seed: int
    scale: float
    built_at: datetime


def build_demo_warehouse(
    path: Path,
    *,
    seed: int = DEFAULT_SEED,
    scale: float = 1.0,
    progress: Progress | None = None,
) -> DemoStats:
    """Generate the demo warehouse into `path`, replacing any file there only at the end.

    `scale` shrinks every table (0.05 for fast tests); the full size (1.0) has about
    1.25M payments.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    from vitrina.warehouse.demo.generate import Sizes, steps  # the generator, only to build

    sizes = Sizes.for_scale(scale)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.building")
    started = time.perf_counter()
    step_seconds: dict[str, float] = {}
    try:
        con = duckdb.connect(str(tmp))
        try:
            plan = steps(con, sizes, seed)
            for done, (name, run) in enumerate(plan):
                if progress:
                    progress(name, done, len(plan))
                t0 = time.perf_counter()
                run()
                step_seconds[name] = round(time.perf_counter() - t0, 3)
            con.execute(
                f"INSERT INTO {SCHEMA}.{MARKER_TABLE} VALUES (?, ?, ?, ?)",
                [DEMO_VERSION, seed, float(scale), datetime.now().replace(microsecond=0)],
            )
            rows = {
                t: con.execute(f"SELECT count(*) FROM {SCHEMA}.{t}").fetchone()[0]  # type: ignore[index]
                for t in DATA_TABLES
            }
            con.execute("CHECKPOINT")
        finally:
            con.close()
        # A stale write-ahead log next to the old file would be replayed onto the new one.
        Path(f"{path}.wal").unlink(missing_ok=True)
        os.replace(tmp, path)
    finally:
        for leftover in (tmp, Path(f"{tmp}.wal")):
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()
    if progress:
        progress("done", len(step_seconds), len(step_seconds))
    return DemoStats(
        path=path,
        seed=seed,
        scale=scale,
        rows=rows,
        seconds=round(time.perf_counter() - started, 3),
        step_seconds=step_seconds,
    )


def read_marker(path: Path) -> DemoMarker | None:
    """The build marker of a demo file, or None when the file is missing or not a demo."""
    if not Path(path).is_file():
        return None
    try:
        with duckdb.connect(str(path), read_only=True) as con:
            row = con.execute(
                f"SELECT version, seed, scale, built_at FROM {SCHEMA}.{MARKER_TABLE} LIMIT 1"
            ).fetchone()
    except duckdb.Error:
        return None
    if row is None:
        return None
    return DemoMarker(version=row[0], seed=row[1], scale=row[2], built_at=row[3])


def ensure_demo_warehouse(
    path: Path, *, seed: int = DEFAULT_SEED, progress: Progress | None = None
) -> Path:
    """Return `path`, building the full-size demo first when it is missing or out of date."""
    path = Path(path)
    marker = read_marker(path)
    if marker is None or (marker.version, marker.seed, marker.scale) != (DEMO_VERSION, seed, 1.0):
        build_demo_warehouse(path, seed=seed, progress=progress)
    return path


def table_checksums(path: Path) -> dict[str, tuple[int, int]]:
    """(row count, order-independent sum of row hashes) per data table; the marker is left
    out because its built_at differs on every build."""
    with duckdb.connect(str(path), read_only=True) as con:
        return {
            t: tuple(
                con.execute(
                    f"SELECT count(*), coalesce(sum(hash(x)), 0) FROM {SCHEMA}.{t} x"
                ).fetchone()
            )
            for t in DATA_TABLES
        }
