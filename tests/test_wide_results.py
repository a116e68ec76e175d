"""A result is read as a stream a batch at a time on the engines inside this process: the
byte budget stops a wide result before it is made whole (DuckDB's relation reader,
`warehouse.columnar.fetch_duckdb`; chDB's blocks of ENGINE_BLOCK_ROWS). On DuckDB, an error
or an interrupt met while the batches are read is the user's error or timeout, and a small
result gives the same Python values DuckDB's own fetch gives (decision 211)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from datetime import date, datetime
from decimal import Decimal

import duckdb
import pytest

from vitrina.warehouse.columnar import ARROW_AFTER, ArrowRows
from vitrina.warehouse.engine import Warehouse, WarehouseError

WIDE = {  # rows of 1 KB of text
    "duckdb:///:memory:": "SELECT repeat('x', 1000) || i AS s, i FROM range({rows}) t(i)",
    "chdb:///:memory:": (
        "SELECT concat(repeat('x', 1000), toString(number)) AS s, number FROM numbers({rows})"
    ),
}

_PEAK = textwrap.dedent(
    """
    import json, sys
    from vitrina.warehouse.engine import Warehouse, WarehouseError

    def hwm():
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024

    wh = Warehouse(sys.argv[1], row_cap=10**9, result_max_bytes=50_000_000)
    wh.execute("SELECT 1")
    base = hwm()
    try:
        wh.execute(sys.argv[2])
        kind = "answered"
    except WarehouseError as exc:
        kind = exc.kind
    print(json.dumps({"kind": kind, "peak_mb": hwm() - base}))
    """
)


def _peak(url: str, rows: int) -> dict:
    sql = WIDE[url].format(rows=rows)
    done = subprocess.run(
        [sys.executable, "-c", _PEAK, url, sql], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
@pytest.mark.parametrize("url", list(WIDE))
def test_a_wide_result_is_refused_before_it_is_made_whole(url: str, request) -> None:
    """2 GB of text against a 50 MB budget: refused with a bounded peak (before: DuckDB's
    Arrow reader of a DB-API cursor copied the whole result first, +2 GB; chDB made blocks
    of 65,409 rows ahead of the reader, +611 MB), not growing with the size of the result."""
    if url.startswith("chdb"):
        request.getfixturevalue("chdb_installed")
    small, large = _peak(url, 200_000), _peak(url, 2_000_000)
    assert small["kind"] == large["kind"] == "too_large"
    assert large["peak_mb"] < 300, large
    assert large["peak_mb"] < small["peak_mb"] + 100, (small, large)


def test_an_error_met_while_the_batches_are_read_is_the_queries_error() -> None:
    wh = Warehouse("duckdb:///:memory:", row_cap=10**7, result_max_bytes=10**10)
    sql = (
        "SELECT CASE WHEN i > 500000 THEN error('boom at ' || i) ELSE i END AS n "
        "FROM range(1000000) t(i)"
    )
    with pytest.raises(WarehouseError) as caught:
        wh.execute(sql)
    assert caught.value.kind == "execute" and "boom at" in str(caught.value)
    assert wh.execute("SELECT 42 AS n").rows == [(42,)]  # the connection goes on


def test_a_stream_stopped_by_the_timeout_is_a_timeout() -> None:
    """Rows that come slowly (one in 100,000 of a scan of 10^11): the watchdog interrupts
    the query while its batches are read or before the first one; either way a timeout."""
    wh = Warehouse("duckdb:///:memory:", timeout_s=0.5, row_cap=10**7, result_max_bytes=10**10)
    with pytest.raises(WarehouseError) as caught:
        wh.execute("SELECT i FROM range(100000000000) t(i) WHERE hash(i) % 100000 = 0")
    assert caught.value.kind == "timeout"
    assert wh.execute("SELECT 7 AS n").rows == [(7,)]


PLAIN = """SELECT * FROM (VALUES
  (true, 1::TINYINT, -2::SMALLINT, 3::INTEGER, -4::BIGINT, 5::UTINYINT, 6::USMALLINT,
   7::UINTEGER, 18446744073709551615::UBIGINT, 1.5::FLOAT, -0.1::DOUBLE, 'текст',
   DATE '1900-02-28', TIMESTAMP '2024-02-29 23:59:59.123456',
   12345678901234567890.1234567890::DECIMAL(38, 10), -0.01::DECIMAL(4, 2)),
  (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'nan'::FLOAT, 'inf'::DOUBLE, '',
   NULL, NULL, NULL, NULL)
) t(b, ti, si, i, bi, ut, us, ui, ub, f, d, s, day, ts, big, small)"""


def test_a_small_result_gives_the_values_duckdbs_own_fetch_gives() -> None:
    expected = duckdb.connect().execute(PLAIN).fetchall()
    got = Warehouse("duckdb:///:memory:").execute(PLAIN)
    assert type(got.rows) is list and got.arrow is None
    assert [repr(row) for row in got.rows] == [repr(row) for row in expected]
    assert got.rows[0][12] == date(1900, 2, 28)
    assert got.rows[0][13] == datetime(2024, 2, 29, 23, 59, 59, 123456)
    assert got.rows[0][14] == Decimal("12345678901234567890.1234567890")


def test_a_result_of_another_type_stays_the_cursors_tuples_and_bounded() -> None:
    """An interval, a list: the cursor's values, fetched under the same budget."""
    wh = Warehouse("duckdb:///:memory:", row_cap=ARROW_AFTER * 2, result_max_bytes=10**9)
    sql = "SELECT INTERVAL 1 DAY * i AS gap, [i, i + 1] AS pair FROM range({rows}) t(i)"
    got = wh.execute(sql.format(rows=ARROW_AFTER + 10))
    assert type(got.rows) is list and not isinstance(got.rows, ArrowRows)
    assert got.rows[3] == duckdb.connect().execute(sql.format(rows=4)).fetchall()[3]
    tight = Warehouse("duckdb:///:memory:", row_cap=10**8, result_max_bytes=1_000_000)
    with pytest.raises(WarehouseError) as caught:
        tight.execute("SELECT [repeat('x', 1000)] AS l FROM range(10000000)")
    assert caught.value.kind == "too_large"


def test_a_statement_without_rows_and_the_compile_check_still_work() -> None:
    wh = Warehouse("duckdb:///:memory:")
    wh.explain("SELECT 1 AS a")
    with pytest.raises(WarehouseError) as caught:
        wh.explain("SELECT nope FROM range(3)")
    assert caught.value.kind == "compile" and "nope" in str(caught.value)
    empty = wh.execute("SELECT 1 AS a WHERE false")
    assert empty.columns == ["a"] and list(empty.rows) == []
