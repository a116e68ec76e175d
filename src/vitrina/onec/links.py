"""Navigation links a 1C client opens (Ctrl+G or a hyperlink): lists of objects and reports."""

from __future__ import annotations

import re

from vitrina.language.names import split_name
from vitrina.onec.model import MetaObject


def list_link(obj: MetaObject) -> str:
    """e1cib/list/РегистрНакопления.ТоварыНаСкладах: the object's list form."""
    return f"e1cib/list/{obj.ru_name}"


def report_link(report_name: str) -> str:
    """e1cib/app/Отчет.ОстаткиТоваровНаСкладах: opens a report form."""
    return f"e1cib/app/Отчет.{report_name}"


def report_name(words: str) -> str:
    """A 1C identifier for a report from a phrase:
    'остатки товаров на складах' -> 'ОстаткиТоваровНаСкладах'.

    >>> report_name("продажи по номенклатуре за месяц")
    'ПродажиПоНоменклатуреЗаМесяц'
    """
    parts = re.findall(r"[A-Za-zА-Яа-яЁё0-9]+", split_name(words))
    name = "".join(p[:1].upper() + p[1:] for p in parts) or "Отчет"
    return name if not name[0].isdigit() else f"Отчет{name}"
