"""Numbers, dates and period labels formatted by code, and the numbers found in a text.

Every number a user sees in an answer, a table or a chart label comes from here, so
the Russian and English styles stay the same everywhere. Digits, grouping and currency
symbols are Babel's (CLDR data); rounding is half up, as people round, not Babel's
half-even, and a value that rounds to zero loses its sign:

>>> format_number(1234567.891, 2, "ru")
'1\\xa0234\\xa0567,89'
>>> format_number(1234567.891, 2, "en")
'1,234,567.89'
>>> numbers_in_text("Открыто 12 345 кошельков, доля 7,5 %")
[Decimal('12345'), Decimal('7.5')]
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation, localcontext
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

from babel import Locale
from babel.numbers import NumberPattern, get_currency_symbol, parse_pattern

from vitrina.language.detect import detect_lang
from vitrina.present.columns import ColumnMeta, ColumnRole, Grain, ValueFormat

if TYPE_CHECKING:
    from vitrina.present.summary import ResultSummary
    from vitrina.warehouse.result import QueryResult

Lang = Literal["ru", "en"]

NBSP = "\u00a0"  # thousands separator in Russian output

DASH = "—"  # shown for None / NaN

MONTHS_RU = (
    "январь", "февраль", "март", "апрель", "май", "июнь",
    "июль", "август", "сентябрь", "октябрь", "ноябрь", "декабрь",
)  # fmt: skip
MONTHS_RU_PREP = (
    "январе", "феврале", "марте", "апреле", "мае", "июне",
    "июле", "августе", "сентябре", "октябре", "ноябре", "декабре",
)  # fmt: skip
MONTHS_EN = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
ROMAN = ("I", "II", "III", "IV")

_PLAIN_NUMBER = re.compile(r"^\s*-?\d+(?:\.\d+)?\s*$")
_CURRENCY_CODE = re.compile(r"^[A-Za-z]{3}$")


@cache
def _locale(lang: str) -> Locale:
    return Locale.parse("ru" if lang == "ru" else "en")


@cache
def _pattern(decimals: int) -> NumberPattern:
    return parse_pattern("#,##0" + ("." + "0" * decimals if decimals > 0 else ""))


# --- conversion ---------------------------------------------------------------------


def to_decimal(value: Any) -> Decimal | None:
    """A finite Decimal for int/float/Decimal (and numpy scalars, plain numeric strings).

    Floats go through ``repr`` so 0.005 stays 0.005 (and rounds half up as people expect).
    Bools, NaN, infinities and anything else give None.

    >>> to_decimal(0.005), to_decimal(True), to_decimal(float("nan"))
    (Decimal('0.005'), None, None)
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, Decimal):
        return value if value.is_finite() else None
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(float.__repr__(value)) if math.isfinite(value) else None  # np.float64 too
    if isinstance(value, str):
        return Decimal(value.strip()) if _PLAIN_NUMBER.match(value) else None
    item = getattr(value, "item", None)  # numpy scalars
    if callable(item) and type(value).__module__.startswith("numpy"):
        try:
            return to_decimal(item())
        except (TypeError, ValueError):
            return None
    return None


def is_number(value: Any) -> bool:
    """True for values that format and aggregate as numbers."""
    return to_decimal(value) is not None


