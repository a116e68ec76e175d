"""The 1C request suite: requests a BI developer types, each with the answer a 1C developer
would give, written from the metadata of the configurations before the planner was read.

`expect` keys:
- kind: "report" (a query over an object), "recorders" (documents that record into a
  register), "metadata" (where something is kept), "refuse" (no object fits: the answer
  must say so, never show a wrong object as success);
- object: the object the answer must use (Russian full name as the query language writes it);
- virtual_table: the virtual table ("" for a plain table), or a tuple of acceptable ones;
- fields: field names the query must select (dimensions, resources with their suffix);
- filters: texts that must appear in the query where a request filter was applied;
- unplaced: words of a filter that could not be placed and must be reported as such;
- parameters: query parameter -> the value it must have (dates as ISO text);
- recorders: the full list of recorder documents;
- candidate: an object that must be among the ranked candidates.
"""

from __future__ import annotations

from datetime import date
from typing import Any

TODAY = date(2025, 12, 15)
END_NOV = "2025-11-30T23:59:59"

SHOP: list[tuple[str, dict[str, Any]]] = [
    (
        "продажи по покупателям за ноябрь 2025",
        {
            "kind": "report",
            "object": "РегистрНакопления.Продажи",
            "virtual_table": "Обороты",
            "fields": ["Покупатель", "ВыручкаОборот"],
            "parameters": {"НачалоПериода": "2025-11-01T00:00:00", "КонецПериода": END_NOV},
        },
    ),
    (
        "выручка по товарам за 2025 год",
        {
            "kind": "report",
            "object": "РегистрНакопления.Продажи",
            "virtual_table": "Обороты",
            "fields": ["Номенклатура", "ВыручкаОборот"],
            "parameters": {
                "НачалоПериода": "2025-01-01T00:00:00",
                "КонецПериода": "2025-12-31T23:59:59",
            },
        },
    ),
    (
        "продажи по контрагентам за прошлый месяц",
        {
            "kind": "report",
            "object": "РегистрНакопления.Продажи",
            "virtual_table": "Обороты",
            "fields": ["Покупатель"],
            "parameters": {"НачалоПериода": "2025-11-01T00:00:00", "КонецПериода": END_NOV},
        },
    ),
    (
        "остатки товаров на складах на 30.11.2025",
        {
            "kind": "report",
            "object": "РегистрНакопления.ТоварыНаСкладах",
            "virtual_table": "Остатки",
            "fields": ["Склад", "КоличествоОстаток"],
            "parameters": {"Период": END_NOV},
        },
    ),
    (
        "остатки товаров на основном складе",
        {
            "kind": "report",
            "object": "РегистрНакопления.ТоварыНаСкладах",
            "virtual_table": "Остатки",
            "fields": ["Номенклатура", "КоличествоОстаток"],
            "filters": ["Склад = ЗНАЧЕНИЕ(Справочник.Склады.ОсновнойСклад)"],
        },
    ),
    (
        "заказы покупателей в работе",
        {
            "kind": "report",
            "object": "Документ.ЗаказПокупателя",
            "virtual_table": "",
            "filters": ["Статус = ЗНАЧЕНИЕ(Перечисление.СтатусыЗаказов.ВРаботе)"],
        },
    ),
    (
        "какие документы двигают регистр Продажи",
        {
            "kind": "recorders",
            "object": "РегистрНакопления.Продажи",
            "recorders": ["Документ.РеализацияТоваров"],
        },
    ),
    (
        "какие документы делают движения по регистру взаиморасчеты с контрагентами",
        {
            "kind": "recorders",
            "object": "РегистрНакопления.ВзаиморасчетыСКонтрагентами",
            "recorders": [
                "Документ.ОплатаОтПокупателя",
                "Документ.ПоступлениеТоваров",
                "Документ.РеализацияТоваров",
            ],
        },
    ),
    (
        "регистраторы регистра товары на складах",
        {
            "kind": "recorders",
            "object": "РегистрНакопления.ТоварыНаСкладах",
            "recorders": [
                "Документ.ПеремещениеТоваров",
                "Документ.ПоступлениеТоваров",
                "Документ.РеализацияТоваров",
            ],
        },
    ),
    (
        "закупки по поставщикам за 3 квартал 2025",
        {
            "kind": "report",
            "object": "РегистрНакопления.Закупки",
            "virtual_table": "Обороты",
            "fields": ["Поставщик", "СуммаОборот"],
            "parameters": {
                "НачалоПериода": "2025-07-01T00:00:00",
                "КонецПериода": "2025-09-30T23:59:59",
            },
        },
    ),
    (
        "закупки по видам операций за 2025 год",
        {
            "kind": "report",
            "object": "РегистрНакопления.Закупки",
            "virtual_table": "Обороты",
            "fields": ["ВидОперации"],
        },
    ),
    (
        "задолженность покупателей на 01.12.2025",
        {
            "kind": "report",
            "object": "РегистрНакопления.ВзаиморасчетыСКонтрагентами",
            "virtual_table": "Остатки",
            "candidate": "Отчет.ЗадолженностьПокупателей",
        },
    ),
    (
        "долги контрагентов в долларах",
        {
            "kind": "report",
            "object": "РегистрНакопления.ВзаиморасчетыСКонтрагентами",
            "virtual_table": "Остатки",
            "fields": ["Контрагент", "СуммаОстаток"],
            "filters": ["Валюта = ЗНАЧЕНИЕ(Справочник.Валюты.Доллар)"],
        },
    ),
    (
        "оптовые цены номенклатуры",
        {
            "kind": "report",
            "object": "РегистрСведений.ЦеныНоменклатуры",
            "virtual_table": "СрезПоследних",
            "fields": ["Номенклатура", "Цена"],
            "filters": ["ВидЦен = ЗНАЧЕНИЕ(Справочник.ВидыЦен.Оптовая)"],
        },
    ),
    (
        "курсы валют на 01.12.2025",
        {
            "kind": "report",
            "object": "РегистрСведений.КурсыВалют",
            "virtual_table": "СрезПоследних",
            "fields": ["Валюта", "Курс"],
            "parameters": {"Период": "2025-12-01T23:59:59"},
        },
    ),
    (
        "остатки и обороты товаров по складам за ноябрь 2025",
        {
            "kind": "report",
            "object": "РегистрНакопления.ТоварыНаСкладах",
            "virtual_table": "ОстаткиИОбороты",
            "fields": ["Склад", "КоличествоКонечныйОстаток"],
            "parameters": {"КонецПериода": END_NOV},
        },
    ),
    (
        "приход и расход товаров за ноябрь 2025",
        {
            "kind": "report",
            "object": "РегистрНакопления.ТоварыНаСкладах",
            "virtual_table": ("Обороты", "ОстаткиИОбороты"),
            "fields": ["КоличествоПриход", "КоличествоРасход"],
        },
    ),
    (
        "продажи по менеджерам по месяцам за 2025 год",
        {
            "kind": "report",
            "object": "РегистрНакопления.Продажи",
            "virtual_table": "Обороты",
            "fields": ["Менеджер", "Период"],
            "filters": ["Месяц"],
        },
    ),
    (
        "себестоимость продаж по складам за октябрь 2025",
        {
            "kind": "report",
            "object": "РегистрНакопления.Продажи",
            "virtual_table": "Обороты",
            "fields": ["Склад", "СебестоимостьОборот"],
        },
    ),
    (
        "продажи со склада брака за 2025 год",
        {
            "kind": "report",
            "object": "РегистрНакопления.Продажи",
            "virtual_table": "Обороты",
            "filters": ["Склад = ЗНАЧЕНИЕ(Справочник.Склады.СкладБрака)"],
        },
    ),
    (
        "валовая прибыль по номенклатуре за ноябрь 2025",
        {
            "kind": "report",
            "object": "Отчет.ВаловаяПрибыль",
            "virtual_table": "Обороты",
            "candidate": "РегистрНакопления.Продажи",
        },
    ),
    (
        "продажи по покупателям в рублях",
        {
            "kind": "report",
            "object": "РегистрНакопления.Продажи",
            "virtual_table": "Обороты",
            "fields": ["Покупатель"],
            "unplaced": ["рубл"],
        },
    ),
    ("где хранятся курсы валют", {"kind": "metadata", "object": "РегистрСведений.КурсыВалют"}),
    (
        "список контрагентов-поставщиков",
        {
            "kind": "report",
            "object": "Справочник.Контрагенты",
            "virtual_table": "",
            "filters": ["Поставщик"],
        },
    ),
    ("начисления зарплаты сотрудникам за ноябрь", {"kind": "refuse"}),
]
TRADE: list[tuple[str, dict[str, Any]]] = [
    (
        "продажи по контрагентам за ноябрь 2025",
        {
            "kind": "report",
            "object": "РегистрНакопления.Продажи",
            "virtual_table": "Обороты",
            "fields": ["Контрагент", "СуммаОборот"],
            "parameters": {"КонецПериода": END_NOV},
        },
    ),
    (
        "какие документы двигают регистр товары на складах",
        {
            "kind": "recorders",
            "object": "РегистрНакопления.ТоварыНаСкладах",
            "recorders": ["Документ.ПриходнаяНакладная", "Документ.РеализацияТоваровУслуг"],
        },
    ),
]
DESIGNER: list[tuple[str, dict[str, Any]]] = [
    (
        "какие документы двигают РегистрБухгалтерии1",
        {
            "kind": "recorders",
            "object": "РегистрБухгалтерии.РегистрБухгалтерии1",
            "recorders": ["Документ.Документ2"],
        },
    ),
    (
        "остатки РегистрНакопления1 по Измерение2",
        {
            "kind": "report",
            "object": "РегистрНакопления.РегистрНакопления1",
            "virtual_table": "Остатки",
            "fields": ["Измерение2", "Ресурс1Остаток"],
        },
    ),
]
EDT: list[tuple[str, dict[str, Any]]] = [
    (
        "stock balance by warehouse",
        {
            "kind": "report",
            "object": "РегистрНакопления.Stocks",
            "virtual_table": "Остатки",
            "fields": ["Warehouse", "QuntityОстаток"],
        },
    ),
    (
        "which documents post to Stocks",
        {
            "kind": "recorders",
            "object": "РегистрНакопления.Stocks",
            "recorders": ["Документ.ProductArraival"],
        },
    ),
]
