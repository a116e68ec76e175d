"""Forecast horizons from the words, laid after the last complete month: the table in
tests/data/horizons.yaml, and the plans the rule templates make from them."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
import yaml

from vitrina.task.horizon import last_complete_month, read_horizon
from vitrina.task.plan import template_plan

CASES = yaml.safe_load(
    (Path(__file__).parents[1] / "data" / "horizons.yaml").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("case", CASES, ids=[f"{c['text']}@{c['today']}" for c in CASES])
def test_horizon_words(case):
    last = last_complete_month(case["today"], case["data_end"])
    assert last == case["last"]
    assert list(read_horizon(case["text"], case["today"]).target(last)) == case["months"]


@pytest.mark.parametrize(
    ("request_text", "unit"),
    [
        ("Сравни выпуск карт за октябрь 2026 с прошлым месяцем по типам карт", "month"),
        ("Сравни открытия кошельков за 3 квартал 2026 с прошлым кварталом", "quarter"),
        ("Compare payment volume in Q3 2026 year over year", "year"),
        (
            "Где упали платежи в октябре 2026 по категориям мерчантов?",
            "year",
        ),  # a fall with no words: a year back
    ],
)
def test_the_template_compares_with_the_period_the_words_name(request_text, unit):
    plan = template_plan(request_text, 8, today=date(2026, 11, 30))
    assert plan[1].args == {"shift_from_step": 1, "unit": unit}
    assert plan[2].args == {"kind": "compare", "step": 1, "other_step": 2}


def test_a_forecast_request_asks_its_noun_and_the_horizon_it_names():
    plan = template_plan(
        "Сделай прогноз открытий кошельков на следующий месяц", 8, today=date(2026, 12, 1)
    )
    assert [s.tool for s in plan] == ["ask", "ask", "analyze", "write_file"]
    assert plan[0].args == {"question": "Открытий кошельков"}
    assert plan[1].args == {"series_from_step": 1, "months": 24}
    assert plan[2].args["target"] == {
        "kind": "months",
        "months": 1,
        "start": None,
        "end": None,
        "words": "следующий месяц",
    }
    assert "следующий месяц" in plan[2].title
