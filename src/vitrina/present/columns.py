"""What each result column means, so outputs never guess from names alone.

The planner knows which column is a period, a dimension, a metric or an id; it passes
that knowledge to the answer writer, the table, the chart chooser and the Excel export.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

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
    # a coded column's words (the catalog dictionary's label_ru/label_en): stored value ->
    # label; answers, tables, charts and Excel show the word, SQL keeps the code
    value_labels_ru: dict[str, str] = Field(default_factory=dict)
    value_labels_en: dict[str, str] = Field(default_factory=dict)

    def label(self, lang: str) -> str:
        return self.label_ru if lang == "ru" else self.label_en

    def value_label(self, value: Any, lang: str) -> str:
        """The value as a person reads it: the dictionary's label in `lang`, else as stored."""
        labels = self.value_labels_ru if lang == "ru" else self.value_labels_en
        return labels.get(str(value), str(value)) if labels else str(value)