def as_date(value: Any) -> date | None:
    """A date for date/datetime values and ISO date strings, else None."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str) and re.match(r"^\d{4}-\d{2}-\d{2}", value):
        try:
            return date.fromisoformat(value[:10])
        except ValueError:
            return None
    return None


# --- numbers ------------------------------------------------------------------------


def format_number(value: Any, decimals: int = 0, lang: Lang | str = "ru") -> str:
    """Group thousands and round half up: ru ``1 234,50`` (U+00A0), en ``1,234.50``.

    >>> format_number(-0.004, 2, "en"), format_number(0.005, 2, "en"), format_number(None)
    ('0.00', '0.01', '—')
    """
    d = to_decimal(value)
    if d is None:
        return DASH
    decimals = max(0, decimals)
    with localcontext() as ctx:
        ctx.prec = max(60, d.adjusted() + decimals + 5)
        ctx.rounding = ROUND_HALF_UP
        q = d.quantize(Decimal(1).scaleb(-decimals))
        return _pattern(decimals).apply(abs(q) if q.is_zero() else q, _locale(str(lang)))


def format_money(value: Any, lang: Lang | str = "ru", unit: str | None = None) -> str:
    """Two decimals with the unit: ru ``1 234,50 ₽`` (CLDR's symbol), en ``RUB 1,234.50``.

    English keeps the ISO code before the number: CLDR's "$" is ambiguous there, and
    Babel writes a code without CLDR's currency spacing ("RUB1,234.50").

    >>> format_money(1234.5, "ru", "RUB"), format_money(1234.5, "ru", "usd")
    ('1\\xa0234,50\\xa0₽', '1\\xa0234,50\\xa0$')
    >>> format_money(-3, "en", "EUR")
    'EUR\\xa0-3.00'
    """
    text = format_number(value, 2, lang)
    if text == DASH or not unit:
        return text
    if lang == "ru":
        code = unit.upper()
        symbol = (
            get_currency_symbol(code, locale=_locale("ru")) if _CURRENCY_CODE.match(unit) else unit
        )
        return f"{text}{NBSP}{symbol}"
    return f"{unit}{NBSP}{text}"


def format_count(value: Any, lang: Lang | str = "ru") -> str:
    """A whole number: ``12 345`` / ``12,345``."""
    return format_number(value, 0, lang)


def format_percent(value: Any, lang: Lang | str = "ru") -> str:
    """Percent points with one decimal: ru ``12,5 %``, en ``12.5%`` (12.5 means 12.5%)."""
    text = format_number(value, 1, lang)
    if text == DASH:
        return text
    return f"{text}{NBSP}%" if lang == "ru" else f"{text}%"


def format_plain(value: Any, lang: Lang | str = "ru") -> str:
    """A NUMBER value: integers as integers, everything else with two decimals."""
    d = to_decimal(value)
    if d is None:
        return DASH
    exponent = d.as_tuple().exponent
    integral = isinstance(value, int) or (
        isinstance(value, Decimal) and isinstance(exponent, int) and exponent >= 0
    )
    return format_number(d, 0 if integral else 2, lang)


# --- dates and periods --------------------------------------------------------------


def format_date(value: Any, lang: Lang | str = "ru") -> str:
    """ru ``01.05.2025``, en ``2025-05-01``; a datetime with a time keeps ``HH:MM``."""
    d = as_date(value)
    if d is None:
        return DASH if value is None else str(value)
    text = d.strftime("%d.%m.%Y") if lang == "ru" else d.isoformat()
    if isinstance(value, datetime) and (value.hour or value.minute or value.second):
        text += f" {value:%H:%M}"
    return text


def month_label(year: int | None, month: int, lang: Lang | str = "ru", *, case: str = "nom") -> str:
    """``май 2025`` / ``May 2025``; ``case="prep"`` gives ``мае 2025`` (for "в мае 2025")."""
    names = MONTHS_EN if lang != "ru" else (MONTHS_RU_PREP if case == "prep" else MONTHS_RU)
    name = names[month - 1]
    return name if year is None else f"{name} {year}"


def quarter_label(year: int | None, quarter: int, lang: Lang | str = "ru") -> str:
    """``II кв. 2025`` / ``Q2 2025``."""
    text = f"{ROMAN[quarter - 1]} кв." if lang == "ru" else f"Q{quarter}"
    return text if year is None else f"{text} {year}"


def week_label(monday: date, lang: Lang | str = "ru") -> str:
    """``нед. 2025-W05 (27.01–02.02)`` / ``2025-W05 (Jan 27 – Feb 2)``."""
    iso = monday.isocalendar()
    start = monday - timedelta(days=monday.weekday())
    end = start + timedelta(days=6)
    code = f"{iso.year}-W{iso.week:02d}"
    if lang == "ru":
        return f"нед. {code} ({start:%d.%m}–{end:%d.%m})"
    first, last = MONTHS_EN[start.month - 1][:3], MONTHS_EN[end.month - 1][:3]
    return f"{code} ({first} {start.day} – {last} {end.day})"


_YM = re.compile(r"^(\d{4})-?(\d{1,2})$")
_YQ = re.compile(r"^(\d{4})\s*-?\s*Q([1-4])$|^Q([1-4])\s*(\d{4})$", re.IGNORECASE)
_YW = re.compile(r"^(\d{4})-?W(\d{1,2})$", re.IGNORECASE)


def format_period(value: Any, grain: Grain | str | None, lang: Lang | str = "ru") -> str:
    """A period value (date, ``2025-05``, ``2025-Q2``, ``2025-W05``, 1..12, 202505) as a label.

    >>> format_period(date(2025, 5, 1), "month", "ru"), format_period(5, "month", "en")
    ('май 2025', 'May')
    >>> format_period("2025-Q2", "quarter", "ru"), format_period(date(2025, 4, 1), "quarter", "en")
    ('II кв. 2025', 'Q2 2025')
    """
    if value is None:
        return DASH
    grain = Grain(grain) if grain else None
    d = as_date(value)
    num = None if d is not None else to_decimal(value)
    n = int(num) if num is not None and num == num.to_integral_value() else None
    text = str(value).strip()
    if grain is Grain.YEAR:
        return str(d.year) if d else (str(n) if n is not None else text)
    if grain is Grain.MONTH:
        if d:
            return month_label(d.year, d.month, lang)
        if n is not None and 1 <= n <= 12:
            return month_label(None, n, lang)
        if n is not None and 100001 <= n <= 999912 and 1 <= n % 100 <= 12:
            return month_label(n // 100, n % 100, lang)
        m = _YM.match(text)
        if m and 1 <= int(m.group(2)) <= 12:
            return month_label(int(m.group(1)), int(m.group(2)), lang)
        return text
    if grain is Grain.QUARTER:
        if d:
            return quarter_label(d.year, (d.month - 1) // 3 + 1, lang)
        if n is not None and 1 <= n <= 4:
            return quarter_label(None, n, lang)
        if n is not None and 10001 <= n <= 99994 and 1 <= n % 10 <= 4:
            return quarter_label(n // 10, n % 10, lang)
        m = _YQ.match(text)
        if m:
            year, q = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
            return quarter_label(int(year), int(q), lang)
        return text
    if grain is Grain.WEEK:
        if d:
            return week_label(d, lang)
        if n is not None and 1 <= n <= 53:
            return f"нед. {n}" if lang == "ru" else f"week {n}"
        m = _YW.match(text)
        if m:
            try:
                return week_label(date.fromisocalendar(int(m.group(1)), int(m.group(2)), 1), lang)
            except ValueError:
                return text
        return text
    if d:
        return format_date(value, lang)
    return text


# --- one value by its column meaning ------------------------------------------------


def format_value(value: Any, meta: ColumnMeta, lang: Lang | str = "ru") -> str:
    """Format one cell by its column meaning; ids are shown as they are, never grouped."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return DASH
    if meta.role is ColumnRole.PERIOD or meta.grain is not None:
        return format_period(value, meta.grain, lang)
    if meta.role is ColumnRole.ID:
        return str(value)
    if isinstance(value, bool):
        return ("да" if value else "нет") if lang == "ru" else ("yes" if value else "no")
    fmt = meta.fmt
    if fmt is ValueFormat.DATE or (
        fmt is ValueFormat.TEXT and as_date(value) and not isinstance(value, str)
    ):
        return format_date(value, lang)
    if not is_number(value) or (fmt is ValueFormat.TEXT and meta.role is not ColumnRole.METRIC):
        return meta.value_label(value, lang)
    if fmt is ValueFormat.MONEY:
        return format_money(value, lang, meta.unit)
    if fmt is ValueFormat.COUNT:
        return format_count(value, lang)
    if fmt is ValueFormat.PERCENT:
        return format_percent(value, lang)
    return format_plain(value, lang)


def metas_for(result: QueryResult, metas: Iterable[ColumnMeta]) -> list[ColumnMeta]:
    """One meta per result column, in result order; a missing one becomes a text attribute."""
    by_name = {m.name: m for m in metas}
    out = []
    for name in result.columns:
        meta = by_name.get(name)
        if meta is None:
            meta = ColumnMeta(name=name, role=ColumnRole.ATTRIBUTE, label_ru=name, label_en=name)
        out.append(meta)
    return out


# --- numbers in a text --------------------------------------------------------------

_SPACES = " \u00a0\u202f\u2009"
_COMMON = (
    r"(?P<word>[^\W\d_]\w*)"  # a word that starts with a letter: Q2, W05, x3 are not numbers
    r"|(?<!\d)(?P<dd>\d{1,2})\.(?P<dm>\d{1,2})\.(?P<dy>\d{4})(?!\d)"  # 01.05.2025
    r"|(?<!\d)(?P<iy>\d{4})-(?P<im>\d{2})(?:-(?P<id>\d{2}))?(?!\d)"  # 2025-05-01, 2025-05
)
_SIGN = r"(?P<sign>(?<![\w.,])[-\u2212])?"
_RU = re.compile(
    _COMMON + r"|" + _SIGN
    + rf"(?P<int>\d{{1,3}}(?:[{_SPACES}]\d{{3}})+(?!\d)|\d+)(?:,(?P<frac>\d+))?"
)  # fmt: skip
_EN = re.compile(
    _COMMON + r"|" + _SIGN + r"(?P<int>\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.(?P<frac>\d+))?"
)


def numbers_in_text(text: str, lang: Lang | str | None = None) -> list[Decimal]:
    """Every number in a text, in Russian or English style (`detect_lang` when no lang).

    Dates give their day, month and year; words such as ``Q2`` or ``W05`` are not numbers.

    >>> numbers_in_text("Revenue RUB 1,234.50 on 2025-05-01, down -3.5%")
    [Decimal('1234.50'), Decimal('2025'), Decimal('5'), Decimal('1'), Decimal('-3.5')]
    """
    if lang is None:
        lang = detect_lang(text)
    pattern = _RU if lang == "ru" else _EN
    out: list[Decimal] = []
    for m in pattern.finditer(text):
        if m.group("word"):
            continue
        if m.group("dy"):
            out += [
                Decimal(int(m.group("dd"))),
                Decimal(int(m.group("dm"))),
                Decimal(int(m.group("dy"))),
            ]
            continue
        if m.group("iy"):
            out += [Decimal(int(m.group("iy"))), Decimal(int(m.group("im")))]
            if m.group("id"):
                out.append(Decimal(int(m.group("id"))))
            continue
        digits = re.sub(r"[^\d]", "", m.group("int"))
        frac = m.group("frac")
        try:
            num = Decimal(f"{digits}.{frac}" if frac else digits)
        except InvalidOperation:  # pragma: no cover - the pattern only lets digits through
            continue
        out.append(num.copy_negate() if m.group("sign") else num)  # exact: no context rounding
    return out


def _period_parts(value: Any) -> list[Decimal]:
    """Year, month, day (and week / quarter numbers) of a period or date value."""
    d = as_date(value)
    if d is None:
        return []
    iso = d.isocalendar()
    parts = [d.year, d.month, d.day, iso.year, iso.week, (d.month - 1) // 3 + 1]
    return [Decimal(p) for p in parts]


SHOWN_ROWS = 1_000  # rows of a result an answer can show (the page's table shows 1,000)


def shown_rows(row_count: int, summary: ResultSummary) -> list[int] | range:
    """The rows an answer can show: the first SHOWN_ROWS (the table, the rows a model sees)
    and the rows the summary names (extremes, first and last, the leaders): the answer of a
    million-row result is still one paragraph, and formatting every distinct cell of it in
    two languages cost a quarter of the turn (issue 38)."""
    if row_count <= SHOWN_ROWS:
        return range(row_count)
    named = {
        r
        for ms in summary.metrics.values()
        for r in (ms.min_row, ms.max_row, ms.first_row, ms.last_row, *ms.top_rows)
        if r is not None
    }
    return [*range(SHOWN_ROWS), *sorted(r for r in named if r >= SHOWN_ROWS)]


def allowed_numbers(
    result: QueryResult,
    metas: Iterable[ColumnMeta],
    *,
    texts: Iterable[str | None] = (),
    summary: ResultSummary | None = None,
) -> set[Decimal]:
    """Every number an answer may contain: the values of the rows it can show (`shown_rows`),
    summary figures over every row, period parts, trusted texts.

    Each value is added raw and as it reads once formatted and rounded (in both languages);
    ``texts`` are trusted strings (period label, topic, notes) whose numbers are allowed too.
    """
    from vitrina.present.summary import summarize  # summary imports this module

    metas = metas_for(result, metas)
    summary = summary or summarize(result, metas)  # the caller's, when it has one
    out: set[Decimal] = set()
    shown = shown_rows(result.row_count, summary)
    take = getattr(result.rows, "take", None)  # a columnar result: one Arrow take
    rows = take(list(shown)) if take is not None else [result.rows[r] for r in shown]

    def add_formatted(value: Any, meta: ColumnMeta) -> None:
        raw = to_decimal(value)
        if raw is not None:
            out.add(raw)
        for lang in ("ru", "en"):
            out.update(numbers_in_text(format_value(value, meta, lang), lang))

    for i, meta in enumerate(metas):
        seen: set[Any] = set()
        for row in rows:
            value = row[i]
            try:
                if value in seen:
                    continue
                seen.add(value)
            except TypeError:  # unhashable: just format it
                pass
            add_formatted(value, meta)
            if meta.role is ColumnRole.PERIOD or meta.fmt is ValueFormat.DATE:
                out.update(_period_parts(value))
    by_name = {m.name: m for m in metas}
    for name, ms in summary.metrics.items():
        meta = by_name[name]
        for value in (ms.total, ms.min, ms.max, ms.first, ms.last, ms.change, ms.mean):
            if value is not None:
                add_formatted(value, meta)
        if ms.change_pct is not None:
            pct = ColumnMeta(
                name="_", role=ColumnRole.METRIC, label_ru="", label_en="", fmt=ValueFormat.PERCENT
            )
            add_formatted(ms.change_pct, pct)
        out.update({Decimal(ms.count), Decimal(ms.nulls)})
    out.add(Decimal(summary.row_count))
    out.update(Decimal(n) for n in summary.distinct.values())
    for text in texts:
        if text:
            for lang in ("ru", "en"):
                out.update(numbers_in_text(text, lang))
    return out


def unverified_numbers(
    text: str,
    result: QueryResult,
    metas: Iterable[ColumnMeta],
    *,
    texts: Iterable[str | None] = (),
    lang: Lang | str | None = None,
    summary: ResultSummary | None = None,
) -> list[Decimal]:
    """The numbers of ``text`` that are not in :func:`allowed_numbers` (empty when all check).

    ``lang`` is the language the text was written in (the question's); without it the text's
    letters decide, which misreads an English answer full of Cyrillic names ("Москва: RUB
    1,000.00" would read as 1.000).
    """
    allowed = allowed_numbers(result, metas, texts=texts, summary=summary)
    return [n for n in numbers_in_text(text, lang) if n not in allowed]
