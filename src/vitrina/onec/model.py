"""A 1C:Enterprise configuration as typed objects, the same for Designer XML and EDT dumps."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from vitrina.onec.kinds import KINDS

FieldRole = Literal["attribute", "dimension", "resource", "enum_value", "predefined"]


class MetaField(BaseModel):
    """An attribute, dimension, resource or enum value; `types` as written ('CatalogRef.Склады')."""

    name: str
    role: FieldRole = "attribute"
    synonyms: dict[str, str] = Field(default_factory=dict)  # lang -> text
    types: list[str] = Field(default_factory=list)

    def synonym(self, lang: str = "ru") -> str:
        return self.synonyms.get(lang) or next(iter(self.synonyms.values()), "") or self.name

    @property
    def ref_target(self) -> str | None:
        """'Catalog.Склады' for a field typed CatalogRef.Склады (the first reference type)."""
        for t in self.types:
            head, _, name = t.rpartition(":")[2].partition(".")
            if head.endswith("Ref") and name:
                return f"{head[:-3]}.{name}"
        return None

    @property
    def numeric(self) -> bool:
        return any(t.rpartition(":")[2] in ("decimal", "Number") for t in self.types)


class TabularSection(BaseModel):
    name: str
    synonyms: dict[str, str] = Field(default_factory=dict)
    attributes: list[MetaField] = Field(default_factory=list)


class MetaObject(BaseModel):
    """One metadata object (catalog, document, register, enum, report...)."""

    kind: str  # English: AccumulationRegister
    name: str
    synonyms: dict[str, str] = Field(default_factory=dict)
    attributes: list[MetaField] = Field(default_factory=list)
    tabular_sections: list[TabularSection] = Field(default_factory=list)
    dimensions: list[MetaField] = Field(default_factory=list)
    resources: list[MetaField] = Field(default_factory=list)
    enum_values: list[MetaField] = Field(default_factory=list)
    predefined: list[MetaField] = Field(
        default_factory=list
    )  # predefined items; ru synonym = description
    register_type: Literal["Balance", "Turnovers"] | None = None  # accumulation registers
    periodicity: str | None = None  # information registers: Nonperiodical, Second, Day, Month...
    write_mode: str | None = None  # information registers: Independent, RecorderSubordinate
    register_records: list[str] = Field(default_factory=list)  # documents: 'AccumulationRegister.X'
    chart_of_accounts: str | None = None
    templates: list[str] = Field(default_factory=list)
    queries: list[str] = Field(default_factory=list)  # reports: the query texts of their schemas
    file: str = ""

    @property
    def full_name(self) -> str:
        return f"{self.kind}.{self.name}"

    @property
    def ru_name(self) -> str:
        """The name the query language and links use: РегистрНакопления.ТоварыНаСкладах."""
        return f"{KINDS[self.kind].ru}.{self.name}"

    def synonym(self, lang: str = "ru") -> str:
        return self.synonyms.get(lang) or next(iter(self.synonyms.values()), "") or self.name

    @property
    def periodic(self) -> bool:
        return self.kind in (
            "AccumulationRegister",
            "AccountingRegister",
            "CalculationRegister",
        ) or (
            self.kind == "InformationRegister"
            and (self.periodicity or "Nonperiodical") != "Nonperiodical"
        )

    def field(self, name: str) -> MetaField | None:
        for f in (*self.dimensions, *self.resources, *self.attributes):
            if f.name.lower() == name.lower():
                return f
        return None


class OneCWarning(BaseModel):
    """Something read around, not fatal: a missing object file, a file that did not parse."""

    code: Literal["missing_file", "unreadable_file", "unknown_reference", "unsupported_kind"]
    message: str
    name: str = ""
    file: str = ""


class Configuration(BaseModel):
    name: str
    format: Literal["designer", "edt"]
    root: str
    synonyms: dict[str, str] = Field(default_factory=dict)
    listed: dict[str, list[str]] = Field(
        default_factory=dict
    )  # kind -> names listed in the configuration
    objects: dict[str, MetaObject] = Field(default_factory=dict)  # full name -> object
    warnings: list[OneCWarning] = Field(default_factory=list)

    def of_kind(self, kind: str) -> list[MetaObject]:
        return [o for o in self.objects.values() if o.kind == kind]

    def get(self, reference: str) -> MetaObject | None:
        """By 'AccumulationRegister.X' or 'РегистрНакопления.X' (case-insensitive)."""
        from vitrina.onec.kinds import kind_of

        kind, name = kind_of(reference)
        if kind is None:
            return None
        for obj in self.objects.values():
            if obj.kind == kind.name and obj.name.lower() == name.lower():
                return obj
        return None

    def recorders(self, register: str) -> list[str]:
        """Documents that record into a register (full names), from their RegisterRecords."""
        return sorted(
            o.full_name for o in self.of_kind("Document") if register in o.register_records
        )
