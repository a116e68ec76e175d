"""Candidate report plans for a 1C target: every object x its tables, ranked on evidence.

Candidates come from every register (each virtual table it has), document, catalog and the
configuration's own reports (read through the query of their schema). Each is scored on
explicit criteria, all shown to the user:

| criterion | weight | what it measures |
| --- | --- | --- |
| coverage | 4 | share of the request's content words the candidate explains |
| name | 3 | share of the object's name (or synonym) the request names |
| fields | 2 | share of the named fields (dimensions, attributes, via their reference types too) it has |
| filters | 2 | share of the request's values (enum values, predefined items) it can place |
| table | 2 | fit of the virtual table to what is asked (balances at a date, turnovers over a period) |
| kind | 1 | a register for figures; a document or catalog for "список"; a report that fits as is |

The kind comes first (issue 33): what is asked (`vitrina.onec.grammar.read_ask`: a balance at a
date, turnovers, both, movements, records, a document list) gives every (object kind, table)
a fit (ASK_FIT); a candidate whose fit is below KIND_FIT is ranked after every one that fits,
whatever its names score, so a catalog named "товары" never answers "остатки товаров". Names
then choose within the kind.

Ties are broken, in order: a valid query; the kind asked; the higher total; more request words explained;
more filters placed; a register over a report that reads it (the query can be shaped to the
request), a register over a document, a document over a catalog; the register's natural table;
then the full name, so the order never depends on the dump's file order. When the two best
plans of different objects stay equal on total and coverage, when the best fitting plan and
one of another kind score within CLOSE, or when no object of the asked kind is named, the
answer says it is unsure and shows the candidates.
"""  # noqa: E501

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from vitrina.language.periods import Period, extract_grain, extract_period
from vitrina.onec import (
    Condition,
    MetaField,
    MetaObject,
    OneCQuery,
    OneCSource,
    check_query,
    check_sources,
    read_ask,
    write_query,
)
from vitrina.route.plans.onec_match import Request, Value, field_hits, label_hits, read
from vitrina.trace import Trace

WEIGHTS = {"coverage": 4.0, "name": 3.0, "fields": 2.0, "filters": 2.0, "table": 2.0, "kind": 1.0}
KIND_ORDER = {
    "AccumulationRegister": 0,
    "InformationRegister": 0,
    "AccountingRegister": 0,
    "Report": 1,
    "Document": 2,
    "Catalog": 3,
}
RECORDED = ("AccumulationRegister", "AccountingRegister")
MAX_CANDIDATES = 60  # candidates kept after scoring (a large configuration has thousands of tables)


@dataclass
class OneCCandidate:
    id: str
    register: MetaObject  # the object the query reads (for a report: the register its query reads)
    query: OneCQuery
    report: MetaObject | None = None  # the configuration's own report, when the candidate is one
    report_query: str = ""
    total: float = 0.0
    valid: bool = True
    scores: dict[str, float] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    explained: set[int] = field(default_factory=set)
    placed: list[Condition] = field(default_factory=list)
    unplaced: list[str] = field(default_factory=list)
    check: Any = None

    @property
    def object_name(self) -> str:
        return (self.report or self.register).ru_name

    @property
    def fits(self) -> bool:
        """The object is of the kind the request asks for (its table fits what is asked)."""
        return self.scores.get("table", 0.0) >= KIND_FIT

    def sort_key(self) -> tuple:
        natural = self.query.virtual_table == _natural(self.register)
        return (
            not self.valid,
            not self.fits,
            -self.total,
            -len(self.explained),
            -len(self.placed),
            KIND_ORDER.get((self.report or self.register).kind, 4),
            not natural,
            self.id,
        )


def _natural(obj: MetaObject) -> str:
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


def _fields_of(obj: MetaObject) -> list[MetaField]:
    return [*obj.dimensions, *obj.resources, *obj.attributes]


def _named_fields(
    obj: MetaObject, source: OneCSource, req: Request, allowed: set[int]
) -> dict[str, set[int]]:
    out: dict[str, set[int]] = {}
    for f in _fields_of(obj):
        share, used = field_hits(f, source.config, req.words, allowed)
        if share >= 1.0 and used:
            out[f.name] = used
    return out


