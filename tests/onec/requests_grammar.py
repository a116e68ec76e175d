"""The 1C request suite by what is asked (issue 33): seven classes of request, each in at least
three wordings, over 1C's own demo configurations (../shared/fixtures/onec, EDT and Designer)
and the shop configuration. Written with the expected object and query BEFORE the planner's
weights were touched, from the metadata alone, as a 1C developer would answer.

Classes (`cls`): balance (a balance at a date), turnover (turnovers over a period),
balance_turnover (both), documents (a list of documents of one kind), attributes (what a
catalog holds), reports (which reports exist on a subject), records (a register's movements:
its records with their recorder). Expectation keys are those of tests/onec/requests.py, plus:
- kind "attributes": `fields` the answer lists and the query selects (never only Ссылка);
- kind "reports": `reports` the full list of the configuration's reports on the subject;
- `name_filters`: values of a catalog item named in the request, kept as a filter by name.
"""

from __future__ import annotations

from typing import Any

END_NOV = "2025-11-30T23:59:59"
NOV = {"НачалоПериода": "2025-11-01T00:00:00", "КонецПериода": END_NOV}

Case = tuple[str, str, dict[str, Any]]  # (fixture: edt|designer|shop, request, expectation)

STOCKS = "РегистрНакопления.Stocks"
ACC1 = "РегистрНакопления.РегистрНакопления1"
ACC2 = "РегистрНакопления.РегистрНакопления2"

