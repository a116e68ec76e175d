"""Properties of the number formatter: what it writes reads back as the number shown.

For any value, any precision and both languages, the text `format_number` writes parses
back (by our own reader, the one the invented-number check uses, and by Babel's parser)
to the value rounded half up at the displayed precision; money, counts and percents too;
and an answer made of formatted values passes the invented-number check.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, localcontext

from babel.numbers import parse_decimal
from hypothesis import given
from hypothesis import strategies as st

from vitrina.present.columns import ColumnMeta, ColumnRole, ValueFormat
from vitrina.present.numbers import (
    DASH,
    format_money,
    format_number,
    format_percent,
    format_value,
    numbers_in_text,
    to_decimal,
    unverified_numbers,
)
from vitrina.warehouse.result import QueryResult

langs = st.sampled_from(["ru", "en"])
decimals = st.integers(0, 4)
values = st.one_of(
    st.integers(-(10**15), 10**15),
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1e15, max_value=1e15),
    st.decimals(
        allow_nan=False, allow_infinity=False, min_value=-(10**20), max_value=10**20, places=6
    ),
    st.decimals(allow_nan=False, allow_infinity=False, min_value=-1, max_value=1, places=12),
)


def shown(value: object, places: int) -> Decimal:
    """The value as a reader should see it: rounded half up at `places` decimals."""
    d = to_decimal(value)
    assert d is not None
    with localcontext() as ctx:
        ctx.prec = 80
        return d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


@given(value=values, places=decimals, lang=langs)
def test_a_formatted_number_reads_back_as_shown(value: object, places: int, lang: str) -> None:
    text = format_number(value, places, lang)
    assert numbers_in_text(text, lang) == [shown(value, places)], text
    with localcontext() as ctx:  # Babel's strict check re-formats in the context's precision
        ctx.prec = 80
        assert parse_decimal(text, locale=lang, strict=True) == shown(value, places), text
    assert not text.startswith("-") or shown(value, places) < 0, text  # no "-0,00"


@given(value=values, lang=langs, unit=st.sampled_from(["RUB", "USD", "EUR", None]))
def test_money_reads_back_with_two_decimals(value: object, lang: str, unit: str | None) -> None:
    text = format_money(value, lang, unit)
    assert numbers_in_text(text, lang) == [shown(value, 2)], text


@given(value=values, lang=langs)
def test_a_percent_reads_back_with_one_decimal(value: object, lang: str) -> None:
    text = format_percent(value, lang)
    assert text.endswith("%") and numbers_in_text(text, lang) == [shown(value, 1)], text


@given(
    rows=st.lists(
        st.tuples(st.sampled_from(["Москва", "Казань", "Омск"]), values), min_size=1, max_size=8
    ),
    fmt=st.sampled_from(
        [ValueFormat.MONEY, ValueFormat.COUNT, ValueFormat.PERCENT, ValueFormat.NUMBER]
    ),
    lang=langs,
)
def test_an_answer_of_formatted_values_passes_the_invented_number_check(
    rows: list[tuple[str, object]], fmt: ValueFormat, lang: str
) -> None:
    metas = [
        ColumnMeta(name="region", role=ColumnRole.DIMENSION, label_ru="Регион", label_en="Region"),
        ColumnMeta(
            name="v",
            role=ColumnRole.METRIC,
            label_ru="Значение",
            label_en="Value",
            fmt=fmt,
            unit="RUB" if fmt is ValueFormat.MONEY else None,
        ),
    ]
    result = QueryResult(columns=["region", "v"], rows=rows)
    text = "; ".join(f"{region}: {format_value(v, metas[1], lang)}" for region, v in rows)
    assert DASH not in text
    assert unverified_numbers(text, result, metas, lang=lang) == [], text


@given(value=values, lang=langs)
def test_a_number_not_in_the_data_is_caught(value: object, lang: str) -> None:
    metas = [
        ColumnMeta(
            name="v",
            role=ColumnRole.METRIC,
            label_ru="Сумма",
            label_en="Sum",
            fmt=ValueFormat.MONEY,
            unit="RUB",
        )
    ]
    result = QueryResult(columns=["v"], rows=[(value,)])
    invented = shown(value, 2) + Decimal("1000.01")
    text = f"Итого {format_money(invented, lang, 'RUB')}"
    assert unverified_numbers(text, result, metas, lang=lang) == [invented], text
