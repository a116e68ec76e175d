"""What each result column means, so outputs never guess from names alone.

The planner knows which column is a period, a dimension, a metric or an id; it passes
that knowledge to the answer writer, the table, the chart chooser and the Excel export.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel

from vitrina.language.periods.grain import Grain

__all__ = ["ColumnMeta", "ColumnRole", "Grain", "ValueFormat"]


class ColumnRole(StrEnum):
    PERIOD = "period"  # a time bucket: day, week, month, quarter, year (always the X axis)
    DIMENSION = "dimension"  # a category: region, segment, card type
    METRIC = "metric"  # a number to aggregate and plot
    ID = "id"  # an identifier or code: never summed, never plotted as a value
    ATTRIBUTE = "attribute"  # anything else shown as is


class ValueFormat(StrEnum):
    MONEY = "money"
    COUNT = "count"
    NUMBER = "number"
    PERCENT = "percent"
    TEXT = "text"
    DATE = "date"


class ColumnMeta(BaseModel):
    """The meaning of one result column."""

    name: str  # the column name in the result set
    role: ColumnRole
    label_ru: str
    label_en: str
    fmt: ValueFormat = ValueFormat.TEXT
    grain: Grain | None = None  # for PERIOD columns
    unit: str | None = None  # e.g. "RUB"
    non_negative: bool = False  # a metric that can never be negative (counts, amounts)
    additive: bool = True  # False for distinct counts, averages and ratios: never totalled

    def label(self, lang: str) -> str:
        return self.label_ru if lang == "ru" else self.label_en
