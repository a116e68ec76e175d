"""The first record batch of a columnar result made without pandas (issue 38): each column
type DuckDB gives for `PLAIN_TYPES` is built from its buffers equal to what `pyarrow.array`
makes of the same values (NULLs, negatives, non-ASCII text, the widest decimal), and a real
columnar fetch in a fresh process never imports pandas."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pytest

from vitrina.warehouse.arrow_head import column_array

ROOT = Path(__file__).resolve().parents[1]

CASES = [
    (pa.bool_(), [True, None, False, True, True, False, True, True, False, None]),
    (pa.int8(), [1, -128, None, 127]),
    (pa.int16(), [-32768, None, 7]),
    (pa.int32(), [2**31 - 1, None, -5]),
    (pa.int64(), [2**63 - 1, -(2**63), None]),
    (pa.uint8(), [255, None, 0]),
    (pa.uint16(), [65535, 3]),
    (pa.uint32(), [2**32 - 1, None]),
    (pa.uint64(), [2**64 - 1, None, 1]),
    (pa.float32(), [1.5, None, -0.25]),
    (pa.float64(), [1e300, None, float("inf"), -2.5]),
    (pa.string(), ["Клиент №1", None, "", "plain"]),
    (pa.date32(), [date(1992, 1, 2), None, date(1969, 12, 31), date(9999, 12, 31)]),
    (pa.timestamp("us"), [datetime(2020, 1, 1, 1, 2, 3, 500000), None, datetime(1900, 1, 1)]),
    (pa.decimal128(12, 2), [Decimal("1234.50"), Decimal("-0.01"), None, Decimal("0.00")]),
    (pa.decimal128(4, 1), [Decimal("-999.9"), Decimal("1.5")]),
    (pa.decimal128(38, 5), [Decimal("123456789012345678901234567890123.12345"), None]),
]


@pytest.mark.parametrize(("kind", "values"), CASES, ids=[str(c[0]) for c in CASES])
def test_a_column_is_what_pyarrow_makes_of_it(kind: pa.DataType, values: list) -> None:
    made = column_array(values, kind)
    made.validate(full=True)
    assert made.equals(pa.array(values, type=kind))
    assert made.to_pylist() == values


def test_a_type_not_written_here_is_pyarrow_s() -> None:
    kind = pa.timestamp("us", tz="UTC")
    values = [datetime(2020, 1, 1), None]
    assert column_array(values, kind).equals(pa.array(values, type=kind))


def test_a_columnar_fetch_does_not_import_pandas(tmp_path: Path) -> None:
    script = """
import sys
from vitrina.warehouse import Warehouse
wh = Warehouse("duckdb:///:memory:", row_cap=100_000)
sql = ("SELECT i, 'c' || i AS name, DATE '2000-01-01' + i::INTEGER AS d, "
       "(i / 100)::DECIMAL(12, 2) AS amount FROM range(30000) t(i) ORDER BY i")
result = wh.execute(sql)
assert result.arrow is not None and len(result.rows) == 30000, result
assert result.rows[9999:10001][1][1] == "c10000", result.rows[9999:10001]
print("pandas" in sys.modules)
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.strip() == "False", done.stdout + done.stderr


def test_a_small_result_and_its_downloads_do_not_import_pandas(tmp_path: Path) -> None:
    """A result of tuples written as Parquet and CSV (formula text, NULLs, every plain kind)
    and a columnar one as CSV: pandas stays out of the process (decision 210)."""
    script = f"""
import sys
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from vitrina.present.stored import write_csv, write_parquet
from vitrina.warehouse import Warehouse
from vitrina.warehouse.result import QueryResult
out = Path({str(tmp_path)!r})
rows = [["=1+1", True, 3, 1.5, Decimal("2.50"), date(2024, 1, 2), datetime(2024, 1, 2, 3)],
        [None] * 7]
small = QueryResult(columns=list("abcdefg"), rows=rows)
write_parquet(small, out / "small.parquet")
write_csv(small, out / "small.csv")
write_csv(out / "small.parquet", out / "again.csv")
wh = Warehouse("duckdb:///:memory:", row_cap=100_000)
large = wh.execute("SELECT '+' || i AS name FROM range(30000) t(i)")
assert large.arrow is not None
write_csv(large, out / "large.csv")
print("pandas" in sys.modules)
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.strip() == "False", done.stdout + done.stderr
    assert (tmp_path / "small.csv").read_text().splitlines()[1].startswith('"\'=1+1",true,3,')
    assert (tmp_path / "large.csv").read_text().splitlines()[1] == '"\'+0"'


def test_vitrina_sets_duckdb_allocator_to_return_memory_unless_told_otherwise() -> None:
    script = "import os, vitrina; print(os.environ['DUCKDB_JE_MALLOC_CONF'])"
    base = {k: v for k, v in os.environ.items() if k != "DUCKDB_JE_MALLOC_CONF"}
    for env, expected in (
        (base, "dirty_decay_ms:0,muzzy_decay_ms:0"),
        ({**base, "DUCKDB_JE_MALLOC_CONF": "narenas:2"}, "narenas:2"),
    ):
        done = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            env={**env, "PYTHONPATH": str(ROOT / "src")},
            check=True,
        )
        assert done.stdout.strip() == expected
