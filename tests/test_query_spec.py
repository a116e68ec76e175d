"""The structured entry: a typed spec planned by the same planner a question goes through."""

from __future__ import annotations

import pytest

from vitrina.catalog import load_catalog
from vitrina.config import load_settings
from vitrina.query import (
    PeriodRef,
    QuerySpec,
    SpecFilter,
    build_plan,
    compile_plan,
    plan_from_spec,
    read_question,
)
from vitrina.query.spec import mismatch
from vitrina.trace import Trace

YEAR = PeriodRef(start="2025-01-01", end="2025-12-31", label_ru="2025 год", label_en="2025")


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(load_settings().catalog_dir)


def test_a_spec_plans_as_the_same_question_does(catalog) -> None:
    """Same metric, breakdown, filter and period: the same SQL as the question's plan."""
    reading = read_question("Комиссионный доход по регионам через app", catalog)
    asked = build_plan(
        reading, catalog, topic="payments", lang="ru", period=YEAR, segment=None, trace=Trace("t")
    ).plan
    assert asked is not None
    spec = QuerySpec(
        metrics=["fee_income"],
        breakdowns=[f"{d.table}.{d.column}" for d in asked.dimensions],
        filters=[
            SpecFilter(column=f"{f.table}.{f.column}", values=f.values) for f in asked.filters
        ],
        period=YEAR,
    )
    planned = plan_from_spec(spec, catalog, Trace("t"))
    assert planned.plan is not None, planned.refusal
    assert compile_plan(planned.plan, catalog, "duckdb") == compile_plan(asked, catalog, "duckdb")


def test_a_segment_filter_is_planned_with_its_join(catalog) -> None:
    spec = QuerySpec(
        metrics=["paying_clients"],
        filters=[SpecFilter(column="dwh.dim_client.segment", values=["B2B"])],
        period=YEAR,
    )
    out = plan_from_spec(spec, catalog, Trace("t"))
    assert out.plan is not None, out.refusal
    assert out.plan.segment == "B2B" and "dwh.dim_client" in out.plan.tables
    assert "'B2B'" in compile_plan(out.plan, catalog, "duckdb")


def test_two_metrics_a_grain_a_comparison_and_a_share(catalog) -> None:
    spec = QuerySpec(
        metrics=["fee_income", "paying_clients"],
        grain="month",
        period=YEAR,
        compare_with=PeriodRef(
            start="2024-01-01", end="2024-12-31", label_ru="2024 год", label_en="2024"
        ),
    )
    out = plan_from_spec(spec, catalog, Trace("t"))
    assert out.plan is not None and out.compared is not None, out.refusal
    assert out.plan.metrics == ["fee_income", "paying_clients"] and out.plan.grain == "month"
    assert out.compared.period.label_en == "2024" and out.compared.metrics == out.plan.metrics
    share = plan_from_spec(
        QuerySpec(metrics=["fee_income"], breakdowns=["dwh.dim_region.region_name"], share=True),
        catalog,
        Trace("t"),
    )
    assert share.plan is not None and share.plan.derived == "share", share.refusal


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        (QuerySpec(metrics=["no_such_metric"]), "not a metric"),
        (QuerySpec(metrics=["fee_income"], breakdowns=["dwh.nowhere.x"]), "not a column"),
        (
            QuerySpec(
                metrics=["fee_income"],
                filters=[SpecFilter(column="dwh.dim_client.segment", values=["B2B", "B2C"])],
                date="dwh.dim_region.region_name",
            ),
            "нельзя отнести к дате",
        ),
    ],
)
def test_what_cannot_be_planned_is_refused_with_the_reason(catalog, spec, words) -> None:
    out = plan_from_spec(spec, catalog, Trace("t"))
    assert out.plan is None and words in (out.refusal or ""), out.refusal


def test_a_plan_that_is_not_the_spec_is_named(catalog) -> None:
    """Planted: a plan lacking the spec's filter is reported, the exact one is not."""
    spec = QuerySpec(
        metrics=["paying_clients"],
        filters=[SpecFilter(column="dwh.dim_client.segment", values=["B2B"])],
    )
    good = plan_from_spec(spec, catalog, Trace("t")).plan
    assert good is not None and mismatch(good, spec) is None
    lost = good.model_copy(update={"filters": []})
    assert "dwh.dim_client.segment in (B2B)" in (mismatch(lost, spec) or "")