def _place(obj: MetaObject, values: list[Value]) -> tuple[list[Condition], list[Value]]:
    """Each value on the object's field of its type (the first dimension, else attribute)."""
    placed, unplaced = [], []
    for v in values:
        target = next(
            (
                f
                for f in (*obj.dimensions, *obj.attributes)
                if v.type_ref in [t.rpartition(":")[2].replace("Ref.", ".") for t in f.types]
            ),
            None,
        )
        if target is None:
            unplaced.append(v)
        else:
            placed.append(Condition(field=target.name, expression=v.expression, says=v.says))
    return placed, unplaced


PERIOD_PARAMETER = re.compile(r"&\w*(период|дат|границ|момент|period|date)", re.IGNORECASE)


def _not_covered(query: str, asked: dict[str, Any], conditions: list[Condition]) -> list[str]:
    """What the request asks that a report's schema query cannot take: the period (no date
    parameter) and each filter whose field the query neither filters nor offers for a filter
    (the text after ИЗ: the virtual table's condition, ГДЕ and the composition braces)."""
    missing = ["the period"] if asked["period"] and not PERIOD_PARAMETER.search(query) else []
    source = re.split(r"\bИЗ\b", query.upper(), maxsplit=1)[-1]
    for c in conditions:
        base = c.field.partition(".")[0]
        if not re.search(rf"\b{re.escape(base.upper())}\b", source):
            missing.append(f"the filter {c.text}")
    return missing


def _share(asked: int, missed: int) -> float:
    return (asked - missed) / asked if asked else 1.0


def _place_items(
    obj: MetaObject, source: OneCSource, req: Request
) -> tuple[list[Condition], set[int], list[str]]:
    """Items named in the request that the configuration does not predefine, as filters by
    name on the field their noun names: `Склад.Наименование = &Склад` for a reference to a
    catalog, `Warehouse = &Warehouse` for a string field. Never dropped: an item with no such
    field in the object is returned as unplaced (the answer says so)."""
    placed: list[Condition] = []
    words: set[int] = set()
    unplaced: list[str] = []
    for item in req.items:
        target = next(
            (
                f
                for f in (*obj.dimensions, *obj.attributes)
                if field_hits(f, source.config, req.words, {item.noun})[0] >= 1.0
                and (_is_catalog_ref(f) or _is_string(f))
            ),
            None,
        )
        if target is None:
            unplaced.append(f"{req.words[item.noun]} {item.name} → {obj.ru_name}")
            continue
        param = target.name if all(c.parameter != target.name for c in placed) else None
        param = param or f"{target.name}{len(placed) + 1}"
        placed.append(
            Condition(
                field=f"{target.name}.Наименование" if _is_catalog_ref(target) else target.name,
                expression=f"&{param}",
                says=f"{req.words[item.noun]} {item.name}",
                parameter=param,
                parameter_type="Строка",
                parameter_value=item.name,
                where=True,  # a name is read through a reference: after the virtual table
            )
        )
        words |= item.words | {item.noun}
    return placed, words, unplaced


def _is_catalog_ref(f: MetaField) -> bool:
    return (f.ref_target or "").startswith("Catalog.")


def _is_string(f: MetaField) -> bool:
    return any(t.rpartition(":")[2] in ("string", "String") for t in f.types)


def _asked(request: str, today: date, context: dict[str, Any] | None = None) -> dict[str, Any]:
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


def _names_own_object(source: OneCSource, req: Request) -> bool:
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
    "records": {("AR", ""): 1.0, ("AT", ""): 1.0, ("ACC", ""): 1.0, ("IR", ""): 0.6},
    "documents": {("Document", ""): 1.0, ("Catalog", ""): 0.2},
    "list": {
        ("Document", ""): 1.0,
        ("Catalog", ""): 1.0,
        ("IR", ""): 1.0,
        ("IR", "СрезПоследних"): 0.8,
    },
}
KIND_FIT = 0.5  # below it the object is of another kind than asked: ranked after every fitting one


def _short_kind(obj: MetaObject) -> str:
    if obj.kind == "AccumulationRegister":
        return "AR" if obj.register_type == "Balance" else "AT"
    return {"AccountingRegister": "ACC", "InformationRegister": "IR"}.get(obj.kind, obj.kind)


