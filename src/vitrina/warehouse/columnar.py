"""A large DuckDB result kept as Arrow columns, read as rows only where rows are asked for.

A million rows as Python tuples of a text, a date and a decimal take about 280 MB and seconds
of CPU to make (issue 38); as Arrow columns they take about 40 MB and a fraction of a second.
A DuckDB result is fetched as Python tuples as before up to ARROW_AFTER rows (every result
of that size is exactly what it was); past it, when every column has a type whose Arrow
value reads back as the Python value DuckDB gives (`PLAIN_TYPES`), the rest arrives as Arrow
record batches and the result's `rows` is an :class:`ArrowRows`: a read-only sequence of
tuples over the table. Every consumer of `QueryResult.rows` keeps working (slices, indexes,
iteration a batch at a time); the consumers that read every row (the summary, the chart data,
the chart chooser, the result checks, the stored Parquet file) read the table's columns
instead (`arrow_table`). A column of another type (an interval, a list, a UUID, a HUGEINT,
a timestamp with a time zone) keeps the whole result as tuples, as before.

The row cap and the byte budget are kept as `vitrina.warehouse.budget.fetch_bounded` keeps
them: one row past the cap tells a cut result, and a batch is counted (the same estimate:
text by its length, numbers 8 bytes, decimals and dates 16) as soon as it arrives.
"""

from __future__ import annotations

import contextlib
import warnings
from array import array
from collections.abc import Callable, Iterator, Sequence
from typing import Any, overload

from vitrina.warehouse.arrow_head import column_array
from vitrina.warehouse.budget import (
    BATCH_ROWS,
    FIXED_BYTES,
    WIDE_BYTES,
    ResultTooLarge,
    batch_bytes,
)

ARROW_AFTER = 10_000  # rows fetched as tuples before a result goes columnar
ARROW_BATCH = 65_536  # rows per Arrow record batch (read, and turned into tuples, at a time)
# DuckDB types whose Arrow values read back (`as_py`) as the Python values DuckDB's own fetch
# gives; DECIMAL(p,s) too, except HUGEINT's DECIMAL(38,0) shape (DuckDB gives an int)
PLAIN_TYPES = frozenset(
    {
        "BOOLEAN",
        "TINYINT",
        "SMALLINT",
        "INTEGER",
        "BIGINT",
        "UTINYINT",
        "USMALLINT",
        "UINTEGER",
        "UBIGINT",
        "FLOAT",
        "DOUBLE",
        "VARCHAR",
        "DATE",
        "TIMESTAMP",
    }
)


def plain_types(type_names: Sequence[str]) -> bool:
    """Whether every column may go columnar (see PLAIN_TYPES)."""
    return all(name in PLAIN_TYPES or name.startswith("DECIMAL(") for name in type_names)


class ArrowRows(Sequence[tuple[Any, ...]]):
    """The rows of an Arrow table as a sequence of tuples, made a slice or a batch at a time
    (never all at once): `len`, indexes, slices (a list, like a list's slice) and iteration."""

    __slots__ = ("table",)

    def __init__(self, table: Any) -> None:
        self.table = table

    def __len__(self) -> int:
        return int(self.table.num_rows)

    @overload
    def __getitem__(self, index: int) -> tuple[Any, ...]: ...
    @overload
    def __getitem__(self, index: slice) -> list[tuple[Any, ...]]: ...
    def __getitem__(self, index: int | slice) -> tuple[Any, ...] | list[tuple[Any, ...]]:
        n = len(self)
        if isinstance(index, slice):
            start, stop, step = index.indices(n)
            if step != 1:
                return list(self)[index]
            return _tuples(self.table.slice(start, max(stop - start, 0)))
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("row index out of range")
        return tuple(column[index].as_py() for column in self.table.columns)

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        for batch in self.table.to_batches(max_chunksize=ARROW_BATCH):
            yield from zip(*(column.to_pylist() for column in batch.columns), strict=True)

    def take(self, indexes: Sequence[int]) -> list[tuple[Any, ...]]:
        """The rows at `indexes`, in that order (one Arrow take, not a call per row)."""
        return _tuples(self.table.take(_indices(indexes)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ArrowRows):
            return bool(self.table.equals(other.table))
        if isinstance(other, Sequence):
            return len(other) == len(self) and all(
                tuple(a) == b for a, b in zip(other, self, strict=True)
            )
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable-like: a sequence of rows

    def __repr__(self) -> str:
        return f"ArrowRows({len(self)} rows, {self.table.num_columns} columns)"


def _indices(indexes: Sequence[int]) -> Any:
    """Row numbers as an Arrow int64 array, made from a buffer: `pa.array` (which `take`
    of a list calls) checks for pandas types and imports pandas, 33 MB (decision 180)."""
    import pyarrow as pa

    data = array("q", indexes)
    return pa.Array.from_buffers(pa.int64(), len(data), [None, pa.py_buffer(data)])


def _tuples(table: Any) -> list[tuple[Any, ...]]:
    return list(zip(*(column.to_pylist() for column in table.columns), strict=True))


def arrow_table(rows: Sequence[Any]) -> Any | None:
    """The Arrow table behind `rows` when they are columnar, else None."""
    return rows.table if isinstance(rows, ArrowRows) else None


def arrow_bytes(batch: Any) -> int:
    """The budget's estimate of a record batch (as `budget.batch_bytes` counts tuples):
    text by its length, numbers and booleans 8 bytes, decimals, dates and times 16, NULL 8."""
    import pyarrow as pa
    import pyarrow.compute as pc

    total = 0
    for column in batch.columns:
        nulls = column.null_count
        kind = column.type
        if pa.types.is_string(kind) or pa.types.is_large_string(kind):
            total += int(pc.sum(pc.utf8_length(column)).as_py() or 0) + FIXED_BYTES * nulls
        elif pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind):
            total += FIXED_BYTES * len(column)
        else:  # decimals, dates, timestamps
            total += WIDE_BYTES * (len(column) - nulls) + FIXED_BYTES * nulls
    return total


