"""`vitrina.query.request.plan_request`: a request read once into a plan without its comparison;
an exclusion is a filter that keeps the other values; what the rules cannot read gives no plan
(with the reason), never a wider or opposite one. Demo catalog, "today" 30.11.2026."""

from __future__ import annotations

from datetime import date

import pytest

from vitrina.catalog import load_catalog
from vitrina.config import load_settings
from vitrina.query.request import plan_request
from vitrina.trace import Trace

TODAY = date(2026, 11, 30)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(load_settings().catalog_dir)


def _filters(plan) -> list[tuple[str, list[str], bool]]:
    return [(f.column, f.values, f.exclude) for f in plan.filters]


def test_a_comparison_is_left_to_the_derived_steps(catalog):
    found = plan_request(
        "Сумма платежей по платёжным системам за октябрь 2026 с прошлым годом",
        catalog,
        TODAY,
        "ru",
        Trace("t"),
    )
    assert found.plan is not None and found.comparison is not None
    assert found.comparison.unit == "year" and found.plan.compared is None
    assert [d.column for d in found.plan.dimensions] == ["payment_system"]
    assert (found.plan.period.start, found.plan.period.end) == (
        date(2026, 10, 1),
        date(2026, 10, 31),
    )


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Сумма платежей без Москвы за октябрь 2026", [("region_name", ["Москва"], True)]),
        ("Payment amount excluding Moscow for October 2026", [("region_name", ["Москва"], True)]),
        (
            "Сумма платежей кроме Москвы и Казани за октябрь 2026",
            [("region_name", ["Москва", "Республика Татарстан"], True)],
        ),
        ("Сумма платежей в Москве за октябрь 2026", [("region_name", ["Москва"], False)]),
    ],
)
def test_filters_and_exclusions(catalog, text, expected):
    found = plan_request(text, catalog, TODAY, "ru", Trace("t"))
    assert found.plan is not None, found.reason
    assert _filters(found.plan) == expected


@pytest.mark.parametrize(
    "text, reason",
    [
        ("Сумма платежей без учёта возвратов за октябрь 2026", "not a value"),
        ("Сумма платежей в Москве без Казани за октябрь 2026", "kept and excluded"),
        ("Сумма платежей клиентов старше 60 лет за октябрь 2026", "старше, 60, лет"),
        ("Погода в Москве за октябрь 2026", ""),
    ],
)
def test_what_the_rules_cannot_read_gives_no_plan(catalog, text, reason):
    found = plan_request(text, catalog, TODAY, "ru", Trace("t"))
    assert found.plan is None and found.reason and reason in found.reason