def _table_fit(obj: MetaObject, vt: str, asked: dict[str, Any]) -> tuple[float, str]:
    fits = ASK_FIT.get(asked["ask"])
    if fits is not None:
        fit = fits.get((_short_kind(obj), vt), 0.0)
        return fit, f"{asked['ask'].replace('_', ' ')} asked"
    if vt == "" and obj.kind in ("AccumulationRegister", "AccountingRegister"):
        return 0.0, "records not asked"
    balance, turnover = asked["balance"], asked["turnover"]
    if obj.kind in ("Document", "Catalog"):
        if asked["list"] or not (balance or turnover):
            return 0.8, "a list of objects"
        return 0.2, "balances or turnovers asked: a list holds neither"
    if obj.kind == "InformationRegister":
        if turnover or asked["movements"]:
            return 0.3, "movements asked: an information register holds values, not movements"
        if balance:
            return 0.6, "the latest values at a date" if vt == "СрезПоследних" else "all records"
        return (
            (1.0, "the latest values")
            if vt == "СрезПоследних" or not obj.periodic
            else (0.5, "all records")
        )
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
    natural = _natural(obj)
    return (
        1.0 if vt == natural else 0.3
    ), f"nothing said: {natural} is the register's natural table"


def _kind_fit(obj: MetaObject, asked: dict[str, Any], has_resources: bool) -> float:
    if asked["list"]:
        return 1.0 if obj.kind in ("Catalog", "Document") else 0.3
    if obj.kind in ("AccumulationRegister", "AccountingRegister", "InformationRegister"):
        return 1.0 if has_resources else 0.5
    return 0.2 if asked["balance"] or asked["turnover"] else 0.5


def _candidate(
    obj: MetaObject,
    vt: str,
    source: OneCSource,
    req: Request,
    asked: dict[str, Any],
    req_field_words: set[int],
    report: MetaObject | None = None,
    report_query: str = "",
) -> OneCCandidate:
    # an item's noun ("покупателю Ромашка") is scored under filters, placed or not: not twice
    allowed = set(req.content) - {i.noun for i in req.items}
    item_words = set().union(set(), *(i.words for i in req.items))
    value_words = set().union(item_words, *(v.words for v in req.values))
    placed, unplaced_values = _place(obj, req.values)
    placed_words = (
        set().union(*(v.words for v in req.values if v not in unplaced_values)) if placed else set()
    )
    by_name, named_words, unplaced_items = _place_items(obj, source, req)
    placed += by_name
    placed_words |= named_words
    label = report or obj
    name_share, name_used = label_hits(
        label.name, label.synonyms, req.words, allowed - req.grouping
    )
    _, direct_used = label_hits(
        label.name, label.synonyms, req.words, allowed - req.grouping, direct=True
    )
    if report is not None:  # a report also answers with what its register is called
        r_share, r_used = label_hits(obj.name, obj.synonyms, req.words, allowed)
        name_used |= r_used if r_share >= 1.0 else set()
    fields = _named_fields(obj, source, req, allowed - value_words)
    fields = {
        n: u
        for n, u in fields.items()
        if not (u <= direct_used and n.lower() not in label.name.lower())
    }
    booleans = [
        n for n in fields if (f := obj.field(n)) and any(t.endswith("boolean") for t in f.types)
    ]
    conditions = placed + [Condition(field=n, expression="ИСТИНА", says=n) for n in booleans]
    dims_named = [
        n for n in fields if n not in booleans and obj.field(n) and obj.field(n).role != "resource"
    ]
    res_named = [n for n in fields if obj.field(n) and obj.field(n).role == "resource"]
    explained = name_used | placed_words | set().union(set(), *fields.values())
    dims = dims_named or [d.name for d in obj.dimensions][:3]
    filtered = {c.field for c in conditions}
    if not dims_named and [d for d in dims if d not in filtered]:
        dims = [d for d in dims if d not in filtered]  # a field fixed by a filter is not a grouping
    if obj.kind in ("Document", "Catalog"):
        dims = dims_named
    resources = res_named or [r.name for r in obj.resources if r.numeric]
    if obj.kind == "InformationRegister" and not res_named:
        resources = [r.name for r in obj.resources]
    period = asked["period"]
    q = OneCQuery(
        register=obj,
        virtual_table=vt,
        dimensions=dims,
        resources=resources,
        periodicity=asked["grain"] if vt in ("Обороты", "ОстаткиИОбороты") else None,
        conditions=conditions,
        movements=asked["movements"],
        dated=bool(period) and (obj.kind == "Document" or (vt == "" and obj.kind in RECORDED)),
    )
    write_query(q)
    cid = f"{obj.ru_name}.{vt}" if vt else obj.ru_name
    c = OneCCandidate(
        id=report.ru_name if report else cid,
        register=obj,
        query=q,
        report=report,
        report_query=report_query,
        explained=explained,
        placed=conditions,
        unplaced=[
            " ".join(req.words[i] for i in sorted(v.words)) + f" → {v.says}"
            for v in unplaced_values
        ]
        + unplaced_items,
    )
    fit, why = _table_fit(obj, vt, asked)
    missing = _not_covered(report_query, asked, conditions) if report is not None else []
    if missing:  # the report's own query would drop what was asked: a query is written instead
        fit, why = 0.0, f"the report's schema does not cover {', '.join(missing)}"
    named_fields = req_field_words - name_used
    fields_share = (
        (len(set().union(set(), *fields.values()) & named_fields) / len(named_fields))
        if named_fields
        else 1.0
    )
    parts = [
        (
            "coverage",
            len(explained & allowed) / len(allowed) if allowed else 0.0,
            f"explains {len(explained & allowed)} of {len(allowed)} words",
        ),
        ("name", name_share, f"{label.ru_name} named {name_share:.0%}"),
        ("fields", fields_share, "fields " + (", ".join(fields) or "-")),
        (
            "filters",
            _share(len(req.values) + len(req.items), len(unplaced_values) + len(unplaced_items)),
            "filters "
            + (", ".join(p.text for p in placed) or "-")
            + (f"; not placed: {', '.join(c.unplaced)}" if c.unplaced else ""),
        ),
        ("table", fit, f"{vt or 'table'}: {why}"),
        (
            "kind",
            0.8 if report is not None else _kind_fit(obj, asked, bool(obj.resources)),
            label.kind,
        ),
    ]
    for key, value, reason in parts:
        c.scores[key] = round(value, 3)
        c.total += WEIGHTS[key] * value
        c.reasons.append(f"{key}: {reason} ({value:.2f} x {WEIGHTS[key]:g})")
    c.total = round(c.total, 3)
    return c