def fetch_columnar(
    cursor: Any,
    row_cap: int,
    max_bytes: int,
    fetchmany: Callable[[int], Sequence[Sequence[Any]]] | None = None,
) -> tuple[Sequence[tuple[Any, ...]], bool]:
    """Up to ``row_cap`` rows of an executed DuckDB cursor and whether more were there: as
    tuples up to ARROW_AFTER rows, then as Arrow batches when `plain_types` allows it (see
    the module's text); the byte budget as `fetch_bounded` keeps it. Bounded: every pass
    reads at least one row or ends, and at most ``row_cap + 1`` rows are read."""
    fetch = fetchmany or cursor.fetchmany
    rows: list[tuple[Any, ...]] = []
    used = 0
    limit = row_cap + 1 if row_cap < ARROW_AFTER else ARROW_AFTER
    while len(rows) < limit:
        asked = min(BATCH_ROWS, limit - len(rows))
        batch = fetch(asked)
        used += batch_bytes(batch)
        if used > max_bytes:
            raise ResultTooLarge(max_bytes, used)
        rows.extend(map(tuple, batch))
        if len(batch) < asked:  # the end
            return rows[:row_cap], len(rows) > row_cap
    if len(rows) > row_cap:
        return rows[:row_cap], True
    types = [str(d[1]) for d in cursor.description or []]
    if not plain_types(types):  # the rest as tuples too, exactly as before
        from vitrina.warehouse.budget import fetch_bounded

        try:
            rest, more = fetch_bounded(fetch, row_cap - len(rows), max_bytes - used)
        except ResultTooLarge as exc:  # said with the whole budget and every byte read
            raise ResultTooLarge(max_bytes, used + exc.read) from None
        return rows + rest, more
    return _arrow_rest(cursor, rows, row_cap, max_bytes, used)


def _arrow_rest(
    cursor: Any, head: list[tuple[Any, ...]], row_cap: int, max_bytes: int, used: int
) -> tuple[Sequence[tuple[Any, ...]], bool]:
    """The head's tuples (`used` bytes of the budget) and the rest of the result as Arrow
    batches, one table."""
    import pyarrow as pa

    with warnings.catch_warnings():  # "an extra copy of the rows": a batch at a time here
        warnings.simplefilter("ignore")
        reader = cursor.to_arrow_reader(ARROW_BATCH)
    schema = reader.schema
    first = pa.RecordBatch.from_arrays(
        [column_array([row[i] for row in head], field.type) for i, field in enumerate(schema)],
        schema=schema,
    )
    batches = [first]
    count = len(head)
    for batch in reader:  # bounded: the reader ends, or the cap or the budget stops it
        used += arrow_bytes(batch)
        if used > max_bytes:
            raise ResultTooLarge(max_bytes, used)
        batches.append(batch)
        count += batch.num_rows
        if count > row_cap:
            break
    table = pa.Table.from_batches(batches, schema=schema)
    if count > row_cap:
        return ArrowRows(table.slice(0, row_cap)), True
    return ArrowRows(table), False


def release_arrow_pool() -> None:
    """Arrow's freed memory back to the system: its allocator keeps freed pages for reuse, and
    a large turn's next step grew on top of what a hash kernel had freed (decision 210).
    Only free pages are given; nothing to do when pyarrow was never loaded."""
    import sys

    pa = sys.modules.get("pyarrow")
    if pa is not None:
        pa.default_memory_pool().release_unused()


def release_memory() -> None:
    """Freed memory back to the system, once a large result is dropped (the end of its
    turn): Arrow's pool keeps freed pages for reuse and glibc's malloc keeps a freed heap's
    top; a process that answers a million-row turn then held ~50 MB more into the next
    one (issue 38, decision 180). Both calls only return what is already free."""
    import ctypes

    release_arrow_pool()
    with contextlib.suppress(OSError, AttributeError, TypeError):  # not glibc: nothing to do
        ctypes.CDLL(None).malloc_trim(0)
