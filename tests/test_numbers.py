"""Number, date and period formatting, numbers found in text, allowed numbers (table-driven)."""

from __future__ import annotations

import doctest
from datetime import date, datetime
from decimal import Decimal

import pytest

from vitrina.present import numbers
from vitrina.present.columns import ColumnMeta, ColumnRole, Grain, ValueFormat
from vitrina.present.numbers import (
    NBSP,
    allowed_numbers,
    format_number,
    format_period,
    format_value,
    numbers_in_text,
    to_decimal,
    unverified_numbers,
)
from vitrina.warehouse.result import QueryResult

S = NBSP


def meta(
    fmt: str = "number", role: str = "metric", unit: str | None = None, grain: str | None = None
) -> ColumnMeta:
    return ColumnMeta(
        name="c", role=ColumnRole(role), label_ru="к", label_en="c", fmt=ValueFormat(fmt), unit=unit,
        grain=Grain(grain) if grain else None,
    )  # fmt: skip


FORMAT_CASES = [
    # value, fmt, unit, ru, en
    (1234567.891, "number", None, f"1{S}234{S}567,89", "1,234,567.89"),
    (1234.5, "money", "RUB", f"1{S}234,50{S}₽", f"RUB{S}1,234.50"),
    (-1234.5, "money", "RUB", f"-1{S}234,50{S}₽", f"RUB{S}-1,234.50"),
    (Decimal("99.999"), "money", None, "100,00", "100.00"),
    (1000, "money", "USD", f"1{S}000,00{S}USD", f"USD{S}1,000.00"),
    (12345, "count", None, f"12{S}345", "12,345"),
    (12345.5, "count", None, f"12{S}346", "12,346"),
    (-7, "count", None, "-7", "-7"),
    (0, "count", None, "0", "0"),
    (0.0, "money", None, "0,00", "0.00"),
    (12.345, "percent", None, f"12,3{S}%", "12.3%"),
    (12.35, "percent", None, f"12,4{S}%", "12.4%"),
    (-0.05, "percent", None, f"-0,1{S}%", "-0.1%"),
    (0.005, "number", None, "0,01", "0.01"),
    (2.675, "number", None, "2,68", "2.68"),
    (-0.005, "number", None, "-0,01", "-0.01"),
    (-0.004, "number", None, "0,00", "0.00"),  # no "-0,00"
    (Decimal("1.005"), "money", None, "1,01", "1.01"),
    (42, "number", None, "42", "42"),
    (Decimal("42"), "number", None, "42", "42"),
    (Decimal("42.10"), "number", None, "42,10", "42.10"),
    (Decimal("123456789012345678901234567890.125"), "money", None,
     f"123{S}456{S}789{S}012{S}345{S}678{S}901{S}234{S}567{S}890,13",
     "123,456,789,012,345,678,901,234,567,890.13"),
    (10**21, "count", None, f"1{S}000{S}000{S}000{S}000{S}000{S}000{S}000", "1,000,000,000,000,000,000,000"),
    (None, "money", "RUB", "—", "—"),
    (float("nan"), "number", None, "—", "—"),
    (date(2025, 5, 1), "date", None, "01.05.2025", "2025-05-01"),
    (datetime(2025, 5, 1, 14, 30), "date", None, "01.05.2025 14:30", "2025-05-01 14:30"),
    ("2025-05-01", "date", None, "01.05.2025", "2025-05-01"),
    ("text", "text", None, "text", "text"),
]  # fmt: skip


@pytest.mark.parametrize(("value", "fmt", "unit", "ru", "en"), FORMAT_CASES)
def test_format_value(value: object, fmt: str, unit: str | None, ru: str, en: str) -> None:
    m = meta(fmt, unit=unit)
    assert format_value(value, m, "ru") == ru
    assert format_value(value, m, "en") == en


@pytest.mark.parametrize(
    ("value", "grain", "ru", "en"),
    [
        (date(2025, 5, 1), "month", "май 2025", "May 2025"),
        (datetime(2025, 12, 1), "month", "декабрь 2025", "December 2025"),
        ("2025-05", "month", "май 2025", "May 2025"),
        (202505, "month", "май 2025", "May 2025"),
        (5, "month", "май", "May"),
        (Decimal(1), "month", "январь", "January"),
        (date(2025, 4, 1), "quarter", "II кв. 2025", "Q2 2025"),
        ("2025-Q4", "quarter", "IV кв. 2025", "Q4 2025"),
        (3, "quarter", "III кв.", "Q3"),
        (date(2025, 1, 27), "week", "нед. 2025-W05 (27.01–02.02)", "2025-W05 (Jan 27 – Feb 2)"),
        ("2025-W05", "week", "нед. 2025-W05 (27.01–02.02)", "2025-W05 (Jan 27 – Feb 2)"),
        (date(2024, 12, 30), "week", "нед. 2025-W01 (30.12–05.01)", "2025-W01 (Dec 30 – Jan 5)"),
        (7, "week", "нед. 7", "week 7"),
        (2025, "year", "2025", "2025"),
        (date(2025, 1, 1), "year", "2025", "2025"),
        (date(2025, 5, 3), "day", "03.05.2025", "2025-05-03"),
        (None, "month", "—", "—"),
        ("H1 2025", "quarter", "H1 2025", "H1 2025"),  # unknown shapes stay as they are
    ],
)
def test_format_period(value: object, grain: str, ru: str, en: str) -> None:
    assert format_period(value, grain, "ru") == ru
    assert format_period(value, grain, "en") == en
    assert format_value(value, meta(role="period", grain=grain), "ru") == ru


