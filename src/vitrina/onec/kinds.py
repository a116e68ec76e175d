"""1C metadata kinds: English name (files, EDT), Russian name (queries, links), dump folder.

One table, so the Designer reader, the EDT reader, the query writer and the links agree
on what "AccumulationRegister" is called in each place.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Kind:
    name: str  # as in Designer tags and EDT references: AccumulationRegister
    ru: str  # as in the query language and e1cib links: РегистрНакопления
    folder: str  # the dump folder: AccumulationRegisters
    data: bool = True  # holds data a report can read (a table in the catalog)


KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind("Catalog", "Справочник", "Catalogs"),
        Kind("Document", "Документ", "Documents"),
        Kind("Enum", "Перечисление", "Enums"),
        Kind("InformationRegister", "РегистрСведений", "InformationRegisters"),
        Kind("AccumulationRegister", "РегистрНакопления", "AccumulationRegisters"),
        Kind("AccountingRegister", "РегистрБухгалтерии", "AccountingRegisters"),
        Kind("CalculationRegister", "РегистрРасчета", "CalculationRegisters"),
        Kind("ChartOfAccounts", "ПланСчетов", "ChartsOfAccounts"),
        Kind("ChartOfCharacteristicTypes", "ПланВидовХарактеристик", "ChartsOfCharacteristicTypes"),
        Kind("ChartOfCalculationTypes", "ПланВидовРасчета", "ChartsOfCalculationTypes"),
        Kind("ExchangePlan", "ПланОбмена", "ExchangePlans"),
        Kind("BusinessProcess", "БизнесПроцесс", "BusinessProcesses"),
        Kind("Task", "Задача", "Tasks"),
        Kind("Constant", "Константа", "Constants"),
        Kind("DocumentJournal", "ЖурналДокументов", "DocumentJournals", data=False),
        Kind("Report", "Отчет", "Reports", data=False),
        Kind("DataProcessor", "Обработка", "DataProcessors", data=False),
    )
}
BY_RU: dict[str, Kind] = {k.ru.lower(): k for k in KINDS.values()}
REGISTERS = (
    "AccumulationRegister",
    "InformationRegister",
    "AccountingRegister",
    "CalculationRegister",
)


def kind_of(reference: str) -> tuple[Kind | None, str]:
    """Split 'AccumulationRegister.Stocks' (or 'РегистрНакопления.Остатки') into kind and name."""
    head, _, name = reference.partition(".")
    kind = KINDS.get(head) or BY_RU.get(head.lower())
    return kind, name
