"""1C query text for a report over one object: a register's virtual table or a plain table.

Virtual tables aggregate by the register's dimensions already; the query still groups
(a report may select only some dimensions) and sums the resource fields, and adds
ПРЕДСТАВЛЕНИЕ() for reference fields (what a user reads). Request filters go where the
platform applies them first: into the virtual table's condition parameter
(`Остатки(&Период, Склад = ЗНАЧЕНИЕ(Справочник.Склады.ОсновнойСклад))`), or into ГДЕ for a
plain table. Field names follow the platform: `<Resource>Остаток` in Остатки,
`<Resource>Оборот` (and Приход/Расход for balance registers) in Обороты. No ИТОГИ unless
asked: a data composition schema computes totals from its resources, and the platform's
own schemas carry none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from vitrina.onec.model import MetaObject

VirtualTable = Literal["Остатки", "Обороты", "ОстаткиИОбороты", "СрезПоследних", ""]
PERIODICITY = {
    "day": "День",
    "week": "Неделя",
    "month": "Месяц",
    "quarter": "Квартал",
    "year": "Год",
}
SUFFIX = {
    "Остатки": "Остаток",
    "Обороты": "Оборот",
    "ОстаткиИОбороты": "КонечныйОстаток",
    "СрезПоследних": "",
    "": "",
}
# where the condition goes among a virtual table's parameters (0-based slot)
CONDITION_SLOT = {"Остатки": 1, "СрезПоследних": 1, "Обороты": 3, "ОстаткиИОбороты": 4}
MOVEMENTS = ("Приход", "Расход")
# a register's records: the standard fields every record has (ВидДвижения: balance registers)
RECORD_FIELDS = (
    ("Период", "Период"),
    ("Регистратор", "Регистратор"),
    ("ВидДвижения", "Вид движения"),
)


@dataclass
class Condition:
    """`<field> = <expression>`: a request filter placed on a field of the object."""

    field: str
    expression: str  # ЗНАЧЕНИЕ(...), ИСТИНА, or &Parameter
    says: str = ""  # the request's words it came from
    parameter: str | None = None  # a parameter the expression needs (its name)
    parameter_type: str = ""
    parameter_value: str = ""
    where: bool = False  # in ГДЕ, not the virtual table's condition (a filter by a name)

    @property
    def text(self) -> str:
        return f"{self.field} = {self.expression}"


@dataclass
class OneCQuery:
    """What to select from which table; `text`, `parameters` and `fields` are written by
    `write_query`."""

    register: MetaObject  # the object read: a register, a document or a catalog
    virtual_table: VirtualTable
    dimensions: list[str] = field(default_factory=list)  # field names, as in the configuration
    resources: list[str] = field(default_factory=list)
    periodicity: str | None = None  # day|week|month|quarter|year for Обороты: adds the Период field
    totals: bool = False
    conditions: list[Condition] = field(default_factory=list)
    movements: bool = False  # Приход/Расход of a balance register's Обороты instead of Оборот
    dated: bool = False  # a plain document table limited to the period by its Дата
    text: str = ""
    parameters: dict[str, str] = field(default_factory=dict)  # name -> "type: meaning"
    fields: list[tuple[str, str, str]] = field(default_factory=list)  # (alias, role, title ru)

    @property
    def source(self) -> str:
        vt = f".{self.virtual_table}" if self.virtual_table else ""
        return f"{self.register.ru_name}{vt}"

    @property
    def alias(self) -> str:
        return f"{self.register.name}{self.virtual_table}"

    @property
    def records(self) -> bool:
        """A register's own table: its records (движения) with their recorder, not a total."""
        return self.virtual_table == "" and self.register.kind in (
            "AccumulationRegister",
            "AccountingRegister",
        )

    @property
    def aggregate(self) -> bool:
        if self.records:
            return False
        return self.register.kind in ("AccumulationRegister", "AccountingRegister") or (
            self.virtual_table == ""
            and bool(self.resources)
            and self.register.kind == "InformationRegister"
        )


def resource_field(resource: str, virtual_table: VirtualTable) -> str:
    return f"{resource}{SUFFIX[virtual_table]}"


def resource_fields(q: OneCQuery) -> list[tuple[str, str]]:
    """(resource, field name in the table) for each resource the query selects."""
    if (
        q.movements
        and q.virtual_table in ("Обороты", "ОстаткиИОбороты")
        and q.register.register_type == "Balance"
    ):
        return [(r, f"{r}{m}") for r in q.resources for m in MOVEMENTS]
    return [(r, resource_field(r, q.virtual_table)) for r in q.resources]


