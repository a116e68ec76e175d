"""A large DuckDB result kept as Arrow columns, read as rows only where rows are asked for.

A million rows as Python tuples of a text, a date and a decimal take about 280 MB and seconds
of CPU to make (issue 38); as Arrow columns they take about 40 MB and a fraction of a second.
When every column of a DuckDB result has a type whose Arrow value reads back as the Python
value DuckDB gives (`PLAIN_TYPES`), the result is read as a stream of Arrow record batches
of a relation (`fetch_duckdb`); up to ARROW_AFTER rows it is handed on as tuples (every
result of that size is exactly what it was), past it the result's `rows` is an
:class:`ArrowRows`: a read-only sequence of tuples over the table. Every consumer of
`QueryResult.rows` keeps working (slices, indexes, iteration a batch at a time); the
consumers that read every row (the summary, the chart data, the chart chooser, the result
checks, the stored Parquet file) read the table's columns instead (`arrow_table`). A column
of another type (an interval, a list, a UUID, a HUGEINT, a timestamp with a time zone)
keeps the whole result as the cursor's tuples, as before.

Not a DB-API cursor's Arrow reader: DuckDB makes it by copying the whole rest of the result
first, past the memory limit and before a batch could be counted (a 3 GB result held for a
50 MB budget; decision 211). A relation's reader makes a batch when it is read.

The row cap and the byte budget are kept as `vitrina.warehouse.budget.fetch_bounded` keeps
them: one row past the cap tells a cut result, and a batch is counted (the same estimate:
text by its length, numbers 8 bytes, decimals and dates 16) as soon as it arrives.
"""

from __future__ import annotations

import contextlib
from array import array
from collections.abc import Iterator, Sequence
from typing import Any, overload

from vitrina.warehouse.budget import FIXED_BYTES, WIDE_BYTES, ResultTooLarge, fetch_bounded

ARROW_AFTER = 10_000  # a result of more rows stays columnar; up to it, tuples
ARROW_BATCH = 2_048  # rows per record batch (a DuckDB vector): the most read past the budget
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


class StreamError(Exception):
    """DuckDB stopped a result while its Arrow reader was being read (an error raised by a
    row, an interrupt): the reader says so as an OSError carrying DuckDB's message."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.interrupted = message.startswith("INTERRUPT")


def fetch_duckdb(
    cursor: Any, sql: str, row_cap: int, max_bytes: int
) -> tuple[list[str], Sequence[tuple[Any, ...]], bool]:
    """The columns, up to ``row_cap`` rows and whether more were there, of one statement on a
    DuckDB cursor. A result whose columns are all `plain_types` is read as a stream of Arrow
    record batches of a relation (DuckDB's Arrow output of a DB-API cursor first copies the
    whole result: 3 GB held for a 50 MB budget); up to ARROW_AFTER rows it is handed on as
    tuples, past it as :class:`ArrowRows`. Another type keeps the cursor's tuples, fetched as
    `fetch_bounded` fetches them. The byte budget is counted a batch at a time either way."""
    relation = cursor.sql(sql)  # binds (no rows are made yet)
    if relation is None:  # a statement with no result
        return [], [], False
    columns = list(relation.columns)
    if not plain_types([str(kind) for kind in relation.types]):
        cursor.execute(sql)
        return columns, *fetch_bounded(cursor.fetchmany, row_cap, max_bytes)
    reader = relation.to_arrow_reader(ARROW_BATCH)
    try:
        return columns, *_read_batches(reader, row_cap, max_bytes)
    finally:
        reader.close()  # the rest of the result is never made


def _read_batches(
    reader: Any, row_cap: int, max_bytes: int
) -> tuple[Sequence[tuple[Any, ...]], bool]:
    """Record batches until the reader ends, the cap is passed or the budget is spent; one
    table. Bounded: the reader ends, or at most ``row_cap + ARROW_BATCH`` rows are read."""
    import pyarrow as pa

    batches, count, used = [], 0, 0
    try:
        for batch in reader:
            used += arrow_bytes(batch)
            if used > max_bytes:  # the batch is dropped with the rest
                raise ResultTooLarge(max_bytes, used)
            batches.append(batch)
            count += batch.num_rows
            if count > row_cap:
                break
    except OSError as exc:
        raise StreamError(str(exc).strip() or type(exc).__name__) from exc
    table = pa.Table.from_batches(batches, schema=reader.schema)
    more = count > row_cap
    if more:
        table = table.slice(0, row_cap)
    if table.num_rows <= ARROW_AFTER:  # a small result: tuples, as every consumer knew them
        return _tuples(table), more
    return ArrowRows(table), more


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
