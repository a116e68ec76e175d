"""VITRINA_DUCKDB_MEMORY_LIMIT on a real DuckDB file (issue 38): the warehouse's instance gets
the limit, its operators spill under Vitrina's home (the file's own directory may be
read-only), a query larger than the limit still answers exactly as without it, and a limit
that is not a size is refused at settings time."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from vitrina.config import SettingsError, load_settings
from vitrina.warehouse import Warehouse

SQL = (
    "SELECT md5(i::VARCHAR) AS k, i % 97 AS g, SUM(i) AS s FROM lines "
    "GROUP BY 1, 2 ORDER BY 1 DESC, 2"
)


@pytest.fixture(scope="module")
def lines(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("mem") / "lines.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE lines AS SELECT range AS i FROM range(400000)")
    return path


def _warehouse(path: Path, limit: str | None, temp: Path | None) -> Warehouse:
    return Warehouse(
        f"duckdb:///{path}",
        row_cap=1_000_000,
        result_max_bytes=500_000_000,
        duckdb_memory_limit=limit,
        duckdb_temp_dir=temp,
    )


def test_a_limited_warehouse_spills_under_home_and_answers_the_same(
    lines: Path, tmp_path: Path
) -> None:
    temp = tmp_path / "home" / "duckdb-tmp"
    copy = tmp_path / "copy.duckdb"  # a file's instance (and its limit) is one per process
    shutil.copyfile(lines, copy)
    limited = _warehouse(lines, "48MB", temp)
    free = _warehouse(copy, None, None)
    try:
        conn = limited.backend.conn  # type: ignore[attr-defined]
        limit, directory = conn.execute(
            "SELECT current_setting('memory_limit'), current_setting('temp_directory')"
        ).fetchone()
        assert limit.endswith("MiB") and float(limit.split()[0]) < 48, limit
        assert Path(directory) == temp and temp.is_dir()
        # a finished query's freed memory goes back to the system (decision 180)
        background = conn.execute("SELECT current_setting('allocator_background_threads')")
        assert background.fetchone()[0] is True
        # the hardening still holds after it: no other limit, no files read
        with pytest.raises(duckdb.Error, match="lock"):
            conn.execute("SET memory_limit = '4GB'")
        outside = tmp_path / "outside.csv"  # DuckDB allows its own temp directory, only it
        outside.write_text("a,b\n1,2\n")
        with pytest.raises(duckdb.Error, match="Permission"):
            conn.execute(f"SELECT * FROM read_csv('{outside}')").fetchall()
        got, want = limited.execute(SQL), free.execute(SQL)
        assert len(got.rows) == len(want.rows) == 400_000
        assert list(got.rows[:5]) == list(want.rows[:5])
        assert list(got.rows[-5:]) == list(want.rows[-5:])
    finally:
        limited.close()
        free.close()


def test_the_default_limit_is_the_hardening_one() -> None:
    assert load_settings().duckdb_memory_limit == "2GB"
    assert load_settings(duckdb_memory_limit="512 MiB").duckdb_memory_limit == "512 MiB"


def test_a_limit_that_is_not_a_size_is_refused() -> None:
    with pytest.raises(SettingsError, match="duckdb_memory_limit"):
        load_settings(duckdb_memory_limit="lots")
