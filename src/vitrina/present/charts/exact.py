"""Exact sums of integer and decimal columns per group, by NumPy: the chart's grouping of a
columnar result (`charts.columnar`) without Arrow's `Table.group_by`.

`Table.group_by` runs on Acero, and importing `pyarrow.acero` imports `pyarrow.dataset` and
pandas: 43 MB of a process whose million-row turn should stay under 300 MB (issue 38). The
groups here are the rows' value codes (`present.columnar.combined_codes`, as the
distinct counts are made), numbered by `np.unique`; the sums are exact at any size: each
value is split into four 32-bit limbs of its 128-bit integer (a decimal's unscaled value),
the limbs summed per group in int64 (a 32-bit limb times 2**31 rows cannot overflow) and
carried back into one integer only for the values that leave as Python numbers. Values are
compared (ranked) in the limbs, carried, so a million groups never become Python objects.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

BATCH = 65_536  # rows turned into limbs at a time
LIMB = 32
MASK = (1 << LIMB) - 1


@dataclass
class Groups:
    """Each row's group (dense ids 0..count-1) and each group's first row."""

    ids: Any  # int64 per row
    first_row: Any  # int64 per group
    count: int


@dataclass
class Exact:
    """Integers as four int64 limb arrays (least significant first; after `carried`, the
    three low limbs in [0, 2**32) and the top one signed), whether each is set (not NULL),
    and the decimal scale they are read with."""

    limbs: Any  # int64, shape (4, n)
    valid: Any  # bool, n
    scale: int

    def __len__(self) -> int:
        return int(self.valid.shape[0])

    def take(self, index: Any) -> Exact:
        return Exact(self.limbs[:, index], self.valid[index], self.scale)


def groups(table: Any, indexes: Sequence[int]) -> Groups | None:
    """The rows grouped by the values of some columns (NULL a value of its own), or None
    when a column cannot be hashed (then the row code groups them)."""
    from vitrina.present.columnar import combined_codes

    if len(indexes) == 1:
        coded = column_codes(table, indexes[0])
        return None if coded is None else column_groups(*coded)
    codes = combined_codes(table, indexes)
    return None if codes is None else groups_of(codes)


def groups_of(codes: Any) -> Groups:
    """Rows grouped by an int64 code each (equal codes, one group)."""
    import numpy as np

    _unique, first, ids = np.unique(codes, return_index=True, return_inverse=True)
    return Groups(ids=ids.astype(np.int64), first_row=first.astype(np.int64), count=len(first))


def column_codes(table: Any, index: int) -> tuple[Any, int] | None:
    """One column's value codes (int64 NumPy, NULL the last) and how many there are."""
    from vitrina.present.columnar import codes_of

    return codes_of(table.column(index))


def column_groups(codes: Any, size: int) -> Groups:
    """Rows grouped by one column's codes: the codes are the groups already (every code but
    NULL's has a row), so no sort; each group's first row by `np.minimum.at`."""
    import numpy as np

    n = len(codes)
    first = np.full(size, n, dtype=np.int64)
    np.minimum.at(first, codes, np.arange(n, dtype=np.int64))
    if size and first[-1] == n:  # no NULL: its code has no row
        first = first[:-1]
    return Groups(ids=codes, first_row=first, count=len(first))


def _chunk_limbs(chunk: Any) -> tuple[Any, Any]:
    """One Arrow chunk (integers or decimal128) as (4, n) int64 limbs and its validity,
    read from its buffers (no conversion: `to_numpy` of a column with NULLs goes through
    pandas)."""
    import numpy as np
    import pyarrow as pa

    from vitrina.present.columnar import valid_mask

    n = len(chunk)
    valid = valid_mask(chunk)
    limbs = np.zeros((4, n), dtype=np.int64)
    kind = chunk.type
    if pa.types.is_decimal(kind):
        data = chunk.buffers()[1]
        words = np.frombuffer(data, dtype="<u8")[2 * chunk.offset : 2 * (chunk.offset + n)]
        low, high = words[0::2], words[1::2].view(np.int64)
        limbs[0], limbs[1] = low & MASK, low >> LIMB
        limbs[2], limbs[3] = high & MASK, high >> LIMB
    else:
        width = kind.bit_width // 8
        signed = not pa.types.is_unsigned_integer(kind)
        raw = np.frombuffer(chunk.buffers()[1], dtype=f"<{'i' if signed else 'u'}{width}")
        raw = raw[chunk.offset : chunk.offset + n]  # NULL slots: zeroed below
        if signed:
            wide = raw.astype(np.int64)
            low, high = wide.view(np.uint64), wide >> 63  # the sign carried up
        else:
            low, high = raw.astype(np.uint64), np.zeros(n, dtype=np.int64)
        limbs[0], limbs[1] = low & MASK, low >> LIMB
        limbs[2], limbs[3] = high & MASK, high >> LIMB
    limbs[:, ~valid] = 0
    return limbs, valid


def _scale(column: Any) -> int:
    import pyarrow as pa

    return int(column.type.scale) if pa.types.is_decimal(column.type) else 0


