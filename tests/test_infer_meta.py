"""Column meanings for model-written SQL: units come from the catalog, never assumed."""

from __future__ import annotations

from vitrina.catalog.loader import load_catalog
from vitrina.present.columns import ColumnRole, ValueFormat
from vitrina.present.infer_meta import infer_metas
from vitrina.warehouse.result import QueryResult


def test_money_column_of_a_catalog_metric_takes_the_metrics_unit() -> None:
    catalog = load_catalog()
    metric = next(m for m in catalog.metrics.values() if m.format == "money" and m.unit)
    result = QueryResult(columns=[metric.id], rows=[(10.5,), (20,)])
    (meta,) = infer_metas(result, catalog, [], None)
    assert meta.role is ColumnRole.METRIC and meta.fmt is ValueFormat.MONEY
    assert meta.unit == metric.unit


def test_money_looking_column_without_a_metric_gets_no_currency() -> None:
    result = QueryResult(columns=["total_amount"], rows=[(10.5,), (20,)])
    (meta,) = infer_metas(result, load_catalog(), [], None)
    assert meta.fmt is ValueFormat.MONEY
    assert meta.unit is None  # a warehouse in dollars must not be shown in roubles
