"""Arrow arrays made from a column of Python values without `pyarrow.array`.

A small result's stored Parquet file (`vitrina.present.stored`) is made from its rows as
Python values. `pyarrow.array` would make each column, but every call of it imports pandas
(pyarrow checks whether the values are a pandas array), 33 MB of the process for a library
Vitrina never uses (issue 38: a million-row turn under 300 MB). The types DuckDB gives for
`PLAIN_TYPES` have simple layouts (a validity bitmap, fixed-width values or offsets and
UTF-8 bytes), so the buffers are written here from the values; a type not listed falls back
to `pyarrow.array`.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

EPOCH_DAY = date(1970, 1, 1)
EPOCH = datetime(1970, 1, 1)
MICROSECOND = timedelta(microseconds=1)


def _code(size: int, signed: bool) -> str:
    """The `array` type code of an integer of `size` bytes."""
    for code in "bhilq" if signed else "BHILQ":
        if array(code).itemsize == size:
            return code
    raise TypeError(f"no {size}-byte integer array")  # pragma: no cover: every CPython has one


def _bitmap(flags: Sequence[bool]) -> bytes:
    out = bytearray((len(flags) + 7) // 8)
    for i, flag in enumerate(flags):
        if flag:
            out[i >> 3] |= 1 << (i & 7)
    return bytes(out)


def _decimal_int(value: Decimal, scale: int) -> int:
    """The unscaled integer of a decimal at `scale` (exact: no context rounding)."""
    sign, digits, exponent = value.as_tuple()
    if not isinstance(exponent, int) or exponent + scale < 0:
        raise ValueError(f"{value} does not fit scale {scale}")
    unscaled = int("".join(map(str, digits)) or "0") * 10 ** (exponent + scale)
    return -unscaled if sign else unscaled


def _fixed(kind: Any, values: list[Any]) -> bytes | None:
    """The value buffer of a fixed-width type (None: not one written here)."""
    import pyarrow as pa

    types = pa.types
    if types.is_integer(kind):
        code = _code(kind.bit_width // 8, types.is_signed_integer(kind))
        return array(code, [0 if v is None else v for v in values]).tobytes()
    if types.is_float32(kind) or types.is_float64(kind):
        code = "f" if types.is_float32(kind) else "d"
        return array(code, [0.0 if v is None else v for v in values]).tobytes()
    if types.is_boolean(kind):
        return _bitmap([bool(v) for v in values])
    if types.is_date32(kind):
        days = [0 if v is None else (v - EPOCH_DAY).days for v in values]
        return array(_code(4, True), days).tobytes()
    if types.is_timestamp(kind) and kind.unit == "us" and kind.tz is None:
        micros = [0 if v is None else (v - EPOCH) // MICROSECOND for v in values]
        return array(_code(8, True), micros).tobytes()
    if types.is_decimal128(kind):
        zero = bytes(16)
        return b"".join(
            zero if v is None else _decimal_int(v, kind.scale).to_bytes(16, "little", signed=True)
            for v in values
        )
    return None


def column_array(values: list[Any], kind: Any) -> Any:
    """An Arrow array of `kind` holding `values` (Python values as DuckDB's fetch gives them;
    None is NULL), equal to ``pyarrow.array(values, type=kind)``."""
    import pyarrow as pa

    nulls = sum(v is None for v in values)
    validity = pa.py_buffer(_bitmap([v is not None for v in values])) if nulls else None
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        encoded = [b"" if v is None else v.encode() for v in values]
        offsets, end = [0], 0
        for item in encoded:
            end += len(item)
            offsets.append(end)
        code = _code(8 if pa.types.is_large_string(kind) else 4, True)
        buffers = [validity, pa.py_buffer(array(code, offsets).tobytes())]
        buffers.append(pa.py_buffer(b"".join(encoded)))
        return pa.Array.from_buffers(kind, len(values), buffers, null_count=nulls)
    try:
        data = _fixed(kind, values)
    except (TypeError, ValueError, OverflowError, AttributeError):
        data = None
    if data is None:  # another type, or a value this layout does not take: pyarrow's way
        return pa.array(values, type=kind)
    return pa.Array.from_buffers(kind, len(values), [validity, pa.py_buffer(data)], nulls)
