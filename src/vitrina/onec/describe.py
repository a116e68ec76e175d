"""Answers read from the metadata alone, not from a register: what an object holds (its
attributes, with a query that selects them) and which of the configuration's reports read
a subject (the objects their schema queries name).

A catalog's attributes are no report: the answer lists them and writes
`ВЫБРАТЬ Ссылка, Код, Наименование, <attributes> ИЗ Справочник.X`, never a bare
`ВЫБРАТЬ X.Ссылка` (issue 33).
"""

from __future__ import annotations

import re

from vitrina.onec.kinds import KINDS
from vitrina.onec.model import Configuration, MetaObject

# the standard attributes every object of a kind has, before its own (name, title)
STANDARD: dict[str, tuple[tuple[str, str], ...]] = {
    "Catalog": (("Ссылка", "Ссылка"), ("Код", "Код"), ("Наименование", "Наименование")),
    "Document": (("Ссылка", "Ссылка"), ("Номер", "Номер"), ("Дата", "Дата")),
    "ChartOfCharacteristicTypes": (("Ссылка", "Ссылка"), ("Наименование", "Наименование")),
    "InformationRegister": (),
    "AccumulationRegister": (("Период", "Период"), ("Регистратор", "Регистратор")),
}
SOURCE = re.compile(
    r"\b(" + "|".join(k.ru for k in KINDS.values() if k.data) + r")\.([^\W\d]\w*)(?:\.(\w+))?",
    re.IGNORECASE,
)


def own_fields(obj: MetaObject) -> list[str]:
    """The object's own fields in the order of the configuration: dimensions, resources,
    attributes (a register), attributes (a catalog or a document)."""
    return [f.name for f in (*obj.dimensions, *obj.resources, *obj.attributes)]


def attributes_query(obj: MetaObject) -> str:
    """A query that selects the object's standard and own attributes, one row per item."""
    alias = obj.name
    names = [n for n, _ in STANDARD.get(obj.kind, ())] + own_fields(obj)
    if not names:
        names = ["Ссылка"]
    select = ",\n".join(f"\t{alias}.{n} КАК {n}" for n in dict.fromkeys(names))
    return f"ВЫБРАТЬ\n{select}\nИЗ\n\t{obj.ru_name} КАК {alias}"


def report_sources(report: MetaObject, config: Configuration) -> list[tuple[MetaObject, str]]:
    """The objects (and virtual tables, "" for a plain table) the report's queries read."""
    out: list[tuple[MetaObject, str]] = []
    for text in report.queries:
        for kind, name, vt in SOURCE.findall(text):
            obj = config.get(f"{kind}.{name}")
            if obj is not None and (obj, vt) not in out:
                out.append((obj, vt))
    return out
