"""The rule-written answer: each shape, both languages, and no number that is not in the data."""

from __future__ import annotations

import random
from datetime import date
from decimal import Decimal

import pytest

from vitrina.present import answer_text
from vitrina.present.answer_text import plural_ru, write_answer
from vitrina.present.columns import ColumnMeta, ColumnRole, Grain, ValueFormat
from vitrina.present.numbers import NBSP, allowed_numbers, numbers_in_text
from vitrina.present.summary import summarize
from vitrina.warehouse.result import QueryResult

MONTH = ColumnMeta(
    name="month", role=ColumnRole.PERIOD, label_ru="Месяц", label_en="Month", grain=Grain.MONTH
)
REGION = ColumnMeta(name="region", role=ColumnRole.DIMENSION, label_ru="Регион", label_en="Region")
WALLETS = ColumnMeta(
    name="wallets", role=ColumnRole.METRIC, label_ru="Открыто кошельков", label_en="Wallets opened",
    fmt=ValueFormat.COUNT, non_negative=True,
)  # fmt: skip
AMOUNT = ColumnMeta(
    name="amount",
    role=ColumnRole.METRIC,
    label_ru="Сумма",
    label_en="Amount",
    fmt=ValueFormat.MONEY,
    unit="RUB",
)
AVG = ColumnMeta(
    name="avg",
    role=ColumnRole.METRIC,
    label_ru="Средний чек",
    label_en="Average check",
    fmt=ValueFormat.NUMBER,
)
SHARE = ColumnMeta(
    name="share", role=ColumnRole.METRIC, label_ru="Доля", label_en="Share", fmt=ValueFormat.PERCENT
)
CLIENT = ColumnMeta(name="client_id", role=ColumnRole.ID, label_ru="Клиент", label_en="Client")


def answer(lang: str, result: QueryResult, metas: list[ColumnMeta], **kw: object) -> str:
    kw.setdefault("period_label", None)
    kw.setdefault("topic_label", None)
    kw.setdefault("notes", [])
    return write_answer(lang, result, metas, summarize(result, metas), **kw)  # type: ignore[arg-type]


def test_single_value() -> None:
    r = QueryResult(columns=["wallets"], rows=[(12345,)])
    assert (
        answer("ru", r, [WALLETS], period_label="май 2025")
        == f"Открыто кошельков — 12{NBSP}345 (май 2025)."
    )
    assert (
        answer("en", r, [WALLETS], period_label="May 2025") == "Wallets opened — 12,345 (May 2025)."
    )


def test_single_value_with_its_period_column() -> None:
    r = QueryResult(columns=["month", "wallets"], rows=[(date(2025, 5, 1), 12345)])
    assert (
        answer("ru", r, [MONTH, WALLETS], period_label="май 2025")
        == f"Открыто кошельков — 12{NBSP}345 (май 2025)."
    )


def test_breakdown_total_top_bottom_rows() -> None:
    r = QueryResult(
        columns=["region", "wallets"],
        rows=[("Москва", 500), ("Казань", 20), ("Омск", 70), ("Тверь", 3), ("Сочи", 9)],
    )
    text = answer("ru", r, [REGION, WALLETS])
    assert "5 строк" in text
    assert "Всего — 602" in text
    assert "Больше всего — Москва (500), меньше всего — Тверь (3)" in text
    assert "Лидеры: Москва (500), Омск (70), Казань (20)" in text
    en = answer("en", r, [REGION, WALLETS])
    assert "Total: 602" in en and "Highest: Москва (500); lowest: Тверь (3)" in en


def test_average_gets_no_total() -> None:
    r = QueryResult(columns=["region", "avg"], rows=[("A", 10.5), ("B", 20.25)])
    text = answer("ru", r, [REGION, AVG])
    assert "Всего" not in text and "20,25" in text


def test_series_first_last_max() -> None:
    r = QueryResult(
        columns=["month", "wallets"],
        rows=[(date(2025, m, 1), v) for m, v in [(3, 1500), (1, 1000), (2, 2000)]],  # not in order
    )
    text = answer("ru", r, [MONTH, WALLETS])
    assert f"январь 2025 — 1{NBSP}000, март 2025 — 1{NBSP}500 (изменение +50,0{NBSP}%)" in text
    assert f"Максимум — 2{NBSP}000 (февраль 2025)" in text
    assert "Periods in the result: 3" in answer("en", r, [MONTH, WALLETS])