def _field_words(source: OneCSource, req: Request) -> set[int]:
    """The request's words that name a field of some object (not a value): what "fields" scores."""
    value_words = set().union(set(), *(v.words for v in req.values))
    fields = [f for o in source.config.objects.values() for f in _fields_of(o)]
    return {
        i
        for i in req.content - value_words
        if any(field_hits(f, source.config, req.words, {i})[0] > 0 for f in fields)
    }


def _report_source(report: MetaObject, source: OneCSource) -> tuple[MetaObject, str, str] | None:
    """The register and virtual table the report's first query reads, from its parse tree."""
    for text in report.queries:
        check = check_query(text)
        for vt_name in check.virtual_tables:
            head, _, vt = vt_name.rpartition(".")
            obj = source.config.get(head)
            if obj is not None:
                return obj, vt, text
    return None


def _check(c: OneCCandidate, source: OneCSource, trace: Trace) -> None:
    text = c.report_query or c.query.text
    c.check = check_query(text, trace=trace)
    problems = check_sources(text, source.config, trace=trace)
    if c.check.checked and (not c.check.ok or problems):
        c.valid = False
        c.reasons.append("query: " + "; ".join(str(e) for e in [*c.check.errors, *problems]))
    else:
        c.reasons.append(
            "query: " + ("accepted by " + c.check.parser if c.check.checked else "not checked")
        )


