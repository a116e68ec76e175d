"""One verified query as a typed model: its wordings, its SQL with typed placeholders, who
verified it and when, and the fingerprint of the tables and columns it read then.

The SQL marks what a new question may change as placeholders ``{{name:type}}``:

* ``{{period_start:date}}`` / ``{{period_end:date}}``: the first and the last day of the
  question's period (inclusive); ``{{period_until:date}}`` the day after the last one (for
  ``< until`` on a timestamp); ``period2_*``: a second period named later in the question;
* ``{{top_n:int}}``: the N of "top N";
* ``{{name:value(table.column)}}``: a value of that column's dictionary named in the
  question ("Rock", "BRAZIL").

A placeholder stands where a literal would (never inside quotes): it is replaced by a
literal that sqlglot renders for the warehouse's dialect, never pasted as text.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from vitrina.query.verified.texts import Bilingual

PLACEHOLDER = re.compile(r"\{\{\s*([a-z][a-z0-9_]*)\s*:\s*([a-z]+)(?:\(([^)]*)\))?\s*\}\}")
ENTRY_ID = r"^[a-z0-9][a-z0-9_-]{0,79}$"
DATE_NAMES = {
    "period_start",
    "period_end",
    "period_until",
    "period2_start",
    "period2_end",
    "period2_until",
}
Status = Literal["verified", "pending", "stale"]


class Param(BaseModel):
    """One placeholder of an entry's SQL."""

    name: str
    type: Literal["date", "int", "value"]
    column: str | None = None  # value(table.column): the dictionary column

    @property
    def period(self) -> int:
        """Which period of the question a date reads (1 or 2); 0 for other types."""
        if self.type != "date":
            return 0
        return 2 if self.name.startswith("period2_") else 1


class ParamError(Bilingual):
    """A placeholder that cannot be used: what is wrong, in English and Russian."""


def parse_params(sql: str) -> list[Param]:
    """The placeholders of `sql`, in order, each name once; ParamError for a bad one."""
    out: dict[str, Param] = {}
    for m in PLACEHOLDER.finditer(sql):
        name, kind, arg = m.group(1), m.group(2), m.group(3)
        if kind == "date" and name not in DATE_NAMES:
            raise ParamError(
                f"date placeholder {name!r}: use one of {', '.join(sorted(DATE_NAMES))}",
                f"параметр даты {name!r}: допустимы {', '.join(sorted(DATE_NAMES))}",
            )
        if kind == "value" and not (arg and arg.count(".") >= 1):
            raise ParamError(
                f"value placeholder {name!r} needs its column: {{{{{name}:value(table.column)}}}}",
                f"параметру значения {name!r} нужна колонка: {{{{{name}:value(таблица.колонка)}}}}",
            )
        if kind not in ("date", "int", "value"):
            raise ParamError(
                f"placeholder {name!r} has unknown type {kind!r} (date, int, value(column))",
                f"у параметра {name!r} неизвестный тип {kind!r} (date, int, value(колонка))",
            )
        param = Param(name=name, type=kind, column=arg.strip() if arg else None)  # type: ignore[arg-type]
        if name in out and out[name] != param:
            raise ParamError(
                f"placeholder {name!r} is declared with two types",
                f"параметр {name!r} объявлен с двумя типами",
            )
        out[name] = param
    leftover = PLACEHOLDER.sub("", sql)
    if "{{" in leftover or "}}" in leftover:
        raise ParamError(
            "a '{{' placeholder is not of the form {{name:type}}",
            "параметр в '{{' записан не в виде {{имя:тип}}",
        )
    return list(out.values())


class ColumnMeaning(BaseModel):
    """What one result column means, for the answer's reader."""

    model_config = ConfigDict(extra="forbid")
    name: str
    en: str = ""
    ru: str = ""


class Fingerprint(BaseModel):
    """The tables and columns the SQL read when it was verified (catalog names, lower case),
    and their types in the catalog: a change of any of them makes the entry stale."""

    model_config = ConfigDict(extra="forbid")
    columns: dict[str, list[str]] = Field(default_factory=dict)  # table -> ["col:type", ...]


class Entry(BaseModel):
    """A question people ask again, with the SQL an analyst checked."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=ENTRY_ID)
    wordings_en: list[str] = Field(default_factory=list)
    wordings_ru: list[str] = Field(default_factory=list)
    sql: str
    columns: list[ColumnMeaning] = Field(default_factory=list)
    verified_by: str = ""
    verified_at: date | None = None
    status: Status = "pending"
    stale_reason: str | None = None
    fingerprint: Fingerprint = Field(default_factory=Fingerprint)
    source: str | None = None  # where it came from: a ticket id, a run id, "cli"
    note: str | None = None  # the reviewer's or the importer's note

    @field_validator("sql")
    @classmethod
    def _placeholders_parse(cls, sql: str) -> str:
        parse_params(sql)
        return sql

    @model_validator(mode="after")
    def _has_wording(self) -> Entry:
        if not (self.wordings_en or self.wordings_ru):
            raise ValueError("an entry needs at least one wording (wordings_en or wordings_ru)")
        if self.status == "verified" and not self.verified_by:
            raise ValueError("a verified entry names who verified it (verified_by)")
        return self

    @property
    def params(self) -> list[Param]:
        return parse_params(self.sql)

    @property
    def wordings(self) -> list[str]:
        return [*self.wordings_en, *self.wordings_ru]

    def usable(self) -> bool:
        """Only an entry a person verified, and not stale, ever answers."""
        return self.status == "verified"
