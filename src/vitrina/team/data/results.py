"""Query results stored in the workspace as JSON that round-trips exactly.

Decimals and dates are written as strings with the column's type, so a number the data
engineer stored is, digit for digit, the number the chart builder and the steward read.

>>> from decimal import Decimal
>>> from datetime import date
>>> from vitrina.warehouse import QueryResult
>>> r = QueryResult(columns=["month", "amount"], rows=[(date(2025, 1, 1), Decimal("10.50"))])
>>> decode_result(encode_result(r)).rows
[(datetime.date(2025, 1, 1), Decimal('10.50'))]
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

from vitrina.warehouse import QueryResult


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, Decimal):
        return "decimal"
    if isinstance(value, datetime):
        return "datetime"
    if isinstance(value, date):
        return "date"
    return "text"


def _column_kind(values: list[Any]) -> str:
    kinds = {_kind(v) for v in values} - {"null"}
    if not kinds:
        return "null"
    if kinds <= {"int", "decimal"} and "decimal" in kinds:
        return "decimal"
    return kinds.pop() if len(kinds) == 1 else "text"


def _encode(value: Any, kind: str) -> Any:
    if value is None:
        return None
    if kind in ("decimal", "date", "datetime"):
        return value.isoformat() if kind != "decimal" else str(value)
    if kind == "text":
        return str(value)
    return value


def _decode(value: Any, kind: str) -> Any:
    if value is None:
        return None
    return {"decimal": Decimal, "date": date.fromisoformat, "datetime": datetime.fromisoformat}.get(
        kind, lambda v: v
    )(value)


def encode_result(result: QueryResult) -> dict[str, Any]:
    kinds = [_column_kind([row[i] for row in result.rows]) for i in range(len(result.columns))]
    return {
        "columns": result.columns,
        "types": kinds,
        "truncated": result.truncated,
        "rows": [[_encode(v, k) for v, k in zip(row, kinds, strict=True)] for row in result.rows],
    }


def decode_result(data: dict[str, Any]) -> QueryResult:
    kinds = data["types"]
    rows = [tuple(_decode(v, k) for v, k in zip(row, kinds, strict=True)) for row in data["rows"]]
    return QueryResult(
        columns=list(data["columns"]), rows=rows, truncated=bool(data.get("truncated"))
    )
