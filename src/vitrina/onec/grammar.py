"""What a 1C request asks for, read from its grammar before any name is matched.

The kind of answer decides the kind of object first (issue 33): a balance at a date is a
balance register's Остатки, turnovers over a period its Обороты, both its ОстаткиИОбороты,
"движения регистра" its records, "список документов" a document's table, "реквизиты
справочника" the catalog's metadata, "какие отчеты есть" the configuration's reports. Names
then choose within that kind. A name that also looks like a table word ("РегистрНакопления1",
"Документ2") is a name, not a table word: only whole table words are read here.

"на конец ноября", "на 30.11", "as of" ask for a state at a date: a balance when the request
says nothing else, so "Stocks на конец месяца" is Остатки, never Обороты.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

Ask = str  # one of ASKS

ASKS = (
    "attributes",  # what a catalog (or document) holds: answered from the metadata
    "reports",  # which of the configuration's reports cover a subject: from the metadata
    "records",  # a register's records with their recorder: its plain table
    "balance_turnover",  # opening and closing balances with the movements: ОстаткиИОбороты
    "movements",  # receipts and issues (Приход/Расход) of a balance register: Обороты
    "balance",  # a balance at a date: Остатки
    "turnover",  # turnovers over a period: Обороты
    "at_date",  # a state at a date, no table word: Остатки or an information register's slice
    "documents",  # a list of documents of one kind
    "list",  # a list of objects (a catalog or documents)
    "",  # nothing said: the object's natural table
)

# whole words (after ё -> е, lower case) by what they say; a prefix match on the word
BALANCE = re.compile(r"\b(остат\w*|остаток|наличи\w*|balances?|on hand|in stock)\b")
TURNOVER = re.compile(
    r"\b(оборот\w*|продаж\w*|выручк\w*|закупк\w*|поступлени\w*|turnovers?|sales|revenue|"
    r"purchases?)\b"
)
OPENING_CLOSING = re.compile(r"\b(начальн\w*|конечн\w*|opening|closing)\b")
MOVEMENTS = re.compile(r"\b(приход\w*|расход\w*|выбыти\w*|receipts?|issues?)\b")
RECORDS = re.compile(r"\b(движени\w*|запис[иейя]\w*|movements?|records?|entries)\b")
RECORDER = re.compile(r"\b(регистратор\w*|recorders?)\b")
REGISTER = re.compile(r"\b(регистр\w*|registers?)\b")  # also a register named "РегистрX"
DOCUMENTS = re.compile(r"\b(документ|документы|документов|documents?)\b")
LIST = re.compile(r"\b(список\w*|перечен\w*|перечисли\w*|list)\b")
ATTRIBUTES = re.compile(
    r"\b(реквизит\w*|пол[ея]|полей|attributes?|fields?|columns?|состав\w*|структур\w*)\b"
)
OBJECT = re.compile(r"\b(справочник\w*|документ\w*|регистр\w*|catalogs?|documents?|registers?)\b")
QUESTION = re.compile(r"\b(как\w*|что|which|what|есть|have|has)\b")
REPORTS = re.compile(r"\b(отчет\w*|reports?)\b")
REPORT_LIST = re.compile(
    r"(\bкаки[ех] отчет|\bсписок отчет|\bперечень отчет|\bwhich reports\b|\bwhat reports\b|"
    r"\blist (of )?reports\b|\bотчеты есть\b|\bесть ли отчет)"
)
AT_DATE = re.compile(
    r"(\bна (конец|начало|дату|момент)\b|\bна \d{1,2}[./]\d{1,2}|\bна сегодня\b|\bна \d{1,2} \w+|"
    r"\bat the (end|start|beginning) of\b|\bas (of|at)\b|\bon \d)"
)


@dataclass(frozen=True)
class Asked:
    """The answer's kind and the words that said it (shown in the trace and the reasons)."""

    ask: Ask
    says: tuple[str, ...] = ()
    at_date: bool = False  # a state at a date was asked ("на конец ноября")
    close: tuple[Ask, ...] = ()  # other readings the words allow about as well


def _norm(text: str) -> str:
    return text.lower().replace("ё", "е")


def _found(low: str) -> dict[str, str]:
    return {
        name: m.group(0)
        for name, rx in (
            ("balance", BALANCE),
            ("turnover", TURNOVER),
            ("opening", OPENING_CLOSING),
            ("movements", MOVEMENTS),
            ("records", RECORDS),
            ("recorder", RECORDER),
            ("register", REGISTER),
            ("documents", DOCUMENTS),
            ("list", LIST),
            ("attributes", ATTRIBUTES),
            ("question", QUESTION),
            ("object", OBJECT),
            ("report_list", REPORT_LIST),
            ("at_date", AT_DATE),
        )
        if (m := rx.search(low))
    }


TABLE_TURNOVER = re.compile(r"\b(оборот\w*|turnovers?)\b")


def _attributes(f: dict[str, str], words: int) -> bool:
    # "поля регистра продажи": "продажи" names the register; only table words mean figures
    figures = "balance" in f or bool(TABLE_TURNOVER.search(f.get("turnover", "")))
    said = "question" in f or "list" in f or "object" in f or words <= 4
    return "attributes" in f and not figures and said


def _balance(f: dict[str, str]) -> bool:
    return "balance" in f or ("opening" in f and "turnover" not in f)


# (test of the words found, the answer's kind, other readings as close): the first that holds;
# the most specific grammar first (a list of reports before "отчет", records before turnovers)
RULES: tuple[tuple[Callable[[dict[str, str], int], bool], Ask, tuple[Ask, ...]], ...] = (
    (lambda f, n: "report_list" in f, "reports", ()),
    (_attributes, "attributes", ()),
    (
        lambda f, n: "recorder" in f or ("records" in f and "register" in f and not _balance(f)),
        "records",
        (),
    ),
    # "документы поступления товаров": the documents, whatever business word follows
    (lambda f, n: "documents" in f and "balance" not in f, "documents", ()),
    (
        lambda f, n: (
            _balance(f)
            and ("turnover" in f or "opening" in f or "movements" in f or "records" in f)
        ),
        "balance_turnover",
        (),
    ),
    (lambda f, n: "movements" in f, "movements", ()),
    (lambda f, n: _balance(f), "balance", ()),
    (lambda f, n: "turnover" in f and "at_date" in f, "turnover", ("balance",)),
    (lambda f, n: "turnover" in f, "turnover", ()),
    (lambda f, n: "at_date" in f, "at_date", ()),
    (lambda f, n: "list" in f, "list", ()),
    (lambda f, n: "records" in f, "turnover", ("records",)),  # "движение товаров": turnovers
)


def read_ask(text: str) -> Asked:
    """The kind of answer the request asks for (RULES, in order; "" when nothing is said)."""
    low = _norm(text)
    found = _found(low)
    says, at_date = tuple(found.values()), "at_date" in found
    for test, ask, close in RULES:
        if test(found, len(low.split())):
            return Asked(ask, says, at_date, close)
    return Asked("", says, at_date)