def test_year_period_is_never_grouped_and_ids_are_shown_as_is() -> None:
    assert format_value(2025, meta("count", role="period", grain="year"), "ru") == "2025"
    assert format_value(1234567, meta("count", role="id"), "ru") == "1234567"
    assert format_value(True, meta("text", role="attribute"), "ru") == "да"
    assert format_value(False, meta("text", role="attribute"), "en") == "no"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.005, Decimal("0.005")),
        (1, Decimal(1)),
        (Decimal("2.50"), Decimal("2.50")),
        ("12.5", Decimal("12.5")),
        ("12,5", None),
        ("abc", None),
        (True, None),
        (None, None),
        (float("inf"), None),
        (Decimal("NaN"), None),
    ],
)
def test_to_decimal(value: object, expected: Decimal | None) -> None:
    assert to_decimal(value) == expected


def test_to_decimal_numpy() -> None:
    np = pytest.importorskip("numpy")
    assert to_decimal(np.float64(1.5)) == Decimal("1.5")
    assert to_decimal(np.int64(7)) == Decimal(7)
    assert format_number(np.float64(1234.5), 2, "en") == "1,234.50"


@pytest.mark.parametrize(
    ("text", "lang", "expected"),
    [
        (f"Открыто 12{S}345 кошельков", None, ["12345"]),
        ("Открыто 12\u202f345 кошельков", None, ["12345"]),
        ("Открыто 12 345 кошельков", None, ["12345"]),
        (f"Сумма 1{S}234{S}567,89{S}₽", None, ["1234567.89"]),
        ("Wallets opened: 12,345.", None, ["12345"]),
        ("Revenue RUB 1,234.50, share 7.5%", None, ["1234.50", "7.5"]),
        ("Доля 7,5 %, рост -3,2 %", None, ["7.5", "-3.2"]),
        ("change −3.2% and +4%", None, ["-3.2", "4"]),
        ("01.05.2025", "ru", ["1", "5", "2025"]),
        ("on 2025-05-01 and 2025-06", "en", ["2025", "5", "1", "2025", "6"]),
        ("II кв. 2025, нед. 2025-W05 (27.01–02.02)", None, ["2025", "2025", "27", "1", "2", "2"]),
        ("Q2 2025, W05, x3", None, ["2025"]),
        ("в 2024 году 120 000 клиентов", None, ["2024", "120000"]),
        ("1,2,3", "en", ["1", "2", "3"]),
        ("1,234", "en", ["1234"]),
        ("1,234", "ru", ["1.234"]),
        ("range 5-10", "en", ["5", "10"]),
        ("no numbers here", None, []),
    ],
)
def test_numbers_in_text(text: str, lang: str | None, expected: list[str]) -> None:
    assert numbers_in_text(text, lang) == [Decimal(x) for x in expected]


@pytest.mark.parametrize("lang", ["ru", "en"])
@pytest.mark.parametrize(
    "value", [0, 1, -1, 0.5, 12345.678, -98765.4321, Decimal("1e6"), 10**12, Decimal("0.005")]
)
@pytest.mark.parametrize("fmt", ["money", "count", "number", "percent"])
def test_formatted_numbers_parse_back(lang: str, value: object, fmt: str) -> None:
    text = format_value(value, meta(fmt, unit="RUB"), lang)
    found = numbers_in_text(f"x {text} y", lang)
    assert len(found) == 1
    decimals = {"money": 2, "count": 0, "number": 2, "percent": 1}[fmt]
    if fmt == "number" and isinstance(value, int):
        decimals = 0
    expected = Decimal(str(value)).quantize(Decimal(1).scaleb(-decimals), rounding="ROUND_HALF_UP")
    assert found[0] == expected


def test_allowed_numbers_covers_values_summary_and_period_parts() -> None:
    metas = [
        ColumnMeta(
            name="m", role=ColumnRole.PERIOD, label_ru="Месяц", label_en="Month", grain=Grain.MONTH
        ),
        ColumnMeta(
            name="n", role=ColumnRole.METRIC, label_ru="Кол", label_en="N", fmt=ValueFormat.COUNT
        ),
        ColumnMeta(
            name="a", role=ColumnRole.METRIC, label_ru="Ср", label_en="Avg", fmt=ValueFormat.NUMBER
        ),
    ]
    result = QueryResult(
        columns=["m", "n", "a"],
        rows=[
            (date(2025, 1, 1), 100, 1.234),
            (date(2025, 2, 1), 150, 2.5),
            (date(2025, 3, 1), 50, None),
        ],
    )
    allowed = allowed_numbers(result, metas, texts=["показаны первые 20 из 134"])
    for n in [
        "100",
        "150",
        "50",
        "300",
        "1.234",
        "1.23",
        "2.5",
        "2025",
        "1",
        "2",
        "3",
        "20",
        "134",
        "-50",
    ]:
        assert Decimal(n) in allowed, n
    assert Decimal("-50.0") in allowed  # change_pct of n: (50 - 100) / 100
    assert Decimal("3.73") not in allowed  # no total for an average
    assert unverified_numbers("Всего 300, максимум 150, а не 999", result, metas) == [Decimal(999)]


def test_doctests() -> None:
    assert doctest.testmod(numbers).failed == 0
