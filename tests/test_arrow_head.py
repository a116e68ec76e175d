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
