"""The invented-number check: numbers in an answer's text that the data does not hold.

Independent of the answer node's own check: the eval harness sees only what a user sees
(the text, the rows, the period), so a number passes when it is a value of the result, a
figure computed from it (total, min, max, mean, change, row count), a part of a date or
of the period, a number of the question, or any of these rounded to the decimals the text
shows. Rounding never turns one whole number into another.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from vitrina.present.columns import ColumnMeta, ColumnRole, ValueFormat
from vitrina.present.numbers import allowed_numbers, as_date, is_number, numbers_in_text, to_decimal
from vitrina.warehouse.result import QueryResult


def _metas(columns: list[str], rows: list[list[Any]]) -> list[ColumnMeta]:
    """A guess of each column's meaning from its values: numbers are metrics, dates periods."""
    metas = []
    for i, name in enumerate(columns):
        values = [r[i] for r in rows if r[i] is not None]
        if values and all(as_date(v) is not None and not is_number(v) for v in values):
            role, fmt = ColumnRole.PERIOD, ValueFormat.DATE
        elif values and all(is_number(v) for v in values):  # summable, so totals and means count
            whole = all(to_decimal(v) == to_decimal(v).to_integral_value() for v in values)
            role, fmt = ColumnRole.METRIC, ValueFormat.COUNT if whole else ValueFormat.MONEY
        else:
            role, fmt = ColumnRole.DIMENSION, ValueFormat.TEXT
        metas.append(ColumnMeta(name=name, role=role, label_ru=name, label_en=name, fmt=fmt))
    return metas


def _decimals(number: Decimal) -> int:
    exponent = number.as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def _date_parts(values: Iterable[Any]) -> set[Decimal]:
    """Year, month, day, quarter and ISO week of each date and of the Sunday that ends its
    week (week labels show both ends: "нед. 2026-W44 (26.10–01.11)")."""
    out: set[Decimal] = set()
    for value in values:
        d = as_date(value)
        if d is None:
            continue
        for day in (d, d + timedelta(days=6)):
            iso = day.isocalendar()
            out.update(
                Decimal(n)
                for n in (day.year, day.month, day.day, (day.month - 1) // 3 + 1, iso.week)
            )
    return out


def invented_numbers(
    answer: str | None,
    columns: list[str],
    rows: list[list[Any]],
    *,
    trusted: Iterable[str | None] = (),
    period: dict[str, Any] | None = None,
    extra: Iterable[int] = (),
) -> list[Decimal]:
    """Numbers of `answer` not found in the data (empty when every number checks out)."""
    if not answer:
        return []
    found = numbers_in_text(answer)
    if not found:
        return []
    result = QueryResult(columns=columns, rows=[tuple(r) for r in rows])
    texts = [t for t in trusted if t]
    allowed = allowed_numbers(result, _metas(columns, rows), texts=texts)
    allowed |= _date_parts(v for v in (period or {}).values() if isinstance(v, str))
    allowed |= _date_parts(v for row in rows for v in row)
    allowed |= {Decimal(n) for n in extra}
    fractional = [a for a in allowed if a != a.to_integral_value()]
    out = []
    for number in found:
        if number in allowed or -number in allowed:
            continue
        places = Decimal(1).scaleb(-_decimals(number))
        if any(abs(a).quantize(places, rounding=ROUND_HALF_UP) == abs(number) for a in fractional):
            continue
        out.append(number)
    return out