def test_notes_truncation_and_empty() -> None:
    r = QueryResult(columns=["region", "wallets"], rows=[("A", 1), ("B", 2)], truncated=True)
    text = answer("ru", r, [REGION, WALLETS], notes=["показаны первые 20 из 134 строк"])
    assert "обрезан лимитом строк" in text
    assert text.endswith("Показаны первые 20 из 134 строк.")
    empty = QueryResult(columns=["wallets"], rows=[])
    assert (
        answer("ru", empty, [WALLETS], period_label="май 2025")
        == "Данных не найдено за период май 2025."
    )
    assert answer("en", empty, [WALLETS], topic_label="Wallets").startswith(
        "No data found for “Wallets”"
    )


@pytest.mark.parametrize(
    ("n", "form"),
    [(1, "строка"), (2, "строки"), (5, "строк"), (11, "строк"), (21, "строка"), (112, "строк")],
)
def test_plural_ru(n: int, form: str) -> None:
    assert plural_ru(n, "строка", "строки", "строк") == form


def test_doctests() -> None:
    import doctest

    assert doctest.testmod(answer_text).failed == 0


# --- the property that matters: every number of every answer comes from the data -----------

NAMES = ["Москва", "Санкт-Петербург", "Казань", "Регион 77", "Тверь", "Омск", "Сочи", None]


def _value(rng: random.Random, meta: ColumnMeta) -> object:
    if rng.random() < 0.08:
        return None
    kind = rng.choice(["int", "float", "decimal", "small", "neg"])
    if kind == "int":
        return rng.randint(0, 10**9)
    if kind == "float":
        return rng.uniform(0, 1e7)
    if kind == "decimal":
        return Decimal(rng.randint(-(10**8), 10**8)) / 100
    if kind == "small":
        return rng.choice([0, 0.005, 0.5, 1.005, 2.675, 99.95])
    return -rng.uniform(0, 1e5)


def _random_case(rng: random.Random) -> tuple[QueryResult, list[ColumnMeta]]:
    metas: list[ColumnMeta] = []
    if rng.random() < 0.6:
        grain = rng.choice([Grain.MONTH, Grain.WEEK, Grain.QUARTER, Grain.DAY, Grain.YEAR])
        metas.append(MONTH.model_copy(update={"grain": grain}))
    if rng.random() < 0.5:
        metas.append(REGION)
    if rng.random() < 0.2:
        metas.append(CLIENT)
    metrics = rng.sample([WALLETS, AMOUNT, AVG, SHARE], k=rng.randint(0, 3))
    metas += metrics
    if not metas:
        metas = [WALLETS]
    n = rng.choice([0, 1, 2, 3, 5, 12, 40])
    rows = []
    for i in range(n):
        row: list[object] = []
        for m in metas:
            if m.role is ColumnRole.PERIOD:
                row.append(date(2023 + i // 12, i % 12 + 1, rng.choice([1, 15])))
            elif m.role is ColumnRole.DIMENSION:
                row.append(rng.choice(NAMES))
            elif m.role is ColumnRole.ID:
                row.append(rng.randint(1, 10**12))
            else:
                row.append(_value(rng, m))
        rows.append(tuple(row))
    return QueryResult(
        columns=[m.name for m in metas], rows=rows, truncated=rng.random() < 0.1
    ), metas


@pytest.mark.parametrize("seed", range(300))
def test_every_number_in_a_generated_answer_is_allowed(seed: int) -> None:
    rng = random.Random(seed)
    result, metas = _random_case(rng)
    period = rng.choice([None, "май 2025", "Q2 2025", "01.05.2025–31.05.2025"])
    topic = rng.choice([None, "Кошельки", "Продажи 2024"])
    notes = rng.choice([[], ["показаны первые 20 из 134 строк"], ["Showing first 20 of 1,234"]])
    allowed = allowed_numbers(result, metas, texts=[period, topic, *notes])
    summary = summarize(result, metas)
    for lang in ("ru", "en"):
        text = write_answer(
            lang, result, metas, summary, period_label=period, topic_label=topic, notes=notes
        )
        assert text
        stray = [n for n in numbers_in_text(text, lang) if n not in allowed]
        assert not stray, (text, stray)
