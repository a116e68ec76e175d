"""Four analytical tasks as a user writes them, run in rules mode on the demo warehouse, each
number checked against SQL written apart from the planner (and a forecast against a fit of
our own). "Today" is 30.11.2026: November is not over, October is the last whole month."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from itertools import pairwise

import numpy as np
import pytest

from vitrina.task.tables import load_table

pytestmark = pytest.mark.usefixtures("sandbox_required")


def _table(view, n):
    return load_table(next(s for s in view.plan if s.n == n).last_table().data)


def _cents(value) -> Decimal:
    return Decimal(str(value)).quantize(Decimal("0.01"))


def test_comparison_with_last_year(make_task, sql):
    view = make_task().run("Сравни выпуск карт по типам карт за октябрь 2026 с прошлым годом")
    assert [s.status for s in view.plan] == ["done"] * 4
    want = {
        t: (a, b)
        for t, a, b in sql(
            "SELECT card_type, COUNT(*) FILTER (WHERE issue_date BETWEEN '2026-10-01' "
            "AND '2026-10-31'), "
            "COUNT(*) FILTER (WHERE issue_date BETWEEN '2025-10-01' AND '2025-10-31') "
            "FROM dwh.fact_card_issue GROUP BY 1"
        )
    }
    got = {r[0]: (r[1], r[2], r[4]) for r in _table(view, 3).rows}
    assert got == {t: (a, b, round((a - b) / b * 100, 1)) for t, (a, b) in want.items()}
    total, before = sum(a for a, _ in want.values()), sum(b for _, b in want.values())
    assert f"октябрь 2026 — {total:,}".replace(",", "\u00a0") in view.summary
    assert f"октябрь 2025 — {before:,}".replace(",", "\u00a0") in view.summary


def test_a_24_month_series_keeps_whole_months_only(make_task, sql):
    view = make_task().run(
        "Покажи помесячную динамику суммы платежей за последние 24 месяца и посчитай рост "
        "от месяца к месяцу"
    )
    want = sql(
        "SELECT DATE_TRUNC('month', payment_date)::DATE, SUM(amount_rub) FROM dwh.fact_payment "
        "WHERE status = 'success' AND payment_date >= '2024-12-01' AND payment_date < '2026-11-01' "
        "GROUP BY 1 ORDER BY 1"
    )
    series = _table(view, 1)
    assert [(r[0], _cents(r[1])) for r in series.rows] == want, (
        "23 whole months: November 2026 is not over"
    )
    assert "ноябрь 2026" in next(s for s in view.plan if s.n == 1).report
    growth = _table(view, 2)
    assert [r[3] for r in growth.rows[1:]] == [
        round(float((b - a) / a * 100), 1) for (_, a), (_, b) in pairwise(want)
    ]


def test_a_forecast_for_next_month(make_task, sql):
    holtwinters = pytest.importorskip(
        "statsmodels.tsa.holtwinters",
        reason="statsmodels is the 'forecast' extra (pip install 'vitrina[forecast]'); without "
        "it a forecast is a least-squares line, tested by tests/task/test_redo.py",
    )
    ExponentialSmoothing = holtwinters.ExponentialSmoothing

    view = make_task().run("Сделай прогноз открытий кошельков на следующий месяц")
    want = sql(
        "SELECT DATE_TRUNC('month', open_date)::DATE, COUNT(*) FROM dwh.fact_wallet_opening "
        "WHERE open_date >= '2024-11-01' AND open_date < '2026-11-01' GROUP BY 1 ORDER BY 1"
    )
    assert [tuple(r) for r in _table(view, 2).rows] == [tuple(r) for r in want]
    fit = ExponentialSmoothing(
        np.array([float(n) for _, n in want]),
        trend="add",
        damped_trend=True,
        initialization_method="estimated",
    ).fit()
    ((month, value),) = _table(view, 3).rows
    assert month == date(2026, 11, 1), "one month, right after October, the last whole month"
    assert round(value, 2) == round(float(fit.forecast(1)[0]), 2)
    assert "Хольт с затухающим трендом" in view.summary and "φ =" in view.summary


def test_find_the_drop_month_over_month(make_task, sql):
    view = make_task().run("В каких типах карт упал выпуск в октябре 2026 к прошлому месяцу?")
    assert [s.status for s in view.plan] == ["done"] * 5
    want = {
        t: (a, b)
        for t, a, b in sql(
            "SELECT card_type, COUNT(*) FILTER (WHERE issue_date BETWEEN '2026-10-01' "
            "AND '2026-10-31'), "
            "COUNT(*) FILTER (WHERE issue_date BETWEEN '2026-09-01' AND '2026-09-30') "
            "FROM dwh.fact_card_issue GROUP BY 1"
        )
    }
    fell = [(r[0], r[1], r[2]) for r in _table(view, 4).rows]
    assert fell == [(t, a, b) for t, (a, b) in want.items() if a < b] and fell
    name, now, before = fell[0]
    assert f"Снизилось 1 из 3: {name} {now - before}" in view.summary
