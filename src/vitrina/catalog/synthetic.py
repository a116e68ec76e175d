"""A large synthetic catalog: the demo catalog plus distractor tables from other domains.

Used by the retrieval tests and `benchmarks/bench_retrieval.py` to check that the right
tables are still found, and the prompt still small, when a warehouse has hundreds of
tables. Distractors look like a real bank/retail warehouse: HR, logistics, marketing,
inventory, support, loans, deposits, insurance, retail, finance, web analytics, fraud,
IT, procurement and loyalty, each with facts, dimensions, daily/monthly aggregates,
staging copies, history and snapshots, some described in Russian, with metrics, topics,
dictionaries and relations. A few hard negatives sit next to the demo tables (a staging
copy of payments, daily payment aggregates, chargebacks, cashback), as in real life.
Nothing here names what the demo catalog refuses (mortgages, salaries, exchange rates).

>>> cat = synthetic_catalog(120, seed=7)
>>> len(cat.tables), "dwh.fact_payment" in cat.tables, not cat.problems
(120, True, True)
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from vitrina.catalog.catalog import Catalog
from vitrina.catalog.loader import load_catalog
from vitrina.catalog.model import (
    Column,
    ColumnRole,
    Dictionary,
    DictionaryValue,
    Metric,
    Relation,
    Table,
    Topic,
)

DEFAULT_SEED = 20261130


@dataclass(frozen=True)
class Entity:
    """A business event or object of a domain: becomes a fact table and its variants."""

    name: str  # snake_case, singular
    en: str  # "shipment"
    ru: str  # accusative/genitive-free phrase for "одна строка на ..."
    ru_syn: tuple[str, ...]  # stems, as a catalog author would write them
    measures: tuple[str, ...]  # keys of MEASURES
    dims: tuple[str, ...]  # keys of DIMS


@dataclass(frozen=True)
class Domain:
    schema: str
    topic_ru: str
    topic_en: str
    keywords: tuple[str, ...]
    dims: tuple[str, ...]  # dimension tables of the domain (dim_<name>)
    entities: tuple[Entity, ...]


# column key -> (type, role, label_ru, label_en, synonyms)
MEASURES: dict[str, tuple[str, str, str, tuple[str, ...]]] = {
    "amount_rub": ("decimal", "Сумма, руб.", "Amount, RUB", ("сумм", "amount")),
    "qty": ("integer", "Количество", "Quantity", ("количеств", "quantity")),
    "cost_rub": ("decimal", "Стоимость, руб.", "Cost, RUB", ("стоимост", "cost")),
    "duration_min": ("integer", "Длительность, мин", "Duration, min", ("длительн", "duration")),
    "weight_kg": ("decimal", "Вес, кг", "Weight, kg", ("вес", "weight")),
    "hours": ("decimal", "Часы", "Hours", ("час", "hours")),
    "score": ("integer", "Оценка", "Score", ("оценк", "score", "rating")),
    "rate_pct": ("decimal", "Ставка, %", "Rate, %", ("ставк", "rate")),
    "balance_rub": ("decimal", "Остаток, руб.", "Balance, RUB", ("остат", "баланс", "balance")),
    "clicks": ("integer", "Клики", "Clicks", ("клик", "click")),
    "impressions": ("integer", "Показы", "Impressions", ("показ", "impression")),
    "points": ("integer", "Баллы", "Points", ("балл", "points")),
    "premium_rub": ("decimal", "Премия, руб.", "Premium, RUB", ("преми", "premium")),
    "latency_ms": ("integer", "Задержка, мс", "Latency, ms", ("задержк", "latency")),
}
DIMS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "status": ("Статус", "Status", ("статус", "status")),
    "channel": ("Канал", "Channel", ("канал", "channel")),
    "category": ("Категория", "Category", ("категори", "category")),
    "priority": ("Приоритет", "Priority", ("приоритет", "priority")),
    "product": ("Продукт", "Product", ("продукт", "product")),
    "source": ("Источник", "Source", ("источник", "source")),
    "reason": ("Причина", "Reason", ("причин", "reason")),
    "grade": ("Грейд", "Grade", ("грейд", "grade")),
    "carrier": ("Перевозчик", "Carrier", ("перевозчик", "carrier")),
    "device": ("Устройство", "Device", ("устройств", "device")),
    "currency": ("Валюта", "Currency", ("валют", "currency")),
    "risk_level": ("Уровень риска", "Risk level", ("риск", "risk")),
}


def _e(name: str, en: str, ru: str, syn: str, measures: str, dims: str) -> Entity:
    return Entity(name, en, ru, tuple(syn.split(",")), tuple(measures.split()), tuple(dims.split()))


DOMAINS: tuple[Domain, ...] = (
    Domain("hr", "Персонал", "HR", ("сотрудник", "персонал", "employee", "staff"), ("employee", "department", "position"), (
        _e("vacancy", "job vacancy", "вакансию", "ваканси,найм", "cost_rub qty", "status source grade"),
        _e("timesheet", "timesheet entry", "запись табеля", "табел,рабоч час", "hours", "category"),
        _e("vacation", "vacation request", "заявку на отпуск", "отпуск", "qty", "status reason"),
        _e("training", "training session", "обучение сотрудника", "обучени,курс,тренинг", "cost_rub hours score", "category"),
        _e("hire", "hire or dismissal", "приём или увольнение", "увольнени,прием на работ,текучест", "qty", "reason grade"),
    )),
    Domain("logistics", "Логистика", "Logistics", ("достав", "логистик", "shipment", "delivery"), ("warehouse", "courier", "route"), (
        _e("shipment", "shipment", "отправление", "отправлени,груз", "weight_kg cost_rub", "carrier status"),
        _e("delivery", "delivery attempt", "попытку доставки", "доставк,курьер", "duration_min cost_rub", "status carrier"),
        _e("parcel", "parcel", "посылку", "посылк,отправлени", "weight_kg", "category status"),
        _e("route_stop", "route stop", "остановку маршрута", "маршрут,остановк", "duration_min", "reason"),
        _e("return_shipment", "return shipment", "возвратное отправление", "обратн достав,возвратн отправлени", "weight_kg cost_rub", "reason carrier"),
    )),
    Domain("marketing", "Маркетинг", "Marketing", ("кампани", "реклам", "маркетинг", "campaign", "marketing"), ("campaign", "audience", "creative"), (
        _e("ad_impression", "ad impression", "показ рекламы", "показ реклам,реклам", "impressions clicks cost_rub", "channel device"),
        _e("lead", "marketing lead", "лид", "лид,заявк", "qty", "source channel status"),
        _e("email_send", "email sent", "отправленное письмо", "рассылк,письм,email", "qty clicks", "status"),
        _e("promo_code", "promo code redemption", "применение промокода", "промокод,скидк", "amount_rub qty", "channel"),
        _e("campaign_spend", "campaign spend entry", "расход на кампанию", "бюджет кампани,расход на реклам", "cost_rub", "channel"),
    )),
    Domain("inventory", "Склад", "Inventory", ("склад", "запас", "остат", "inventory", "stock"), ("sku", "supplier", "location"), (
        _e("stock_level", "SKU stock level per day", "остаток SKU на день", "остат,запас,сток", "qty cost_rub", "category"),
        _e("stock_movement", "stock movement", "движение товара", "движени товар,перемещени", "qty", "reason"),
        _e("write_off", "write-off", "списание", "списани,брак", "qty cost_rub", "reason category"),
        _e("stocktake", "stocktake line", "строку инвентаризации", "инвентаризаци,пересчет", "qty", "status"),
        _e("supplier_receipt", "goods receipt from a supplier", "приход от поставщика", "приход,поставк", "qty cost_rub", "status"),
    )),
    Domain("support", "Поддержка", "Support", ("обращени", "поддержк", "тикет", "ticket", "support"), ("agent", "queue", "sla"), (
        _e("ticket", "support ticket", "обращение в поддержку", "обращени,тикет,жалоб", "duration_min", "priority status channel category"),
        _e("ticket_comment", "ticket comment", "комментарий к обращению", "комментари", "qty", "channel"),
        _e("call", "call-center call", "звонок в колл-центр", "звонк,колл-центр", "duration_min", "status reason"),
        _e("csat", "satisfaction survey answer", "ответ на опрос удовлетворённости", "удовлетворенност,опрос,nps,csat", "score", "channel"),
        _e("sla_breach", "SLA breach", "нарушение SLA", "нарушени sla,просроч обращени", "duration_min", "priority"),
    )),
    Domain("loans", "Кредиты", "Loans", ("кредит", "займ", "loan", "credit"), ("loan_product", "branch", "collateral"), (
        _e("loan_application", "loan application", "заявку на кредит", "заявк на кредит,кредитн заявк", "amount_rub", "status product channel"),
        _e("loan_contract", "signed loan contract", "кредитный договор", "кредит,выдач кредит,займ", "amount_rub rate_pct", "product currency"),
        _e("loan_repayment", "loan repayment", "погашение кредита", "погашени,платеж по кредит", "amount_rub", "channel"),
        _e("overdue", "overdue loan day", "день просрочки по кредиту", "просрочк,долг", "balance_rub", "risk_level"),
        _e("credit_line", "credit line limit change", "изменение кредитного лимита", "лимит,кредитн лини", "amount_rub", "reason"),
    )),
    Domain("deposits", "Вклады", "Deposits", ("вклад", "депозит", "deposit", "savings"), ("deposit_product", "branch"), (
        _e("deposit_opening", "deposit opening", "открытие вклада", "вклад,депозит,открыт вклад", "amount_rub rate_pct", "product currency channel"),
        _e("deposit_balance", "deposit balance per day", "остаток по вкладу на день", "остат вклад,баланс", "balance_rub", "currency"),
        _e("interest_accrual", "interest accrual", "начисление процентов", "процент,начислени", "amount_rub rate_pct", "product"),
        _e("deposit_withdrawal", "deposit withdrawal", "снятие со вклада", "сняти,изъяти", "amount_rub", "channel reason"),
        _e("deposit_closing", "deposit closing", "закрытие вклада", "закрыт вклад,досрочн", "balance_rub", "reason"),
    )),
    Domain("insurance", "Страхование", "Insurance", ("страхов", "полис", "insurance", "policy"), ("insurance_product", "insured_object"), (
        _e("policy_sale", "insurance policy sold", "проданный полис", "полис,страховк", "premium_rub", "product channel"),
        _e("claim", "insurance claim", "страховой случай", "страхов случа,выплат,убыт", "amount_rub", "status reason"),
        _e("premium_payment", "premium payment", "оплату страховой премии", "преми,взнос", "premium_rub", "channel"),
        _e("policy_renewal", "policy renewal", "пролонгацию полиса", "пролонгаци,продлени", "premium_rub", "status"),
        _e("agent_commission", "insurance agent commission", "комиссию страхового агента", "агентск вознагражд", "amount_rub", "product"),
    )),
    Domain("retail", "Розница", "Retail", ("заказ", "продаж", "магазин", "order", "sales"), ("store", "product", "customer"), (
        _e("order", "customer order", "заказ покупателя", "заказ,продаж", "amount_rub qty", "status channel"),
        _e("order_line", "order line", "строку заказа", "позици заказ,товар в заказ", "amount_rub qty", "category"),
        _e("store_sale", "store sale receipt", "чек магазина", "чек магазин,продаж в магазин", "amount_rub qty", "category channel"),
        _e("product_return", "product return", "возврат товара", "возврат товар", "amount_rub qty", "reason"),
        _e("price_change", "price change", "изменение цены", "цен,переоценк", "amount_rub", "reason category"),
    )),
    Domain("finance", "Финансы", "Finance", ("бюджет", "расход", "бухгалтер", "budget", "expense"), ("cost_center", "account", "legal_entity"), (
        _e("gl_entry", "general ledger entry", "проводку главной книги", "проводк,главн книг", "amount_rub", "currency"),
        _e("invoice", "supplier invoice", "счёт поставщика", "счет-фактур,инвойс", "amount_rub", "status currency"),
        _e("expense", "expense report line", "строку авансового отчёта", "расход,командировк", "amount_rub", "category"),
        _e("budget_line", "budget line", "строку бюджета", "бюджет,план", "amount_rub", "category"),
        _e("tax_payment", "tax payment", "налоговый платёж", "налог,ндс", "amount_rub", "category"),
    )),
    Domain("web", "Веб-аналитика", "Web analytics", ("сайт", "приложени", "сесси", "session", "app"), ("page", "app_version"), (
        _e("web_session", "website session", "сессию на сайте", "сесси,визит,посещени", "duration_min", "device source"),
        _e("pageview", "page view", "просмотр страницы", "просмотр страниц,хит", "qty", "device"),
        _e("app_install", "mobile app install", "установку приложения", "установк приложени,скачивани", "qty", "device source"),
        _e("push_send", "push notification", "push-уведомление", "пуш,уведомлени", "qty clicks", "status"),
        _e("funnel_step", "funnel step reached", "шаг воронки", "воронк,конверси", "qty", "source"),
    )),
    Domain("fraud", "Антифрод", "Fraud", ("мошенни", "фрод", "fraud", "risk"), ("rule", "analyst"), (
        _e("fraud_alert", "fraud alert", "срабатывание антифрода", "антифрод,мошенничеств,подозрительн", "score", "risk_level status"),
        _e("aml_check", "AML check", "проверку ПОД/ФТ", "под/фт,aml,комплаенс", "score", "status"),
        _e("blocked_operation", "blocked operation", "заблокированную операцию", "блокировк,заблокирова", "amount_rub", "reason"),
        _e("dispute", "customer dispute", "спор клиента", "спор,диспут", "amount_rub", "status reason"),
    )),
    Domain("it", "ИТ", "IT", ("инцидент", "сервер", "релиз", "incident", "server"), ("service", "host"), (
        _e("incident", "IT incident", "ИТ-инцидент", "инцидент,сбо,авари", "duration_min", "priority status"),
        _e("deployment", "deployment", "релиз", "релиз,деплой,выкатк", "duration_min", "status"),
        _e("api_call", "API call aggregate per minute", "агрегат вызовов API за минуту", "api,вызов", "qty latency_ms", "status"),
        _e("host_metric", "host metric sample", "замер метрики сервера", "нагрузк,cpu,памят", "latency_ms", "device"),
    )),
    Domain("procurement", "Закупки", "Procurement", ("закупк", "поставщик", "тендер", "procurement", "purchase"), ("vendor", "contract"), (
        _e("purchase_order", "purchase order", "заказ поставщику", "закупк,заказ поставщик", "amount_rub qty", "status category"),
        _e("tender", "tender", "тендер", "тендер,конкурс", "amount_rub", "status"),
        _e("vendor_rating", "vendor rating", "оценку поставщика", "рейтинг поставщик", "score", "category"),
    )),
    Domain("loyalty", "Лояльность", "Loyalty", ("бонус", "лояльност", "баллы", "loyalty", "bonus"), ("loyalty_tier", "partner"), (
        _e("points_accrual", "loyalty points accrual", "начисление бонусных баллов", "балл,бонус,начислени балл", "points", "source"),
        _e("points_redemption", "loyalty points redemption", "списание баллов", "списани балл,трат балл", "points amount_rub", "channel"),
        _e("tier_change", "loyalty tier change", "смену уровня лояльности", "уровн лояльност,статус программ", "qty", "grade"),
    )),
)

VARIANTS: tuple[tuple[str, str, str], ...] = (
    # (name pattern, English description, Russian description); {en} {ru} {dim} filled in
    ("fact_{name}", "One row per {en}.", "Одна строка на {ru}."),
    ("agg_{name}_daily", "Daily totals of {en} by {dim}.", "Дневные итоги: {ru}, по полю {dim}."),
    ("agg_{name}_monthly", "Monthly totals of {en}, recalculated on the 3rd working day.", ""),
    ("stg_{name}_raw", "Raw {en} records from the source system before cleansing; not for reporting.",
     "Сырые данные из системы-источника до очистки; не для отчётности."),
    ("hist_{name}", "History of {en} attribute changes (SCD type 2, valid_from/valid_to).", ""),
    ("snap_{name}_eod", "End-of-day snapshot of open {en} records.", "Снимок на конец дня: {ru}."),
    ("rpt_{name}_by_{dim}", "Report view: {en} by {dim} for the management dashboard.", ""),
)

HARD_NEGATIVES: tuple[Table, ...] = (
    Table(name="stg.payment_raw", description="Raw payment events from the processing gateway, before deduplication; not for reporting.",
          description_ru="Сырые события платежей из процессинга до дедупликации.", columns=[
              Column(name="event_id", type="bigint", role=ColumnRole.KEY), Column(name="payment_ts", type="timestamp"),
              Column(name="amount_rub", type="decimal", role=ColumnRole.MEASURE), Column(name="raw_status", type="varchar")]),
    Table(name="mart.agg_payment_daily", description="Daily totals of successful payments by merchant category and channel.",
          columns=[Column(name="day", type="date", role=ColumnRole.DATE),
                   Column(name="category", type="varchar", role=ColumnRole.DIMENSION),
                   Column(name="channel", type="varchar", role=ColumnRole.DIMENSION),
                   Column(name="payments", type="bigint", role=ColumnRole.MEASURE),
                   Column(name="amount_rub", type="decimal", role=ColumnRole.MEASURE)], default_date="day"),
    Table(name="fraud.fact_chargeback", description="One row per chargeback on a card payment.",
          description_ru="Одна строка на чарджбэк по платежу картой.", columns=[
              Column(name="chargeback_id", type="bigint", role=ColumnRole.KEY),
              Column(name="payment_id", type="bigint", role=ColumnRole.KEY),
              Column(name="opened_date", type="date", role=ColumnRole.DATE),
              Column(name="amount_rub", type="decimal", role=ColumnRole.MEASURE)], default_date="opened_date"),
    Table(name="loyalty.fact_cashback", description="Cashback accrued on card and wallet purchases.",
          description_ru="Кэшбэк, начисленный за покупки картой и из кошелька.", columns=[
              Column(name="cashback_id", type="bigint", role=ColumnRole.KEY),
              Column(name="client_id", type="bigint", role=ColumnRole.KEY),
              Column(name="accrual_date", type="date", role=ColumnRole.DATE),
              Column(name="cashback_rub", type="decimal", role=ColumnRole.MEASURE)], default_date="accrual_date"),
    Table(name="mart.rpt_client_activity", description="Monthly activity of clients: logins, payments, wallet top-ups.",
          description_ru="Месячная активность клиентов: входы, платежи, пополнения кошелька.", columns=[
              Column(name="month", type="date", role=ColumnRole.DATE),
              Column(name="client_id", type="bigint", role=ColumnRole.KEY),
              Column(name="logins", type="integer", role=ColumnRole.MEASURE),
              Column(name="payments", type="integer", role=ColumnRole.MEASURE)], default_date="month"),
)


def _columns(entity: Entity, rng: random.Random) -> list[Column]:
    cols = [Column(name=f"{entity.name}_id", type="bigint", role=ColumnRole.KEY,
                   label_ru="ID", label_en=f"{entity.en.capitalize()} ID"),
            Column(name="event_date", type="date", role=ColumnRole.DATE, label_ru="Дата", label_en="Date")]
    for key in entity.measures:
        typ, ru, en, syn = MEASURES[key]
        cols.append(Column(name=key, type=typ, role=ColumnRole.MEASURE, label_ru=ru, label_en=en,
                           synonyms=list(syn) if rng.random() < 0.5 else []))
    for key in entity.dims:
        ru, en, syn = DIMS[key]
        cols.append(Column(name=key, role=ColumnRole.DIMENSION, label_ru=ru, label_en=en, synonyms=list(syn)))
    if rng.random() < 0.4:
        cols.append(Column(name="region_id", type="integer", role=ColumnRole.KEY, label_ru="ID региона",
                           label_en="Region ID"))
    cols.append(Column(name="load_ts", type="timestamp", description="Technical: load time"))
    return cols


def _candidates(rng: random.Random) -> tuple[list[Table], list[Topic], list[Metric], list[Relation], list[Dictionary]]:
    """Every distractor the domains can produce, in a fixed order."""
    tables: list[Table] = []
    topics, metrics, relations, dictionaries = [], [], [], []
    for dom in DOMAINS:
        topic_id = f"syn_{dom.schema}"
        topics.append(Topic(id=topic_id, name_ru=dom.topic_ru, name_en=dom.topic_en,
                            keywords={k: 2.0 for k in dom.keywords}))
        for dim in dom.dims:
            words = dim.replace("_", " ")
            tables.append(Table(name=f"{dom.schema}.dim_{dim}", description=f"Reference list of {words}s.",
                                description_ru=f"Справочник: {words}." if rng.random() < 0.5 else "",
                                topics=[topic_id], columns=[
                                    Column(name=f"{dim}_id", type="integer", role=ColumnRole.KEY),
                                    Column(name=f"{dim}_name", role=ColumnRole.DIMENSION, label_en=words.capitalize()),
                                    Column(name="is_active", type="boolean")]))
        for ent in dom.entities:
            for pattern, en, ru in VARIANTS:
                dim = ent.dims[0]
                name = f"{dom.schema}.{pattern.format(name=ent.name, dim=dim)}"
                cols = _columns(ent, rng)
                fk = dom.dims[len(tables) % len(dom.dims)]
                cols.append(Column(name=f"{fk}_id", type="integer", role=ColumnRole.KEY))
                ru_text = ru.format(en=ent.en, ru=ent.ru, dim=DIMS[dim][0].lower()) if rng.random() < 0.6 else ""
                tables.append(Table(name=name, description=en.format(en=ent.en + "s", dim=dim, ru=ent.ru),
                                    description_ru=ru_text, topics=[topic_id], columns=cols,
                                    default_date="event_date"))
                relations.append(Relation(left=f"{name}.{fk}_id", right=f"{dom.schema}.dim_{fk}.{fk}_id"))
                if any(c.name == "region_id" for c in cols):
                    relations.append(Relation(left=f"{name}.region_id", right="dwh.dim_region.region_id"))
                if pattern == "fact_{name}":
                    metrics.append(Metric(id=f"{dom.schema}_{ent.name}_count", name_ru=f"Количество: {ent.ru}",
                                          name_en=f"Number of {ent.en}s", table=name, expression="COUNT(*)",
                                          format="count", topic=topic_id,
                                          synonyms=[*ent.ru_syn, f"{ent.en}s", ent.en]))
                    measure = ent.measures[0]
                    metrics.append(Metric(id=f"{dom.schema}_{ent.name}_{measure}",
                                          name_ru=f"{MEASURES[measure][1]}: {ent.ru}",
                                          name_en=f"{MEASURES[measure][2]} of {ent.en}s", table=name,
                                          expression=f"SUM({measure})", topic=topic_id,
                                          synonyms=[f"{s} {ent.ru_syn[0]}" for s in MEASURES[measure][3]]))
                    dictionaries.append(Dictionary(column=f"{name}.{dim}", values=[
                        DictionaryValue(value=f"{dim}_{i}", synonyms=[f"{DIMS[dim][1].lower()} {i}"])
                        for i in range(1, 4)]))
    return tables, topics, metrics, relations, dictionaries


def synthetic_catalog(n_tables: int = 500, seed: int = DEFAULT_SEED) -> Catalog:
    """The demo catalog plus `n_tables - 9` distractors; same seed, same catalog."""
    cat = load_catalog()
    rng = random.Random(seed)
    tables, topics, metrics, relations, dictionaries = _candidates(rng)
    rng.shuffle(tables)
    wanted = max(0, n_tables - len(cat.tables))
    chosen = [t.model_copy(deep=True) for t in HARD_NEGATIVES][:wanted]
    chosen += tables[: wanted - len(chosen)]
    if len(chosen) < wanted:
        raise ValueError(f"the generator makes at most {len(tables) + len(HARD_NEGATIVES) + len(cat.tables)} tables")
    for table in chosen:
        cat.tables[table.name] = table
    cat.topics.update({t.id: t for t in topics})
    cat.metrics.update({m.id: m for m in metrics if m.table in cat.tables})
    cat.relations += [r for r in relations if r.left_table in cat.tables and r.right_table in cat.tables]
    cat.dictionaries.update({d.column: d for d in dictionaries if d.table in cat.tables})
    return cat
