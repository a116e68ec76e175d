"""Column meanings for SQL a model wrote: from the catalog where a column is known, from
the values otherwise. Rule SQL gets its meanings from the plan instead."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from vitrina.catalog import Catalog
from vitrina.catalog.model import ColumnRole as CatalogRole
from vitrina.catalog.model import Dictionary
from vitrina.present.columns import ColumnMeta, ColumnRole, Grain, ValueFormat
from vitrina.warehouse.result import QueryResult

MONEY = (
    "amount",
    "sum",
    "revenue",
    "rub",
    "fee",
    "gmv",
    "turnover",
    "ticket",
    "volume",
    "выручк",
    "сумм",
)
COUNTS = (
    "count",
    "cnt",
    "num",
    "qty",
    "number",
    "opened",
    "issued",
    "clients",
    "users",
    "количеств",
)
PERCENT = ("rate", "share", "pct", "percent", "ratio", "доля")


def _grain(values: list[date]) -> Grain:
    if all(v.month == 1 and v.day == 1 for v in values):
        return Grain.YEAR
    if all(v.day == 1 and v.month in (1, 4, 7, 10) for v in values) and len(values) > 1:
        return Grain.QUARTER
    if all(v.day == 1 for v in values):
        return Grain.MONTH
    if all(v.weekday() == 0 for v in values) and len(values) > 1:
        return Grain.WEEK
    return Grain.DAY


def infer_metas(
    result: QueryResult, catalog: Catalog, tables: list[str], grain: str | None
) -> list[ColumnMeta]:
    known = {c.name: c for t in tables if t in catalog.tables for c in catalog.tables[t].columns}
    metas = []
    for index, name in enumerate(result.columns):
        values = [row[index] for row in result.rows if row[index] is not None]
        lower = name.lower()
        column = known.get(lower)
        metric = catalog.metrics.get(lower)
        label_ru = metric.name_ru if metric else column.label("ru") if column else name
        label_en = metric.name_en if metric else column.label("en") if column else name
        if values and all(isinstance(v, date) for v in values):
            days = [v.date() if isinstance(v, datetime) else v for v in values]
            metas.append(
                ColumnMeta(
                    name=name,
                    role=ColumnRole.PERIOD,
                    label_ru=label_ru,
                    label_en=label_en,
                    fmt=ValueFormat.DATE,
                    grain=Grain(grain) if grain else _grain(days),
                )
            )
        elif (
            lower == "id"
            or lower.endswith("_id")
            or (column is not None and column.role is CatalogRole.KEY)
        ):
            metas.append(
                ColumnMeta(name=name, role=ColumnRole.ID, label_ru=label_ru, label_en=label_en)
            )
        elif values and all(
            isinstance(v, int | float | Decimal) and not isinstance(v, bool) for v in values
        ):
            fmt = (
                {
                    "money": ValueFormat.MONEY,
                    "count": ValueFormat.COUNT,
                    "percent": ValueFormat.PERCENT,
                }.get(metric.format, ValueFormat.NUMBER)
                if metric
                else ValueFormat.PERCENT
                if any(w in lower for w in PERCENT)
                else ValueFormat.MONEY
                if any(w in lower for w in MONEY)
                else ValueFormat.COUNT
                if any(w in lower for w in COUNTS)
                else ValueFormat.NUMBER
            )
            metas.append(
                ColumnMeta(
                    name=name,
                    role=ColumnRole.METRIC,
                    label_ru=label_ru,
                    label_en=label_en,
                    fmt=fmt,
                    unit=(metric.unit if metric else None) if fmt is ValueFormat.MONEY else None,
                    additive=metric.additive
                    if metric
                    else fmt in (ValueFormat.MONEY, ValueFormat.COUNT),
                    non_negative=fmt in (ValueFormat.COUNT,),
                )
            )
        else:
            words = _dictionary(catalog, tables, lower)
            metas.append(
                ColumnMeta(
                    name=name,
                    role=ColumnRole.DIMENSION,
                    label_ru=label_ru,
                    label_en=label_en,
                    value_labels_ru=words.labels("ru") if words else {},
                    value_labels_en=words.labels("en") if words else {},
                )
            )
    return metas


def _dictionary(catalog: Catalog, tables: list[str], column: str) -> Dictionary | None:
    """The dictionary of a result column named like a column of the query's tables."""
    return next((d for t in tables if (d := catalog.dictionary_for(t, column)) is not None), None)
