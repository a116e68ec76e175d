"""A result's rows kept in a Parquet file, and the CSV and Parquet downloads of a result.

A result too large for the dialog's checkpoint (`vitrina.ask.bounded`) leaves a sample
there and its every row here, written once when the turn ends (columnar and compressed: a
million order lines take a few MiB and a second, where the Excel file took 38 s). Every
later download reads this file in batches, so no download holds the whole result in memory
again: CSV through Arrow's CSV writer, Excel row by row (`present.excel`), Parquet as it is.
A result small enough for the checkpoint is written from its rows.

Types are Arrow's from the values (numbers, decimals, dates, text); a column Arrow cannot
type (mixed values) is written as text, so a download never fails on odd data.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from vitrina.present.formulas import FORMULA_STARTS
from vitrina.warehouse.arrow_head import column_array
from vitrina.warehouse.result import QueryResult

BATCH_ROWS = 65_536  # rows read or converted at a time


def _array(values: list[Any]) -> Any:
    """One column as an Arrow array; as text when its values have no one Arrow type. The
    kinds a driver gives are typed here and written by `column_array` (`pyarrow.array`
    imports pandas, 33 MB for the rest of the process; decision 210); another kind is
    left to `pyarrow.array`."""
    import pyarrow as pa

    try:
        kind = _arrow_type(values)
        if kind is None:
            return pa.array(values)
        return pa.nulls(len(values)) if kind == pa.null() else column_array(values, kind)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OverflowError):
        return _text(values)


def _text(values: list[Any]) -> Any:
    import pyarrow as pa

    return column_array([None if v is None else str(v) for v in values], pa.string())


def _arrow_type(values: list[Any]) -> Any | None:
    """The Arrow type `pyarrow.array` infers for a column of one plain Python kind (text,
    booleans, integers, floats, finite decimals, dates, naive timestamps); None otherwise."""
    import pyarrow as pa

    kinds = {type(v) for v in values if v is not None}
    if not kinds or kinds == {str}:
        return pa.string() if kinds else pa.null()
    simple = {
        frozenset({bool}): pa.bool_(),
        frozenset({int}): pa.int64(),
        frozenset({float}): pa.float64(),
        frozenset({int, float}): pa.float64(),
        frozenset({date}): pa.date32(),
        frozenset({datetime}): pa.timestamp("us"),
    }
    found = simple.get(frozenset(kinds))
    if found is not None:
        if found == pa.timestamp("us") and any(v.tzinfo for v in values if v is not None):
            return None
        return found
    return _decimal_type([v for v in values if v is not None]) if kinds == {Decimal} else None


def _decimal_type(values: list[Decimal]) -> Any | None:
    """decimal128 wide enough for every value (integer digits and scale, each its largest),
    as `pyarrow.array` infers it; None for NaN, infinity or more than 38 digits."""
    import pyarrow as pa

    scale = digits = 0
    for value in values:
        _sign, numerals, exponent = value.as_tuple()
        if not isinstance(exponent, int):  # NaN, infinity
            return None
        scale = max(scale, -exponent)
        digits = max(digits, len(numerals) + exponent)
    precision = max(digits, 0) + scale
    return pa.decimal128(max(precision, 1), scale) if precision <= 38 else None


def _names(columns: list[str]) -> list[str]:
    """Column names made unique (a query may return two columns of one name)."""
    seen: dict[str, int] = {}
    out = []
    for name in columns:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}_{seen[name]}")
    return out


def to_table(result: QueryResult) -> Any:
    """The result as an Arrow table (column by column; one pass over the rows per column);
    a columnar result's own table, its names made unique (nothing is copied)."""
    import pyarrow as pa

    if result.arrow is not None:
        return result.arrow.rename_columns(_names(result.columns))
    arrays = [_array([row[i] for row in result.rows]) for i in range(len(result.columns))]
    return pa.Table.from_arrays(arrays, names=_names(result.columns))


def write_parquet(result: QueryResult, path: Path) -> Path:
    """Every row of `result` into a Parquet file at `path`."""
    import pyarrow.parquet as pq

    pq.write_table(to_table(result), path, row_group_size=BATCH_ROWS, compression="zstd")
    return path


def batches(source: QueryResult | Path) -> Iterator[Any]:
    """Arrow record batches of a result: from its stored Parquet file, or from its rows."""
    if isinstance(source, Path):
        import pyarrow.parquet as pq

        yield from pq.ParquetFile(source).iter_batches(batch_size=BATCH_ROWS)
        return
    yield from to_table(source).to_batches(max_chunksize=BATCH_ROWS)


def rows_of(source: QueryResult | Path) -> Iterator[tuple[Any, ...]]:
    """The rows of a result one by one, read a batch at a time (Python values: Decimal, date)."""
    if isinstance(source, QueryResult):
        yield from source.rows
        return
    for batch in batches(source):
        yield from zip(*(column.to_pylist() for column in batch.columns), strict=True)


def row_count(source: QueryResult | Path) -> int:
    """The rows of a result (the Parquet file's metadata: nothing is read)."""
    if isinstance(source, QueryResult):
        return source.row_count
    import pyarrow.parquet as pq

    return pq.ParquetFile(source).metadata.num_rows


# a text cell a spreadsheet would run as a formula (`vitrina.present.formulas`, decision 149)
_FORMULA = "^([" + "".join(FORMULA_STARTS).replace("-", "\\-") + "])"


def csv_safe(batch: Any) -> Any:
    """The batch with formula-like text behind a ``'`` (`present.formulas.csv_cell`, done
    by Arrow a column at a time); numbers and other types as they are."""
    import pyarrow as pa
    import pyarrow.compute as pc

    columns = []
    for column in batch.columns:
        if pa.types.is_nested(column.type):  # lists, structs, maps: CSV has no such cell
            column = _text(column.to_pylist())
        if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
            # options, not Python scalars: a scalar argument imports pandas (decision 210)
            column = pc.replace_substring_regex(column, _FORMULA, r"'\1", max_replacements=1)
        columns.append(column)
    return pa.RecordBatch.from_arrays(columns, names=batch.schema.names)


def write_csv(source: QueryResult | Path, path: Path) -> Path:
    """The result as CSV (UTF-8, a header row, ISO dates, '.' decimals), a batch at a time;
    formula-like text is written behind a ``'`` (OWASP's CSV injection rule)."""
    import pyarrow.csv as pacsv

    writer = None
    try:
        for batch in batches(source):
            safe = csv_safe(batch)
            if writer is None:
                writer = pacsv.CSVWriter(str(path), safe.schema)
            writer.write_batch(safe)
        if writer is None:  # no rows: the header only
            writer = pacsv.CSVWriter(str(path), to_table(_empty(source)).schema)
    finally:
        if writer is not None:
            writer.close()
    return path


def _empty(source: QueryResult | Path) -> QueryResult:
    if isinstance(source, QueryResult):
        return source
    import pyarrow.parquet as pq

    return QueryResult(columns=pq.ParquetFile(source).schema_arrow.names, rows=[])
