"""What kind of 1C object and table a request asks for, and how well each candidate fits it.

The kind decides before names (issue 33, decision 192): `read_ask` reads what is asked from
the request's grammar; `ASK_FIT` gives every (object kind, table) a fit to it; a candidate
below KIND_FIT ranks after every one that fits. With nothing asked, the register's natural
table fits best. A follow-up in a thread keeps the thread's object, kind and period.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from vitrina.language.periods import Period, extract_grain, extract_period
from vitrina.onec import MetaObject, OneCSource, read_ask
from vitrina.route.plans.onec_match import Request, label_hits

RECORDED = ("AccumulationRegister", "AccountingRegister")


def natural_table(obj: MetaObject) -> str:
    if obj.kind == "AccumulationRegister":
        return "Остатки" if obj.register_type == "Balance" else "Обороты"
    if obj.kind == "AccountingRegister":
        return "Остатки"
    return "СрезПоследних" if obj.kind == "InformationRegister" and obj.periodic else ""


def virtual_tables(obj: MetaObject) -> list[str]:
    """The tables a candidate may read; "" of a register is its records (движения)."""
    if obj.kind == "AccumulationRegister":
        return (
            ["Остатки", "Обороты", "ОстаткиИОбороты", ""]
            if obj.register_type == "Balance"
            else ["Обороты", ""]
        )
    if obj.kind == "AccountingRegister":
        return ["Остатки", "Обороты", ""]
    if obj.kind == "InformationRegister":
        return ["СрезПоследних", ""] if obj.periodic else [""]
    if obj.kind in ("Document", "Catalog"):
        return [""]
    return []


def read_asked(request: str, today: date, context: dict[str, Any] | None = None) -> dict[str, Any]:
    """What is asked; `context` (the thread's previous 1C plan, for a follow-up) fills the
    kind and the period the new words leave unsaid ("а на 31.10?" keeps "остатки")."""
    period = extract_period(request, today)
    grammar = read_ask(request)
    at_date = grammar.at_date or bool(period and period.span.lower().startswith("на "))
    ask = grammar.ask
    if context and period is None and context.get("period"):
        period = Period.model_validate(context["period"])
    if ask == "" and context and context.get("ask") and not at_date:
        ask = context["ask"]
    if ask == "" and at_date:
        ask = "at_date"
    if ask == "" and period:
        ask = "turnover"
    return {
        "ask": ask,
        "close": grammar.close,
        "balance": ask in ("balance", "balance_turnover", "at_date"),
        "turnover": ask in ("turnover", "balance_turnover"),
        "movements": ask == "movements",
        "list": ask in ("list", "documents"),
        "grain": extract_grain(request),
        "period": period,
    }


FOLLOWED = (
    "AccumulationRegister",
    "InformationRegister",
    "AccountingRegister",
    "Document",
    "Report",
)


def names_own_object(source: OneCSource, req: Request) -> bool:
    """The request names a register, a document or a report of its own: a new subject, not a
    follow-up (a catalog named, "и по складам", is a grouping of the previous object)."""
    return any(
        label_hits(o.name, o.synonyms, req.words, req.content)[0] >= 1.0
        for o in source.config.objects.values()
        if o.kind in FOLLOWED
    )


# fit of (object kind, virtual table) to what is asked: the kind decides before any name
# ("AR" a balance register, "AT" a turnovers register, "IR" an information register)
ASK_FIT: dict[str, dict[tuple[str, str], float]] = {
    "balance": {
        ("AR", "Остатки"): 1.0,
        ("AR", "ОстаткиИОбороты"): 0.4,
        ("ACC", "Остатки"): 1.0,
        ("IR", "СрезПоследних"): 0.2,
    },
    "at_date": {
        ("AR", "Остатки"): 1.0,
        ("ACC", "Остатки"): 1.0,
        ("IR", "СрезПоследних"): 1.0,
        ("IR", ""): 0.6,
        ("AR", "ОстаткиИОбороты"): 0.3,
        ("AT", "Обороты"): 0.2,
    },
    "turnover": {
        ("AT", "Обороты"): 1.0,
        ("AR", "Обороты"): 1.0,
        ("ACC", "Обороты"): 1.0,
        ("AR", "ОстаткиИОбороты"): 0.5,
        ("IR", ""): 0.3,
        ("IR", "СрезПоследних"): 0.2,
        ("Document", ""): 0.3,
    },
    "balance_turnover": {
        ("AR", "ОстаткиИОбороты"): 1.0,
        ("AR", "Остатки"): 0.4,
        ("AR", "Обороты"): 0.4,
        ("ACC", "Остатки"): 0.4,
    },
    "movements": {("AR", "Обороты"): 1.0, ("AR", "ОстаткиИОбороты"): 0.8, ("AT", "Обороты"): 0.5},
    "records": {("AR", ""): 1.0, ("AT", ""): 1.0, ("ACC", ""): 1.0, ("IR", ""): 1.0},
    "documents": {("Document", ""): 1.0, ("Catalog", ""): 0.2},
    "list": {
        ("Document", ""): 1.0,
        ("Catalog", ""): 1.0,
        ("IR", ""): 1.0,
        ("IR", "СрезПоследних"): 0.8,
    },
}
KIND_FIT = 0.5  # below it the object is of another kind than asked: ranked after every fitting one


def short_kind(obj: MetaObject) -> str:
    if obj.kind == "AccumulationRegister":
        return "AR" if obj.register_type == "Balance" else "AT"
    return {"AccountingRegister": "ACC", "InformationRegister": "IR"}.get(obj.kind, obj.kind)


def table_fit(obj: MetaObject, vt: str, asked: dict[str, Any]) -> tuple[float, str]:
    """How well a candidate's table fits what is asked, and why (the trace says it): a named
    ask reads ASK_FIT; else the object's kind picks the rules its flags are read by."""
    fits = ASK_FIT.get(asked["ask"])
    if fits is not None:
        fit = fits.get((short_kind(obj), vt), 0.0)
        return fit, f"{asked['ask'].replace('_', ' ')} asked"
    if vt == "" and obj.kind in RECORDED:
        return 0.0, "records not asked"
    if obj.kind in ("Document", "Catalog"):
        return _list_fit(asked)
    if obj.kind == "InformationRegister":
        return _values_fit(obj, vt, asked)
    return _register_fit(obj, vt, asked)


def _list_fit(asked: dict[str, Any]) -> tuple[float, str]:
    """A document or a catalog: a list of objects, holding no balances or turnovers."""
    if asked["list"] or not (asked["balance"] or asked["turnover"]):
        return 0.8, "a list of objects"
    return 0.2, "balances or turnovers asked: a list holds neither"


def _values_fit(obj: MetaObject, vt: str, asked: dict[str, Any]) -> tuple[float, str]:
    """An information register: values (the latest ones, or all records), never movements."""
    if asked["turnover"] or asked["movements"]:
        return 0.3, "movements asked: an information register holds values, not movements"
    if asked["balance"]:
        return 0.6, "the latest values at a date" if vt == "СрезПоследних" else "all records"
    return (
        (1.0, "the latest values")
        if vt == "СрезПоследних" or not obj.periodic
        else (0.5, "all records")
    )


def _register_fit(obj: MetaObject, vt: str, asked: dict[str, Any]) -> tuple[float, str]:
    """An accumulation or accounting register: the virtual table of what is asked
    (balances, turnovers, receipts and issues), else the register's natural table."""
    balance, turnover = asked["balance"], asked["turnover"]
    if balance and turnover:
        return {"ОстаткиИОбороты": 1.0}.get(vt, 0.4), "balances and turnovers asked"
    if balance:
        return {"Остатки": 1.0, "ОстаткиИОбороты": 0.4}.get(vt, 0.0), "balances at a date asked"
    if asked["movements"]:
        if obj.register_type != "Balance":
            return 0.5, "receipts and issues asked: a turnovers register has no Приход/Расход"
        return {"Обороты": 1.0, "ОстаткиИОбороты": 0.8}.get(vt, 0.0), "receipts and issues asked"
    if turnover:
        fit = {"Обороты": 1.0, "ОстаткиИОбороты": 0.5}.get(vt, 0.0)
        return fit, "movements over a period asked"
    natural = natural_table(obj)
    return (
        1.0 if vt == natural else 0.3
    ), f"nothing said: {natural} is the register's natural table"


def kind_fit(obj: MetaObject, asked: dict[str, Any], has_resources: bool) -> float:
    if asked["list"]:
        return 1.0 if obj.kind in ("Catalog", "Document") else 0.3
    if obj.kind in ("AccumulationRegister", "AccountingRegister", "InformationRegister"):
        return 1.0 if has_resources else 0.5
    return 0.2 if asked["balance"] or asked["turnover"] else 0.5
