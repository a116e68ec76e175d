"""1C query text for a report over one register's virtual table.

Virtual tables aggregate by the register's dimensions already; the query still groups
(a report may select only some dimensions) and sums the resource fields, adds
ПРЕДСТАВЛЕНИЕ() for reference dimensions (what a user reads) and ИТОГИ ... ПО ОБЩИЕ for a
grand total. Field names follow the platform: `<Resource>Остаток` in Остатки,
`<Resource>Оборот` (and Приход/Расход for balance registers) in Обороты.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from vitrina.onec.model import MetaObject

VirtualTable = Literal["Остатки", "Обороты", "ОстаткиИОбороты", "СрезПоследних", ""]
PERIODICITY = {"day": "День", "week": "Неделя", "month": "Месяц", "quarter": "Квартал", "year": "Год"}
SUFFIX = {"Остатки": "Остаток", "Обороты": "Оборот", "ОстаткиИОбороты": "КонечныйОстаток", "СрезПоследних": "",
          "": ""}


@dataclass
class OneCQuery:
    """What to select from which virtual table; `text` and `parameters` are written by `write_query`."""

    register: MetaObject
    virtual_table: VirtualTable
    dimensions: list[str] = field(default_factory=list)  # register dimension names, as in the configuration
    resources: list[str] = field(default_factory=list)
    periodicity: str | None = None  # day|week|month|quarter|year for Обороты: adds the Период field
    totals: bool = True
    text: str = ""
    parameters: dict[str, str] = field(default_factory=dict)  # name -> type and meaning
    fields: list[tuple[str, str, str]] = field(default_factory=list)  # (alias, role, title ru)

    @property
    def source(self) -> str:
        vt = f".{self.virtual_table}" if self.virtual_table else ""
        return f"{self.register.ru_name}{vt}"

    @property
    def alias(self) -> str:
        return f"{self.register.name}{self.virtual_table}"


def resource_field(resource: str, virtual_table: VirtualTable) -> str:
    return f"{resource}{SUFFIX[virtual_table]}"


def _params(q: OneCQuery) -> tuple[str, dict[str, str]]:
    if q.virtual_table in ("Остатки", "СрезПоследних"):
        return "(&Период, )", {"Период": "Дата: остатки (срез) на этот момент"}
    if q.virtual_table in ("Обороты", "ОстаткиИОбороты"):
        grain = PERIODICITY.get(q.periodicity or "", "")
        args = ", ".join(a for a in ("&НачалоПериода", "&КонецПериода", grain) if a)
        return f"({args})", {"НачалоПериода": "Дата: начало периода", "КонецПериода": "Дата: конец периода"}
    return "", {}


def write_query(q: OneCQuery) -> OneCQuery:
    """Fill `text`, `parameters` and `fields` of the query (returns the same object)."""
    args, q.parameters = _params(q)
    alias = q.alias
    select: list[str] = []
    group: list[str] = []
    q.fields = []
    if q.periodicity and q.virtual_table in ("Обороты", "ОстаткиИОбороты"):
        select.append(f"\t{alias}.Период КАК Период")
        group.append(f"\t{alias}.Период")
        q.fields.append(("Период", "period", "Период"))
    for name in q.dimensions:
        dim = q.register.field(name)
        select.append(f"\t{alias}.{name} КАК {name}")
        group.append(f"\t{alias}.{name}")
        q.fields.append((name, "dimension", dim.synonym("ru") if dim else name))
        if dim is not None and dim.ref_target:
            select.append(f"\tПРЕДСТАВЛЕНИЕ({alias}.{name}) КАК {name}Представление")
            q.fields.append((f"{name}Представление", "presentation", f"{dim.synonym('ru')} (представление)"))
    measures = [resource_field(r, q.virtual_table) for r in q.resources]
    aggregate = q.virtual_table != "СрезПоследних"
    for r, m in zip(q.resources, measures, strict=True):
        res = q.register.field(r)
        select.append(f"\tСУММА({alias}.{m}) КАК {m}" if aggregate else f"\t{alias}.{m} КАК {m}")
        q.fields.append((m, "resource", res.synonym("ru") if res else r))
    lines = ["ВЫБРАТЬ", ",\n".join(select), "ИЗ", f"\t{q.source}{args} КАК {alias}"]
    if aggregate and group:
        lines += ["СГРУППИРОВАТЬ ПО", ",\n".join(group)]
    order = (["\tПериод"] if q.fields and q.fields[0][1] == "period" else []) + (
        [f"\t{measures[0]} УБЫВ"] if measures and q.dimensions else [])
    if order:
        lines += ["УПОРЯДОЧИТЬ ПО", ",\n".join(order)]
    if q.totals and aggregate and measures:
        by = ["ОБЩИЕ", *q.dimensions[:1]]
        lines += ["ИТОГИ", ",\n".join(f"\tСУММА({m})" for m in measures), "ПО", ",\n".join(f"\t{b}" for b in by)]
    q.text = "\n".join(lines)
    return q