GRAMMAR: list[Case] = [
    # --- balance at a date
    (
        "edt",
        "остатки товаров на складах на 30.11.2025",
        {
            "cls": "balance",
            "kind": "report",
            "object": STOCKS,
            "virtual_table": "Остатки",
            "fields": ["QuntityОстаток"],
            "parameters": {"Период": END_NOV},
        },
    ),
    (
        "edt",
        "stock on hand by warehouse at the end of November 2025",
        {
            "cls": "balance",
            "kind": "report",
            "object": STOCKS,
            "virtual_table": "Остатки",
            "fields": ["Warehouse"],
            "parameters": {"Период": END_NOV},
        },
    ),
    (
        "edt",
        "сколько товара на складах на конец ноября 2025",
        {
            "cls": "balance",
            "kind": "report",
            "object": STOCKS,
            "virtual_table": "Остатки",
            "parameters": {"Период": END_NOV},
        },
    ),
    (
        "edt",
        "Stocks по складам на конец месяца",
        {
            "cls": "balance",
            "kind": "report",
            "object": STOCKS,
            "virtual_table": "Остатки",
            "fields": ["Warehouse"],
        },
    ),
    (
        "designer",
        "остатки РегистрНакопления1 на 01.12.2025",
        {
            "cls": "balance",
            "kind": "report",
            "object": ACC1,
            "virtual_table": "Остатки",
            "parameters": {"Период": "2025-12-01T23:59:59"},
        },
    ),
    (
        "designer",
        "РегистрНакопления1 по Измерение1 на конец ноября",
        {
            "cls": "balance",
            "kind": "report",
            "object": ACC1,
            "virtual_table": "Остатки",
            "fields": ["Измерение1"],
            "parameters": {"Период": END_NOV},
        },
    ),
    # --- turnovers over a period
    (
        "edt",
        "обороты товаров по складам за ноябрь 2025",
        {
            "cls": "turnover",
            "kind": "report",
            "object": STOCKS,
            "virtual_table": "Обороты",
            "fields": ["Warehouse", "QuntityОборот"],
            "parameters": NOV,
        },
    ),
    (
        "edt",
        "stock turnover by product for November 2025",
        {
            "cls": "turnover",
            "kind": "report",
            "object": STOCKS,
            "virtual_table": "Обороты",
            "fields": ["Product"],
            "parameters": NOV,
        },
    ),
    (
        "designer",
        "обороты РегистрНакопления2 за ноябрь 2025",
        {
            "cls": "turnover",
            "kind": "report",
            "object": ACC2,
            "virtual_table": "Обороты",
            "fields": ["Ресурс1Оборот"],
            "parameters": NOV,
        },
    ),
    (
        "designer",
        "РегистрНакопления2 по Измерение1 по месяцам за 2025 год",
        {
            "cls": "turnover",
            "kind": "report",
            "object": ACC2,
            "virtual_table": "Обороты",
            "fields": ["Измерение1", "Период"],
        },
    ),
    # --- balance and turnovers
    (
        "edt",
        "остатки и обороты товаров по складам за ноябрь 2025",
        {
            "cls": "balance_turnover",
            "kind": "report",
            "object": STOCKS,
            "virtual_table": "ОстаткиИОбороты",
            "fields": ["QuntityКонечныйОстаток"],
            "parameters": NOV,
        },
    ),
    (
        "edt",
        "stock balance and turnover by warehouse for November 2025",
        {
            "cls": "balance_turnover",
            "kind": "report",
            "object": STOCKS,
            "virtual_table": "ОстаткиИОбороты",
            "fields": ["Warehouse"],
            "parameters": NOV,
        },
    ),
    (
        "edt",
        "начальный и конечный остаток товаров за ноябрь 2025",
        {
            "cls": "balance_turnover",
            "kind": "report",
            "object": STOCKS,
            "virtual_table": "ОстаткиИОбороты",
            "parameters": NOV,
        },
    ),
    (
        "designer",
        "остатки и обороты РегистрНакопления1 за ноябрь 2025",
        {
            "cls": "balance_turnover",
            "kind": "report",
            "object": ACC1,
            "virtual_table": "ОстаткиИОбороты",
            "parameters": NOV,
        },
    ),
    # --- a list of documents of one kind
    (
        "edt",
        "список документов ProductArraival за ноябрь 2025",
        {
            "cls": "documents",
            "kind": "report",
            "object": "Документ.ProductArraival",
            "virtual_table": "",
            "fields": ["Дата"],
            "parameters": NOV,
        },
    ),
    (
        "edt",
        "list of ProductArraival documents",
        {
            "cls": "documents",
            "kind": "report",
            "object": "Документ.ProductArraival",
            "virtual_table": "",
            "fields": ["Ссылка"],
        },
    ),
    (
        "designer",
        "документы Документ1 за 2025 год",
        {
            "cls": "documents",
            "kind": "report",
            "object": "Документ.Документ1",
            "virtual_table": "",
            "fields": ["Дата"],
        },
    ),
    (
        "designer",
        "покажи все Документ2",
        {"cls": "documents", "kind": "report", "object": "Документ.Документ2", "virtual_table": ""},
    ),
    # --- a catalog's attributes (not a register report: no planner, never only Ссылка)
    (
        "edt",
        "какие реквизиты у справочника Products",
        {
            "cls": "attributes",
            "kind": "attributes",
            "object": "Справочник.Products",
            "fields": ["SKU", "ProductType"],
        },
    ),
    (
        "edt",
        "what attributes does the Products catalog have",
        {
            "cls": "attributes",
            "kind": "attributes",
            "object": "Справочник.Products",
            "fields": ["SKU", "ProductType"],
        },
    ),
    (
        "designer",
        "реквизиты справочника Справочник1",
        {
            "cls": "attributes",
            "kind": "attributes",
            "object": "Справочник.Справочник1",
            "fields": ["Реквизит1", "Реквизит2", "Реквизит4"],
        },
    ),
    (
        "shop",
        "какие поля есть у справочника контрагентов",
        {
            "cls": "attributes",
            "kind": "attributes",
            "object": "Справочник.Контрагенты",
            "fields": ["Покупатель", "Поставщик"],
        },
    ),
    # --- which reports exist on a subject
    (
        "shop",
        "какие отчеты есть по продажам",
        {"cls": "reports", "kind": "reports", "reports": ["Отчет.ВаловаяПрибыль"]},
    ),
    (
        "shop",
        "список отчетов по остаткам товаров",
        {"cls": "reports", "kind": "reports", "reports": ["Отчет.ОстаткиТоваров"]},
    ),
    (
        "shop",
        "what reports are there on settlements with counterparties",
        {"cls": "reports", "kind": "reports", "reports": ["Отчет.ЗадолженностьПокупателей"]},
    ),
    (
        "designer",
        "какие отчеты есть по Справочник1",
        {"cls": "reports", "kind": "reports", "reports": ["Отчет.Отчет1"]},
    ),
    # --- a register's movements (its records, with the recorder)
    (
        "edt",
        "движения регистра Stocks за ноябрь 2025",
        {
            "cls": "records",
            "kind": "report",
            "object": STOCKS,
            "virtual_table": "",
            "fields": ["Регистратор", "Warehouse"],
            "parameters": NOV,
        },
    ),
    (
        "edt",
        "movements of the Stocks register in November 2025",
        {
            "cls": "records",
            "kind": "report",
            "object": STOCKS,
            "virtual_table": "",
            "fields": ["Регистратор"],
            "parameters": NOV,
        },
    ),
    (
        "designer",
        "записи регистра РегистрНакопления2 по регистраторам за 2025 год",
        {
            "cls": "records",
            "kind": "report",
            "object": ACC2,
            "virtual_table": "",
            "fields": ["Регистратор"],
        },
    ),
    # --- items named in the request that are not predefined: filters by name, never dropped
    (
        "shop",
        "продажи покупателю Ромашка за ноябрь 2025",
        {
            "cls": "turnover",
            "kind": "report",
            "object": "РегистрНакопления.Продажи",
            "virtual_table": "Обороты",
            "parameters": NOV,
            "name_filters": ["Ромашка"],
        },
    ),
    (
        "shop",
        "остатки товаров на складе Центральный на 30.11.2025",
        {
            "cls": "balance",
            "kind": "report",
            "object": "РегистрНакопления.ТоварыНаСкладах",
            "virtual_table": "Остатки",
            "parameters": {"Период": END_NOV},
            "name_filters": ["Центральный"],
        },
    ),
    (
        "edt",
        "остатки Stocks на складе «Main» на 30.11.2025",
        {
            "cls": "balance",
            "kind": "report",
            "object": STOCKS,
            "virtual_table": "Остатки",
            "parameters": {"Период": END_NOV},
            "name_filters": ["Main"],
        },
    ),
    # --- balances that must not go to a price register's slice; prices that must
    (
        "shop",
        "сколько товаров было на складах на конец ноября",
        {
            "cls": "balance",
            "kind": "report",
            "object": "РегистрНакопления.ТоварыНаСкладах",
            "virtual_table": "Остатки",
            "parameters": {"Период": END_NOV},
        },
    ),
    (
        "shop",
        "остатки и обороты по складам за ноябрь 2025",
        {
            "cls": "balance_turnover",
            "kind": "report",
            "object": "РегистрНакопления.ТоварыНаСкладах",
            "virtual_table": "ОстаткиИОбороты",
            "parameters": NOV,
        },
    ),
    (
        "shop",
        "список документов реализация товаров за ноябрь 2025",
        {
            "cls": "documents",
            "kind": "report",
            "object": "Документ.РеализацияТоваров",
            "virtual_table": "",
            "parameters": NOV,
        },
    ),
    (
        "edt",
        "цены товаров на 30.11.2025",
        {
            "cls": "balance",
            "kind": "report",
            "object": "РегистрСведений.Prices",
            "virtual_table": "СрезПоследних",
            "fields": ["Price"],
            "parameters": {"Период": END_NOV},
        },
    ),
]
