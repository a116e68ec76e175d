"""What the summary, the chart and the result checks read of a columnar result, a column at
a time (`vitrina.warehouse.columnar`: a large DuckDB result kept as Arrow).

Each helper gives what the row-by-row code it stands beside gives for the same rows: the
same counts, the same first row of an extreme, the same leaders (ties: the earlier row), the
same exact totals. A column Arrow cannot answer that way (a float column: the row code sums
each value's decimal reading; a text column that may hold numbers) is read as Python values
a batch at a time (`values`), never as a million tuples.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from decimal import Decimal
from typing import Any

from vitrina.warehouse.columnar import release_arrow_pool

BATCH = 65_536


def values(table: Any, index: int) -> Iterator[Any]:
    """One column's Python values, a batch at a time."""
    column = table.column(index)
    for chunk in column.chunks:
        for start in range(0, len(chunk), BATCH):
            yield from chunk.slice(start, BATCH).to_pylist()


def exact_numbers(table: Any, index: int) -> bool:
    """Whether the column is integers or decimals (Arrow's sums and extremes are exact)."""
    import pyarrow as pa

    kind = table.column(index).type
    return bool(pa.types.is_integer(kind) or pa.types.is_decimal(kind))


def non_null(table: Any, index: int) -> int:
    column = table.column(index)
    return len(column) - column.null_count


def distinct(table: Any, indexes: Sequence[int]) -> int:
    """Distinct value combinations of some columns (NULL counted as a value, as a set does).
    One column: Arrow's count; several: by sorting integer codes (`combined_codes`),
    not by Arrow's hash kernels, which took 100 MB for a million (date, customer) pairs."""
    import numpy as np

    if not indexes:
        return 1 if table.num_rows else 0
    if len(indexes) == 1:
        # Arrow's count keeps only its hash table; a dictionary encoding also made a code per
        # row (+53 MB against +39 for 121,656 names in a million rows; decision 210)
        import pyarrow.compute as pc

        count = int(pc.count_distinct(table.column(indexes[0]), mode="all").as_py())
        release_arrow_pool()
        return count
    codes = combined_codes(table, indexes)
    if codes is None:
        names = [f"c{i}" for i in range(len(indexes))]
        keys = table.select(list(indexes)).rename_columns(names)
        return int(keys.group_by(names, use_threads=False).aggregate([]).num_rows)
    ordered = codes  # our own array, sorted in place
    ordered.sort()
    return int(np.count_nonzero(ordered[1:] != ordered[:-1]) + 1) if len(ordered) else 0


def valid_mask(array: Any) -> Any:
    """An Arrow array's validity as NumPy booleans, read from its bitmap (no
    `pyarrow.compute` call with a Python literal: those make a `pa.scalar`, which imports
    pandas, 33 MB; decision 180)."""
    import numpy as np

    n = len(array)
    bitmap = array.buffers()[0]
    if array.null_count == 0 or bitmap is None:
        return np.ones(n, dtype=bool)
    bits = np.unpackbits(np.frombuffer(bitmap, dtype=np.uint8), bitorder="little")
    return bits[array.offset : array.offset + n].astype(bool)


def codes_of(column: Any) -> tuple[Any, int] | None:
    """A column's codes (int64 NumPy, each value its index among the column's distinct
    values in order of first appearance, NULL the last code) and how many codes there are;
    None when Arrow cannot hash the type. By `unique` and `index_in`: a dictionary encoding
    made one dictionary per chunk and unified them, +54 MB for 121,656 names in a million
    rows where this takes about half (decision 210)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        distinct_values = pc.drop_null(pc.unique(column))
        positions = pc.index_in(column, value_set=distinct_values)
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    finally:
        release_arrow_pool()
    size = len(distinct_values) + 1
    parts = []
    for chunk in positions.chunks:  # bounded: the column's chunks
        raw = np.frombuffer(chunk.buffers()[1], dtype="<i4")
        codes = raw[chunk.offset : chunk.offset + len(chunk)].astype(np.int64)
        codes[~valid_mask(chunk)] = size - 1
        parts.append(codes)
    return (np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)), size


def combined_codes(table: Any, indexes: Sequence[int]) -> Any | None:
    """One int64 per row (a NumPy array) that is equal exactly where the rows' values of
    the columns are (each column's code, `codes_of`, mixed in radix by the columns' code
    counts). None when a column cannot be hashed or the codes could overflow 63 bits (then
    group by values)."""
    codes = None
    span = 1
    for i in indexes:
        coded = codes_of(table.column(i))
        if coded is None:
            return None
        column_codes, size = coded
        span *= size
        if span >= 2**62:
            return None
        if codes is None:
            codes = column_codes
        else:  # in place: no third array of a million codes
            codes *= size
            codes += column_codes
    return codes


def as_decimal(value: Any) -> Decimal | None:
    """An exact column's value as a Decimal (ints and decimals only; see `exact_numbers`)."""
    if value is None:
        return None
    return value if isinstance(value, Decimal) else Decimal(value)


def scan_exact(table: Any, index: int, top: int) -> dict[str, Any]:
    """Counts, extremes (their first rows), the `top` leaders (largest first, ties: the
    earlier row) and the total of an exact column."""
    import pyarrow.compute as pc

    column = table.column(index)
    count = len(column) - column.null_count
    out: dict[str, Any] = {"count": count, "nulls": column.null_count, "total": Decimal(0)}
    if not count:
        return {**out, "min": None, "max": None, "min_row": None, "max_row": None, "top": []}
    extremes = pc.min_max(column)
    low, high = extremes["min"], extremes["max"]
    out["total"] = as_decimal(pc.sum(column).as_py()) or Decimal(0)
    out["min"], out["max"] = as_decimal(low.as_py()), as_decimal(high.as_py())
    out["min_row"] = int(pc.index(column, low).as_py())
    out["max_row"] = int(pc.index(column, high).as_py())
    out["top"] = leaders(column, top)
    return out


def leaders(column: Any, top: int) -> list[int]:
    """Rows of the `top` largest values, largest first, ties in row order."""
    import pyarrow.compute as pc

    picked = pc.select_k_unstable(column, k=top, sort_keys=[("dummy", "descending")])
    if not len(picked):
        return []
    floor = column.take(picked)
    smallest = pc.min(floor)
    # NULL compares as NULL, which indices_nonzero skips (no fill_null(False): a Python
    # literal makes a pa.scalar, which imports pandas; decision 180)
    candidates = pc.indices_nonzero(pc.greater_equal(column, smallest))
    found = column.take(candidates).to_pylist()
    rows = candidates.to_pylist()
    ranked = sorted(zip(found, rows, strict=True), key=lambda p: (-p[0], p[1]))
    return [r for _, r in ranked[:top]]


def sorted_rows(table: Any, indexes: Sequence[int]) -> list[int] | None:
    """The rows in the order of some columns (NULLs last) when those columns' values are
    unique on every row (a series), else None."""
    if distinct(table, indexes) != table.num_rows:
        return None
    names = [f"c{i}" for i in range(len(indexes))]
    keys = table.select(list(indexes)).rename_columns(names)
    import pyarrow.compute as pc

    order = pc.sort_indices(keys, sort_keys=[(n, "ascending", "at_end") for n in names])
    return [int(i) for i in order.to_pylist()]