def _params(q: OneCQuery) -> tuple[list[str], dict[str, str]]:
    if q.virtual_table in ("Остатки", "СрезПоследних"):
        meaning = (
            "Граница: остатки на конец этого дня, включая его движения"
            if q.virtual_table == "Остатки"
            else "Дата: последние значения на конец этого дня"
        )
        return ["&Период", ""], {"Период": meaning}
    params = {
        "НачалоПериода": "Дата: начало периода",
        "КонецПериода": "Дата: конец периода (конец дня)",
    }
    if q.virtual_table in ("Обороты", "ОстаткиИОбороты"):
        grain = PERIODICITY.get(q.periodicity or "", "")
        args = ["&НачалоПериода", "&КонецПериода", grain]
        if q.virtual_table == "ОстаткиИОбороты":
            args.append("ДвиженияИГраницыПериода" if grain else "")
        args.append("")
        return args, params
    return [], params if q.dated else {}


def write_query(q: OneCQuery) -> OneCQuery:
    """Fill `text`, `parameters` and `fields` of the query (returns the same object)."""
    args, q.parameters = _params(q)
    for c in q.conditions:
        if c.parameter:
            q.parameters[c.parameter] = f"{c.parameter_type}: {c.says}"
    alias = q.alias
    select: list[str] = []
    group: list[str] = []
    q.fields = []
    if q.periodicity and q.virtual_table in ("Обороты", "ОстаткиИОбороты"):
        select.append(f"\t{alias}.Период КАК Период")
        group.append(f"\t{alias}.Период")
        q.fields.append(("Период", "period", "Период"))
    if q.register.kind == "Document" and not q.virtual_table:
        for name, title in (("Ссылка", "Документ"), ("Дата", "Дата")):
            select.append(f"\t{alias}.{name} КАК {name}")
            q.fields.append((name, "period" if name == "Дата" else "dimension", title))
    if q.records:
        for name, title in RECORD_FIELDS:
            if name == "ВидДвижения" and q.register.register_type != "Balance":
                continue
            select.append(f"\t{alias}.{name} КАК {name}")
            q.fields.append((name, "period" if name == "Период" else "dimension", title))
    for name in q.dimensions:
        dim = q.register.field(name)
        select.append(f"\t{alias}.{name} КАК {name}")
        group.append(f"\t{alias}.{name}")
        q.fields.append((name, "dimension", dim.synonym("ru") if dim else name))
        if dim is not None and dim.ref_target:
            select.append(f"\tПРЕДСТАВЛЕНИЕ({alias}.{name}) КАК {name}Представление")
            q.fields.append(
                (f"{name}Представление", "presentation", f"{dim.synonym('ru')} (представление)")
            )
    measures = resource_fields(q)
    for r, m in measures:
        res = q.register.field(r)
        title = res.synonym("ru") if res else r
        if m.endswith(MOVEMENTS):
            title = f"{title} ({'приход' if m.endswith('Приход') else 'расход'})"
        select.append(f"\tСУММА({alias}.{m}) КАК {m}" if q.aggregate else f"\t{alias}.{m} КАК {m}")
        q.fields.append((m, "resource", title))
    if not select:
        select.append(f"\t{alias}.Ссылка КАК Ссылка")
        q.fields.append(("Ссылка", "dimension", q.register.synonym("ru")))
    conditions = [c.text for c in q.conditions if not c.where]
    slot = CONDITION_SLOT.get(q.virtual_table)
    if slot is not None:
        args[slot] = " И ".join(conditions)
        conditions = []
    conditions += [c.text for c in q.conditions if c.where]
    source = f"\t{q.source}({', '.join(args)})" if q.virtual_table else f"\t{q.source}"
    lines = ["ВЫБРАТЬ", ",\n".join(select), "ИЗ", f"{source} КАК {alias}"]
    if q.dated and not q.virtual_table:
        date_field = "Дата" if q.register.kind == "Document" else "Период"
        conditions.append(f"{alias}.{date_field} МЕЖДУ &НачалоПериода И &КонецПериода")
    if conditions:
        where = [c if c.startswith(alias) else f"{alias}.{c}" for c in conditions]
        lines += ["ГДЕ", "\n\tИ ".join(["\t" + where[0], *where[1:]])]
    if q.aggregate and group:
        lines += ["СГРУППИРОВАТЬ ПО", ",\n".join(group)]
    order = (["\tПериод"] if q.fields and q.fields[0][1] == "period" else []) + (
        [f"\t{measures[0][1]} УБЫВ"] if measures and q.dimensions and q.aggregate else []
    )
    if order:
        lines += ["УПОРЯДОЧИТЬ ПО", ",\n".join(order)]
    if q.totals and q.aggregate and measures:
        by = ["ОБЩИЕ", *q.dimensions[:1]]
        lines += [
            "ИТОГИ",
            ",\n".join(f"\tСУММА({m})" for _, m in measures),
            "ПО",
            ",\n".join(f"\t{b}" for b in by),
        ]
    q.text = "\n".join(lines)
    return q