def onec_candidates(
    request: str,
    source: OneCSource,
    facts: dict[str, Any],
    today: date,
    trace: Trace,
    context: dict[str, Any] | None = None,
) -> tuple[list[OneCCandidate], dict[str, Any]]:
    """Every object's candidates, scored and sorted best first, and what the request asked for.

    `context` is the thread's previous 1C plan: a follow-up that names no register, document
    or report of its own keeps that object (and its kind and period where it says none)."""
    asked = _asked(request, today)
    req = read(request, source.config, asked["period"].span if asked["period"] else "")
    focus = None
    if context and context.get("object") and not _names_own_object(source, req):
        focus = context["object"]
        asked = _asked(request, today, context)
        trace.branch("a follow-up: the thread's 1C object kept", object=focus, ask=asked["ask"])
    period = asked["period"]
    field_words = _field_words(source, req)
    out: list[OneCCandidate] = []
    for obj in source.config.objects.values():
        if obj.kind == "Report":
            found = _report_source(obj, source)
            if found is not None:
                out.append(
                    _candidate(
                        found[0],
                        found[1],
                        source,
                        req,
                        asked,
                        field_words,
                        report=obj,
                        report_query=found[2],
                    )
                )
            continue
        for vt in virtual_tables(obj):
            out.append(_candidate(obj, vt, source, req, asked, field_words))
    relevant = [c for c in out if c.scores["name"] > 0 or c.scores["coverage"] > 0]
    if focus:
        kept_object = [c for c in out if c.register.full_name == focus and c.report is None]
        if any(c.fits for c in kept_object) or not asked["ask"]:
            relevant = kept_object
        else:
            trace.branch("the follow-up asks what the thread's object cannot give: a new choice")
    relevant.sort(key=OneCCandidate.sort_key)
    kept = relevant[:MAX_CANDIDATES]
    for c in kept:
        _check(c, source, trace)
    kept.sort(key=OneCCandidate.sort_key)
    trace.measurement(
        "1C candidates scored",
        objects=len(source.config.objects),
        candidates=len(out),
        relevant=len(relevant),
        kept=len(kept),
    )
    shown = {
        "ask": asked["ask"],
        "follow_up": focus,
        "balance": asked["balance"],
        "turnover": asked["turnover"],
        "grain": asked["grain"],
        "period": [period.start.isoformat(), period.end.isoformat()] if period else None,
        "values": [v.expression for v in req.values],
        "words": [req.words[i] for i in sorted(req.content)],
    }
    return kept, shown


CLOSE = 0.5  # two objects of different kinds within this total are too close to choose between


def unsure(cands: list[OneCCandidate], follow_up: bool = False) -> str | None:
    """Why the choice is unsure: nothing of the request named (a follow-up names its object
    through the thread), no object of the asked kind named, two objects tied, or two objects
    of different kinds scoring close."""
    valid = [c for c in cands if c.valid]
    if not valid:
        return None
    best = valid[0]
    if not follow_up and best.scores["name"] == 0 and best.scores["coverage"] < 0.5:
        return "no object is named by the request"
    if not best.fits:
        return f"no object of the kind asked is named; the nearest is {best.object_name}"
    rival = next((c for c in valid[1:] if c.object_name != best.object_name), None)
    if rival and rival.total == best.total and len(rival.explained) == len(best.explained):
        return f"{best.object_name} and {rival.object_name} fit equally"
    other = next(
        (c for c in valid[1:] if c.fits and _short_kind(c.register) != _short_kind(best.register)),
        None,
    )
    if other and best.total - other.total < CLOSE and other.object_name != best.object_name:
        return (
            f"{best.object_name} ({best.query.virtual_table or 'table'}) and "
            f"{other.object_name} ({other.query.virtual_table or 'table'}) score close"
        )
    return None


def onec_row(c: OneCCandidate) -> dict[str, Any]:
    """A candidate as plain data for the graph state: enough to write its query again."""
    q = c.query
    return {
        "id": c.id,
        "label": f"{c.object_name} · {q.virtual_table or '—'}",
        "total": c.total,
        "code_score": c.total,
        "valid": c.valid,
        "fits": c.fits,
        "scores": c.scores,
        "reasons": c.reasons,
        "query": c.report_query or q.text,
        "object": c.object_name,
        "register": c.register.full_name,
        "report": c.report.full_name if c.report else None,
        "virtual_table": q.virtual_table,
        "dimensions": q.dimensions,
        "resources": q.resources,
        "periodicity": str(q.periodicity) if q.periodicity else None,
        "movements": q.movements,
        "dated": q.dated,
        "conditions": [
            {
                "field": x.field,
                "expression": x.expression,
                "says": x.says,
                **(
                    {
                        "parameter": x.parameter,
                        "parameter_type": x.parameter_type,
                        "parameter_value": x.parameter_value,
                        "where": x.where,
                    }
                    if x.parameter
                    else {}
                ),
            }
            for x in c.placed
        ],
        "unplaced": c.unplaced,
        "check": {
            "checked": c.check.checked,
            "ok": c.valid,
            "parser": c.check.parser,
            "errors": [str(e) for e in c.check.errors],
            "rewrites": c.check.rewrites,
            "forgiven": [f"{e.rule}: {e}" for e in c.check.forgiven],
            "virtual_tables": c.check.virtual_tables,
        },
    }
