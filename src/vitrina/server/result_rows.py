"""A page of a run's whole result, sorted, filtered and totalled by DuckDB over its stored rows.

The chat shows the first rows of an answer; sorting or filtering only those rows showed the
wrong top day under an unchanged "first 20 of 365" (issue 34). Here every page comes from
the run's stored result, the Parquet file that also is its Parquet download
(`vitrina.ask.outputs`), so a sort, a filter and the totals see every row.

What reaches SQL is hostile: a column is named only from the allow-list of the file's own
columns (anything else is refused with the list), every value is a bound parameter, the
page size and the filter text are bounded. The rows are formatted like the answer's table
(`present.numbers.format_value`, the run's column meanings).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, replace
from decimal import Decimal
from pathlib import Path
from typing import Any

from vitrina.present.columns import ColumnMeta, ColumnRole, ValueFormat
from vitrina.present.numbers import format_value
from vitrina.server.errors import ApiError

MAX_PAGE = 200  # rows of one page at most
DEFAULT_PAGE = 20
MAX_FILTER_CHARS = 200
MAX_TSV_ROWS = 10_000  # rows one "copy as TSV" carries at most (the downloads hold every row)
_ROW_NO = "file_row_number"  # DuckDB's row number of the file: the stored order, a tie-breaker
_TOTALLED = (ValueFormat.MONEY, ValueFormat.COUNT, ValueFormat.NUMBER)
_NUMERIC_FMT = (*_TOTALLED, ValueFormat.PERCENT)
# "> 1000", "<=5,5", "= 12": a comparison on a numeric column; anything else is a substring
_COMPARE = re.compile(r"^\s*(>=|<=|>|<|=)\s*(-?[\d\s\u00a0]*[.,]?\d+)\s*$")


@dataclass(frozen=True)
class RowsQuery:
    """What the page asks for: a sort column and direction, a filter, a page."""

    sort: str | None = None
    desc: bool = False
    column: str | None = None  # the filter's column; None: any column
    text: str | None = None  # the filter: a substring, or a comparison on a numeric column
    offset: int = 0
    limit: int = DEFAULT_PAGE


@dataclass(frozen=True)
class Column:
    """One column of the stored result with its meaning and how the page may use it."""

    name: str  # the stored (unique) name: the only names SQL ever sees
    meta: ColumnMeta
    numeric: bool  # a number in the file (sums and comparisons make sense)
    totalled: bool  # summed in the totals row (additive money, counts, numbers)


def quoted(name: str) -> str:
    """A DuckDB identifier of an allow-listed column name (the list is the file's schema).

    >>> quoted('a"b')
    '"a""b"'
    """
    return '"' + name.replace('"', '""') + '"'


def columns_of(path: Path, metas: list[ColumnMeta]) -> list[Column]:
    """The stored file's columns, each with the run's meaning (by position: the file's names
    are the result's, made unique)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pq.ParquetFile(path).schema_arrow
    out = []
    for n, name in enumerate(schema.names):
        meta = metas[n] if n < len(metas) else None
        meta = meta or ColumnMeta(
            name=name, role=ColumnRole.ATTRIBUTE, label_ru=name, label_en=name
        )
        kind = schema.field(n).type
        numeric = bool(
            pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind)
        )
        totalled = (
            numeric
            and meta.role is ColumnRole.METRIC
            and meta.fmt in _TOTALLED
            and meta.additive
            and meta.grain is None
        )
        out.append(Column(name, meta, numeric, totalled))
    return out


def _unknown_column(name: str, columns: list[Column]) -> ApiError:
    known = [c.name for c in columns]
    return ApiError(
        422,
        "unknown_column",
        f"the result has no column {name[:80]!r}; its columns: {', '.join(known)}",
        f"в результате нет столбца {name[:80]!r}; его столбцы: {', '.join(known)}",
        known=known,
    )


def _pick(name: str | None, columns: list[Column]) -> Column | None:
    """The allow-listed column of this name (None for none); any other name is refused."""
    if name is None or name == "":
        return None
    found = next((c for c in columns if c.name == name), None)
    if found is None:
        raise _unknown_column(name, columns)
    return found


def _number(text: str) -> float:
    return float(re.sub(r"[\s\u00a0]", "", text).replace(",", "."))


def _where(query: RowsQuery, columns: list[Column]) -> tuple[str, list[Any]]:
    """The filter as SQL over allow-listed columns, its values as bound parameters."""
    text = (query.text or "").strip()
    target = _pick(query.column, columns)
    if not text:
        return "", []
    if len(text) > MAX_FILTER_CHARS:
        raise ApiError(
            422,
            "filter_too_long",
            f"the filter is longer than {MAX_FILTER_CHARS} characters; shorten it",
            f"отбор длиннее {MAX_FILTER_CHARS} символов; сократите его",
        )
    compare = _COMPARE.match(text)
    if target is not None and target.numeric and compare:
        return f"WHERE {quoted(target.name)} {compare.group(1)} ?", [_number(compare.group(2))]
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    targets = [target] if target is not None else columns
    tests = [f"CAST({quoted(c.name)} AS VARCHAR) ILIKE ? ESCAPE '\\'" for c in targets]
    return "WHERE " + " OR ".join(tests), [f"%{escaped}%"] * len(tests)


def _order(query: RowsQuery, columns: list[Column]) -> str:
    column = _pick(query.sort, columns)
    if column is None:  # the stored order: DuckDB keeps a file's order (preserve_insertion_order)
        return ""
    direction = "DESC" if query.desc else "ASC"
    return f"ORDER BY {quoted(column.name)} {direction} NULLS LAST, {_ROW_NO}"


_BASE: list[Any] = []  # one in-memory DuckDB per process; each request takes a cursor
_BASE_LOCK = threading.Lock()


def _connect() -> Any:
    """A cursor of the process's in-memory DuckDB (it holds no data: it reads the file).
    Opening a database costs 100+ ms on a busy machine; a cursor costs nothing."""
    import duckdb

    with _BASE_LOCK:
        if not _BASE:
            _BASE.append(duckdb.connect(":memory:", config={"threads": 2}))
        return _BASE[0].cursor()


def _select(path: Path, query: RowsQuery, columns: list[Column], limit: int) -> tuple[str, list]:
    where, params = _where(query, columns)
    names = ", ".join(quoted(c.name) for c in columns)
    sql = (
        f"SELECT {names} FROM read_parquet(?, file_row_number = true) {where} "
        f"{_order(query, columns)} LIMIT ? OFFSET ?"
    )
    return sql, [str(path), *params, limit, max(0, query.offset)]


def _totals(conn: Any, path: Path, query: RowsQuery, columns: list[Column]) -> list[Any]:
    """COUNT(*) of the filtered rows, then SUM of each totalled column (None for the rest)."""
    where, params = _where(query, columns)
    sums = [f"SUM({quoted(c.name)})" for c in columns if c.totalled]
    sql = f"SELECT COUNT(*) {''.join(', ' + s for s in sums)} FROM read_parquet(?) {where}"
    found = list(conn.execute(sql, [str(path), *params]).fetchone())
    count, values = found[0], iter(found[1:])
    return [count, *(next(values) if c.totalled else None for c in columns)]


def page(path: Path, metas: list[ColumnMeta], query: RowsQuery, lang: str) -> dict[str, Any]:
    """One page of the whole result: formatted rows, how many rows match, the totals."""
    import pyarrow.parquet as pq

    columns = columns_of(path, metas)
    total_rows = pq.ParquetFile(path).metadata.num_rows
    text = (query.text or "").strip()
    limit = max(1, min(query.limit, MAX_PAGE))
    conn = _connect()
    try:
        sql, params = _select(path, query, columns, limit)
        rows = conn.execute(sql, params).fetchall()
        matched, *sums = _totals(conn, path, query, columns)
    finally:
        conn.close()
    return {
        "columns": [
            {
                "name": c.name,
                "label": c.meta.label(lang),
                "numeric": c.numeric and c.meta.fmt in _NUMERIC_FMT,
            }
            for c in columns
        ],
        "rows": [
            [format_value(v, c.meta, lang) for v, c in zip(row, columns, strict=True)]
            for row in rows
        ],
        "offset": max(0, query.offset),
        "limit": limit,
        "matched": matched,
        "total_rows": total_rows,
        "sort": {"column": query.sort, "desc": query.desc} if query.sort else None,
        "filter": {"column": query.column, "text": text} if text else None,
        "totals": [
            None if not c.totalled or s is None else format_value(s, c.meta, lang)
            for c, s in zip(columns, sums, strict=True)
        ]
        if any(c.totalled for c in columns)
        else None,
    }


def _tsv_cell(value: Any, lang: str) -> str:
    """A raw value for a spreadsheet: numbers with the language's decimal mark, no tabs."""
    if value is None:
        return ""
    if isinstance(value, float | Decimal) and lang == "ru":
        return str(value).replace(".", ",")
    return re.sub(r"[\t\r\n]+", " ", str(value))


def tsv(path: Path, metas: list[ColumnMeta], query: RowsQuery, lang: str) -> tuple[str, int]:
    """The filtered, sorted rows as tab-separated text (labels as the header, raw values), at
    most MAX_TSV_ROWS; returns the text and how many rows it holds."""
    columns = columns_of(path, metas)
    conn = _connect()
    try:
        sql, params = _select(path, replace(query, offset=0), columns, MAX_TSV_ROWS)
        rows = conn.execute(sql, params).fetchall()
    finally:
        conn.close()
    lines = ["\t".join(_tsv_cell(c.meta.label(lang), lang) for c in columns)]
    lines += ["\t".join(_tsv_cell(v, lang) for v in row) for row in rows]
    return "\n".join(lines) + "\n", len(rows)
