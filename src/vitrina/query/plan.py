"""The typed query plan: what the rules (or later a model) decided to ask the warehouse."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, Field

from vitrina.language.periods import OPEN_START, Period


class PeriodRef(BaseModel):
    """A normalised period: inclusive dates plus labels for the answer."""

    start: date
    end: date
    label_ru: str
    label_en: str
    span: str = ""
    note: str | None = None

    @classmethod
    def of(cls, period: Period) -> PeriodRef:
        """The plan's copy of a period read from a question (its correction note kept)."""
        return cls(
            start=period.start,
            end=period.end,
            label_ru=period.label_ru,
            label_en=period.label_en,
            span=period.span,
            note=period.corrected,
        )

    def label(self, lang: str) -> str:
        return self.label_ru if lang == "ru" else self.label_en

    @property
    def open_start(self) -> bool:
        """ "до 2024 года", "before 2020": no lower bound is written."""
        return self.start == OPEN_START


class Filter(BaseModel):
    table: str
    column: str
    values: list[str]
    label_ru: str
    label_en: str
    value_labels_en: list[str] = Field(default_factory=list)
    value_labels_ru: list[str] = Field(default_factory=list)
    exclude: bool = False  # "без Москвы": every row but these values (rows with no value kept)

    def shown_values(self, lang: str) -> list[str]:
        """The values as an answer in `lang` names them: the dictionary's labels, else as stored."""
        labels = self.value_labels_ru if lang == "ru" else self.value_labels_en
        return labels if len(labels) == len(self.values) else self.values


class Comparison(BaseModel):
    """A number compared with a column of a row (WHERE Total > 10) or with a metric of each
    group (HAVING COUNT(*) > 10): "больше 10 долларов", "more than 10 invoices"."""

    kind: Literal["column", "metric"]
    op: Literal[">", ">=", "<", "<="]
    value: float
    table: str | None = None  # kind column
    column: str | None = None
    metric: str | None = None  # kind metric: a metric id of the plan
    label_ru: str
    label_en: str

    def text(self, lang: str) -> str:
        value = int(self.value) if self.value == int(self.value) else self.value
        return f"{self.label_ru if lang == 'ru' else self.label_en} {self.op} {value}"


class Dimension(BaseModel):
    table: str
    column: str  # the catalog column the user named
    select_column: str  # the column actually selected (a localized twin for English)
    alias: str
    key_column: str | None = None  # grouped and shown too when names can repeat
    label_ru: str
    label_en: str


class Join(BaseModel):
    """One many-to-one join, left (already in the query) -> right (added)."""

    left_table: str
    left_column: str
    right_table: str
    right_column: str
    reason: str = ""


class QueryPlan(BaseModel):
    topic: str
    base_table: str
    metrics: list[str]
    dimensions: list[Dimension] = Field(default_factory=list)
    filters: list[Filter] = Field(default_factory=list)
    period: PeriodRef | None = None
    date_column: str | None = None
    date_table: str | None = None  # the table of date_column when it is not the base table
    date_label_ru: str | None = None  # the date used, named in the answer ("по дате заказа")
    date_label_en: str | None = None
    # the words that chose a date other than the metric's default without naming a date
    # ("shipped by rail": a verb, maybe of the mode): a guess the model's SQL is not refused by
    date_words: str | None = None
    day_kind: Literal["weekend", "weekday"] | None = None  # a calendar filter on the date
    comparisons: list[Comparison] = Field(default_factory=list)
    derived: Literal["share", "per"] | None = None  # the lead metric as a share / per unit
    share_filters: list[Filter] = Field(default_factory=list)  # the part a share is of
    per_table: str | None = None  # "per customer": the table of the counted key
    per_column: str | None = None  # its column counted distinct; None: per row of the base
    derived_label_ru: str | None = None
    derived_label_en: str | None = None
    grain: Literal["day", "week", "month", "quarter", "year"] | None = None
    order: Literal["desc", "asc"] | None = None
    limit: int | None = None
    segment: str | None = None  # the value of the catalog's segment column, e.g. "B2B"
    joins: list[Join] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    # two periods: every metric also for this one, then the change and the change in percent
    compared: PeriodRef | None = None
    # the compared period's part of a plan with a time grain: its dates moved forward this
    # many months before bucketing, so "May 2025" meets "May 2026" on one row (combine.py)
    shift_months: int = 0
    # metrics on other fact tables: each part aggregated on its own (its own joins, filters
    # and date), then joined on the breakdown (vitrina.query.combine), never fact by fact
    parts: list[QueryPlan] = Field(default_factory=list)

    @property
    def combined(self) -> bool:
        """Several aggregates joined on the breakdown: other fact tables or two periods."""
        return bool(self.parts or self.compared)

    @property
    def breakdown(self) -> bool:
        return bool(self.dimensions or self.grain)

    @property
    def date_owner(self) -> str:
        """The table whose column dates the plan."""
        return self.date_table or self.base_table

    @property
    def tables(self) -> list[str]:
        """Every table the plan reads: its own, then those of its parts (each once)."""
        own = [self.base_table, *[j.right_table for j in self.joins]]
        return list(dict.fromkeys([*own, *(t for p in self.parts for t in p.tables)]))
