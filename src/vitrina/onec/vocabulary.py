"""Words of the trade a 1C user types that are not in the metadata's names.

A BI analyst says "товары", "клиенты", "долги", "отгрузки"; a configuration names the same
things Номенклатура, Контрагенты, Взаиморасчеты, Реализация. Each entry maps the stem of a
user's word to the stems of names it means (stems as `vitrina.language.names.stem` cuts them),
so "выручка по товарам" finds the Номенклатура dimension. Kept small and general: names of
standard configurations (УТ, БП, ERP, УНФ), never of one customer's configuration.
"""

from __future__ import annotations

SYNONYMS: dict[str, tuple[str, ...]] = {
    "товар": ("номенклатур", "product"),
    "продукт": ("номенклатур", "product"),
    "номенклатур": ("товар", "product"),
    "product": ("номенклатур", "товар"),
    "клиент": ("покупател", "контрагент", "customer"),
    "покупател": ("контрагент", "клиент", "customer"),
    "customer": ("покупател", "контрагент", "клиент"),
    "поставщик": ("контрагент", "supplier"),
    "supplier": ("поставщик", "контрагент"),
    "контрагент": ("покупател", "поставщик", "counterparty"),
    "долг": ("взаиморасчет", "задолженност", "debt"),
    "задолженност": ("взаиморасчет", "долг", "debt"),
    "debt": ("взаиморасчет", "задолженност"),
    "отгрузк": ("реализаци", "продаж"),
    "реализаци": ("продаж",),
    "продаж": ("реализаци", "sales", "sale"),
    "sales": ("продаж",),
    "sale": ("продаж",),
    "закупк": ("поступлени", "purchase"),
    "purchase": ("закупк", "поступлени"),
    "выручк": ("revenue",),
    "revenue": ("выручк",),
    "склад": ("warehouse",),
    "warehouse": ("склад",),
    "stock": ("остатк", "склад", "stocks"),
    "цен": ("price",),
    "price": ("цен",),
    "курс": ("rate",),
    "менеджер": ("ответствен", "manager"),
}


MAX_ENDING = 3  # letters an uncut short word may have past an entry's stem ("цены" -> "цен")


def expand(stem_: str) -> tuple[str, ...]:
    """The stems a word's stem also means (empty when it has no entry). The stemmer leaves
    short words whole ("цены", "курсы"): the longest entry the word starts with, within an
    ending's length, stands for it."""
    if stem_ in SYNONYMS:
        return SYNONYMS[stem_]
    keys = [k for k in SYNONYMS if stem_.startswith(k) and len(stem_) - len(k) <= MAX_ENDING]
    return SYNONYMS[max(keys, key=len)] if keys else ()