def sums(column: Any, grouped: Groups, *, min_count: int = 1) -> Exact:
    """The column summed per group, carried; a group with fewer than `min_count` values is
    NULL (Arrow's `ScalarAggregateOptions(min_count=...)`)."""
    import numpy as np

    total = np.zeros((4, grouped.count), dtype=np.int64)
    counts = np.zeros(grouped.count, dtype=np.int64)
    start = 0
    for chunk in column.chunks:  # bounded: the column's chunks, BATCH rows at a time
        for offset in range(0, len(chunk), BATCH):
            piece = chunk.slice(offset, BATCH)
            limbs, valid = _chunk_limbs(piece)
            ids = grouped.ids[start : start + len(piece)]
            start += len(piece)
            _add_grouped(total, counts, limbs, valid.astype(np.int64), ids)
    summed = Exact(carried(total), counts >= min_count, _scale(column))
    summed.limbs[:, ~summed.valid] = 0
    return summed


def sum_points(points: Exact, ids: Any, count: int, *, min_count: int = 1) -> Exact:
    """Values already per point (an `Exact`) summed per group of points (`ids`)."""
    import numpy as np

    total = np.zeros((4, count), dtype=np.int64)
    counts = np.zeros(count, dtype=np.int64)
    limbs = np.where(points.valid, points.limbs, 0)
    valid = points.valid.astype(np.int64)
    for start in range(0, len(points), BATCH):  # bounded: BATCH points a call (exact sums)
        part = slice(start, start + BATCH)
        _add_grouped(total, counts, limbs[:, part], valid[part], ids[part])
    summed = Exact(carried(total), counts >= min_count, points.scale)
    summed.limbs[:, ~summed.valid] = 0
    return summed


def _add_grouped(total: Any, counts: Any, limbs: Any, valid: Any, ids: Any) -> None:
    """Add each row's limbs and validity to its group's, by `np.bincount` of 16-bit halves
    of the limbs: its float64 sums are exact below 2**53, and a call adds at most
    BATCH (2**16) halves under 2**16 each."""
    import numpy as np

    if not len(ids):
        return
    size = total.shape[1]
    for k in range(4):
        low = np.bincount(ids, weights=limbs[k] & 0xFFFF, minlength=size)
        high = np.bincount(ids, weights=limbs[k] >> 16, minlength=size)  # the top: signed
        total[k] += low.astype(np.int64) + (high.astype(np.int64) << 16)
    counts += np.bincount(ids, weights=valid, minlength=size).astype(np.int64)


def carried(limbs: Any) -> Any:
    """The limbs with their carries moved up: three low limbs in [0, 2**32), the top signed
    (the same integer; comparisons then go limb by limb from the top)."""
    out = limbs.copy()
    for k in range(3):
        carry = out[k] >> LIMB  # floor: a negative limb borrows from the next
        out[k] &= MASK
        out[k + 1] += carry
    return out


def values_at(column: Any, rows: Any) -> Exact:
    """The column's values at some rows (a point that keeps its first row's value)."""

    picked = column.take(indices(rows))
    limbs, valid = _chunk_limbs(picked.combine_chunks())
    return Exact(limbs, valid, _scale(column))


def absolute(values: Exact) -> Exact:
    """|value| of each (carried limbs in, carried limbs out)."""
    import numpy as np

    negative = values.limbs[3] < 0
    flipped = np.where(negative, -values.limbs, values.limbs)
    return Exact(carried(flipped), values.valid, values.scale)


def descending(values: Exact, *ties: Any) -> Any:
    """Indexes of `values` largest first (NULL as 0 unless excluded before), then by
    `ties` ascending (NumPy arrays, the first tie deciding first)."""
    import numpy as np

    limbs = values.limbs
    keys = [*reversed(ties), -limbs[0], -limbs[1], -limbs[2], -limbs[3]]
    return np.lexsort(keys)


def decimal(values: Exact, i: int) -> Decimal | None:
    """One value as a Decimal (None when NULL), the column's scale kept."""
    if not values.valid[i]:
        return None
    l0, l1, l2, l3 = (int(values.limbs[k, i]) for k in range(4))
    number = l0 + (l1 << LIMB) + (l2 << (2 * LIMB)) + (l3 << (3 * LIMB))
    return Decimal(f"{number}E-{values.scale}") if values.scale else Decimal(number)


def np_range(count: int) -> Any:
    """0..count-1 as int64 (each group its own point)."""
    import numpy as np

    return np.arange(count, dtype=np.int64)


def indices(rows: Any) -> Any:
    """NumPy row numbers as an Arrow int64 array for `take`, made from the buffer
    (`pa.array` of a NumPy array checks for pandas types and imports pandas)."""
    import numpy as np
    import pyarrow as pa

    data = np.ascontiguousarray(rows, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(data), [None, pa.py_buffer(data)])


def as_numpy(array: Any) -> Any:
    """A NULL-free Arrow integer array (`sort_indices`' output) as int64 NumPy, from its
    buffer (`np.asarray` of an Arrow array goes through pandas)."""
    import numpy as np
    import pyarrow as pa

    width = array.type.bit_width // 8
    sign = "u" if pa.types.is_unsigned_integer(array.type) else "i"
    raw = np.frombuffer(array.buffers()[1], dtype=f"<{sign}{width}")
    return raw[array.offset : array.offset + len(array)].astype(np.int64)
