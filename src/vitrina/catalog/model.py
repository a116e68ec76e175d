"""The knowledge base as typed models: what the warehouse holds and how people name it.

A catalog is a folder of YAML files; see docs/catalog.md for the format. Every model
here forbids unknown keys so a typo in a YAML file is an error with a file and line,
not a silently ignored setting.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


ANY_SEGMENT = "any"  # a topic or dialog not bound to one segment
AUTO_SEGMENT = "auto"  # a dialog that reads the segment from each question
SEGMENT_ID = r"^[a-z][a-z0-9_]{0,31}$"
RESERVED_SEGMENTS = frozenset({ANY_SEGMENT, AUTO_SEGMENT})


class ColumnRole(StrEnum):
    KEY = "key"
    DATE = "date"
    DIMENSION = "dimension"
    MEASURE = "measure"
    ATTRIBUTE = "attribute"


class Topic(_Strict):
    """A subject area: keywords (stems) with weights decide when a question belongs here."""

    id: str
    name_ru: str
    name_en: str
    description: str = ""
    segment: str = ANY_SEGMENT  # any, or a segment id of `catalog.segment_values`
    keywords: dict[str, float] = Field(default_factory=dict)
    tables: list[str] = Field(default_factory=list)
    checklist: list[str] = Field(default_factory=list)

    def name(self, lang: str) -> str:
        return self.name_ru if lang == "ru" else self.name_en

    def serves(self, segment: str | None) -> bool:
        """Whether a dialog scoped to `segment` (a declared id, or None: no scope) may use
        this topic and its metrics: a topic of `any` segment serves every dialog."""
        return segment is None or self.segment in (ANY_SEGMENT, segment)


class Column(_Strict):
    name: str
    type: str = "varchar"
    role: ColumnRole = ColumnRole.ATTRIBUTE
    description: str = ""
    label_ru: str | None = None
    label_en: str | None = None
    synonyms: list[str] = Field(default_factory=list)
    localized: dict[str, str] = Field(
        default_factory=dict
    )  # lang -> column with that language's text
    dictionary: bool = False  # values are a closed list, kept in the dictionaries section
    identified_by: str | None = None  # a key column: names can repeat, so group by the key too
    unit: str | None = None  # RUB, USD, EUR, years, days...: "больше 100 рублей", "older than 60"

    def label(self, lang: str) -> str:
        text = self.label_ru if lang == "ru" else self.label_en
        return text or self.name

    def summary(self) -> dict[str, str | None]:
        """What pickers and tools show of a column (the web API, MCP `describe_table`)."""
        return {
            "name": self.name,
            "type": self.type,
            "role": str(self.role.value),
            "description": self.description,
            "label_ru": self.label_ru,
            "label_en": self.label_en,
        }


class Table(_Strict):
    name: str  # schema-qualified as in the warehouse, e.g. dwh.fact_payment
    description: str = ""
    description_ru: str = ""
    topics: list[str] = Field(default_factory=list)
    columns: list[Column]
    default_date: str | None = None  # the date column a period filter uses
    synonyms: list[str] = Field(
        default_factory=list
    )  # stems naming what a row is ("клиент", "supplier")

    @field_validator("name")
    @classmethod
    def _lower(cls, value: str) -> str:
        return value.strip().lower()

    @model_validator(mode="after")
    def _check_columns(self) -> Table:
        names = [c.name for c in self.columns]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"duplicate columns {dupes} in table {self.name}")
        if self.default_date and self.default_date not in names:
            raise ValueError(f"default_date '{self.default_date}' is not a column of {self.name}")
        for col in self.columns:
            if col.identified_by and col.identified_by not in names:
                raise ValueError(
                    f"column {col.name}: identified_by '{col.identified_by}' is not a "
                    f"column of {self.name}"
                )
            for lang, other in col.localized.items():
                if other not in names:
                    raise ValueError(
                        f"column {col.name}: localized[{lang}] names '{other}', not a "
                        f"column of {self.name}"
                    )
        return self

    def column(self, name: str) -> Column | None:
        """The column named `name`; case-insensitive when no exact match (relations are lower case,
        SQLite and DuckDB names compare case-insensitively)."""
        exact = next((c for c in self.columns if c.name == name), None)
        if exact is not None:
            return exact
        lowered = name.lower()
        return next((c for c in self.columns if c.name.lower() == lowered), None)

    @property
    def short_name(self) -> str:
        return self.name.rsplit(".", 1)[-1]


class Relation(_Strict):
    """A join: `left` (many side) -> `right` (one side), both written table.column."""

    left: str
    right: str
    kind: Literal["many_to_one", "one_to_one"] = "many_to_one"
    default: bool = False  # the usual way to reach `right` when several relation paths lead there

    @field_validator("left", "right")
    @classmethod
    def _qualified(cls, value: str) -> str:
        value = value.strip().lower()
        if value.count(".") < 1:
            raise ValueError(f"'{value}' must be written table.column")
        return value

    @property
    def left_table(self) -> str:
        return self.left.rsplit(".", 1)[0]

    @property
    def left_column(self) -> str:
        return self.left.rsplit(".", 1)[1]

    @property
    def right_table(self) -> str:
        return self.right.rsplit(".", 1)[0]

    @property
    def right_column(self) -> str:
        return self.right.rsplit(".", 1)[1]


class Requirement(_Strict):
    """ "Table X always needs Y": whenever X is used, Y is joined (with the relation's keys)."""

    table: str
    needs: str
    reason: str = ""
    when: Literal["always", "segment"] = "always"


class Metric(_Strict):
    """A named aggregate over one table; the expression uses that table's columns."""

    id: str
    name_ru: str
    name_en: str
    table: str
    expression: str = ""  # required unless numerator and denominator are given
    filter: str | None = None
    numerator: str | None = None  # a ratio of two metrics of the same table (their ids) ...
    denominator: str | None = None  # ... each with its own filter: expression is built
    synonyms: list[str] = Field(default_factory=list)
    # what happens when it counts ("купи", "bought"): a verb next to a noun another metric
    # shares ("сколько треков купили") picks this metric (vitrina.language.verbs)
    verbs: list[str] = Field(default_factory=list)
    # fraction: a 0-1 value (AVG of a flag, a rate) shown as percent; read as percent of
    # `100.0 * (expression)` from here on, so every face shows percent points
    format: Literal["money", "count", "number", "percent", "fraction"] = "number"
    unit: str | None = None
    topic: str | None = None
    date_column: str | None = None  # a column of `table`, or table.column reachable many-to-one
    dates: dict[str, str] = Field(default_factory=dict)  # named dates a question chooses between
    default_date: str | None = None  # which of `dates` a period uses when the question names none
    additive: bool = True  # False for distinct counts, averages and ratios: never totalled
    non_negative: bool = True
    description: str = ""

    @field_validator("table")
    @classmethod
    def _lower(cls, value: str) -> str:
        return value.strip().lower()

    @model_validator(mode="after")
    def _check_ratio(self) -> Metric:
        ratio = (self.numerator is not None, self.denominator is not None)
        if ratio == (True, True):
            if self.expression:
                raise ValueError("give either expression or numerator/denominator, not both")
            self.additive = False
        elif any(ratio):
            raise ValueError("a ratio needs both numerator and denominator")
        elif not self.expression:
            raise ValueError("expression is required (or numerator and denominator)")
        return self

    @model_validator(mode="after")
    def _fraction_as_percent(self) -> Metric:
        if self.format == "fraction":
            if self.expression:
                self.expression = f"100.0 * ({self.expression})"
            self.format = "percent"  # a ratio's expression is built with the percent scale
            self.additive = False
        return self

    @model_validator(mode="after")
    def _check_dates(self) -> Metric:
        if self.default_date and self.default_date not in self.dates:
            raise ValueError(
                f"default_date '{self.default_date}' is not one of dates {sorted(self.dates)}"
            )
        if self.dates and self.date_column:
            raise ValueError("give either date_column or dates (with default_date), not both")
        return self

    def name(self, lang: str) -> str:
        return self.name_ru if lang == "ru" else self.name_en


class Instruction(_Strict):
    id: str
    text: str
    text_ru: str = ""
    tags: list[str] = Field(
        default_factory=list
    )  # topic ids, table names, metric ids; empty = always


class Example(_Strict):
    question: str
    sql: str
    topic: str | None = None


class DictionaryValue(_Strict):
    value: str
    synonyms: list[str] = Field(default_factory=list)
    label_ru: str | None = None  # how answers name the value ("Дебетовая" for "debit")
    label_en: str | None = None

    def label(self, lang: str) -> str:
        return (self.label_ru if lang == "ru" else self.label_en) or self.value


class Dictionary(_Strict):
    """Allowed values of one categorical column, written table.column."""

    column: str
    values: list[DictionaryValue]

    @field_validator("column")
    @classmethod
    def _lower(cls, value: str) -> str:
        return value.strip().lower()

    def labels(self, lang: str) -> dict[str, str]:
        """Stored value -> its label in `lang`, for the values that have one (answers, tables,
        charts and Excel show the label; SQL keeps the value)."""
        found = ((v.value, v.label_ru if lang == "ru" else v.label_en) for v in self.values)
        return {value: label for value, label in found if label}

    @property
    def table(self) -> str:
        return self.column.rsplit(".", 1)[0]

    @property
    def column_name(self) -> str:
        return self.column.rsplit(".", 1)[1]


class CatalogInfo(_Strict):
    name: str = "catalog"
    description: str = ""
    default_segment: str = ANY_SEGMENT
    # the dimension a dialog can be scoped to: table.column, e.g. dwh.dim_client.segment
    segment_column: str | None = None
    segment_values: dict[str, str] = Field(default_factory=dict)  # segment id -> column value
    segment_keywords: dict[str, list[str]] = Field(default_factory=dict)  # segment id -> stems
    segment_name_ru: str | None = None  # what the pickers call the segment ("Сегмент клиентов")
    segment_name_en: str | None = None
    refuse_keywords: list[str] = Field(
        default_factory=list
    )  # stems of things this catalog never holds

    @model_validator(mode="after")
    def _segments_are_declared(self) -> CatalogInfo:
        """Segment ids are the keys of `segment_values`; every other mention must name one."""
        ids = set(self.segment_values)
        bad = sorted(i for i in ids if not re.match(SEGMENT_ID, i) or i in RESERVED_SEGMENTS)
        if bad:
            raise ValueError(
                f"segment ids {bad} must be lower-case words (a-z, 0-9, _) other than "
                f"{sorted(RESERVED_SEGMENTS)}"
            )
        if ids and not self.segment_column:
            raise ValueError("segment_values need segment_column (the table.column they filter)")
        unknown = sorted(set(self.segment_keywords) - ids)
        if unknown:
            raise ValueError(f"segment_keywords name segments {unknown} not in segment_values")
        if self.default_segment not in {ANY_SEGMENT, *ids}:
            raise ValueError(
                f"default_segment '{self.default_segment}' is not 'any' or one of {sorted(ids)}"
            )
        return self

    def segment_ids(self) -> list[str]:
        """The segments a dialog can be scoped to, in the catalog's order."""
        return list(self.segment_values)

    def dialog_segment(self, value: str | None) -> str:
        """`value` as a dialog's segment ('auto' or a segment id); ValueError names the choices.

        >>> CatalogInfo().dialog_segment(None)
        'auto'
        """
        chosen = (value or AUTO_SEGMENT).strip().lower()
        if chosen in (AUTO_SEGMENT, *self.segment_values):
            return chosen
        choices = ", ".join([AUTO_SEGMENT, *self.segment_values])
        raise ValueError(f"unknown segment '{value}': this catalog has {choices}")

    def segment_label(self, segment: str) -> str:
        """How a segment is shown: its value in the warehouse (e.g. 'B2B')."""
        return self.segment_values.get(segment, segment)
