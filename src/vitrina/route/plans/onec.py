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
a fit (ASK_FIT, onec_kind.py); a candidate whose fit is below KIND_FIT is ranked after every one that fits,
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

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from vitrina.onec import (
    Condition,
    MetaField,
    MetaObject,
    OneCQuery,
    OneCSource,
    check_query,
    check_sources,
    write_query,
)
from vitrina.route.plans.onec_filters import not_covered, place_items, place_values, share_of
from vitrina.route.plans.onec_followup import carry_over
from vitrina.route.plans.onec_kind import (
    KIND_FIT,
    RECORDED,
    kind_fit,
    names_own_object,
    natural_table,
    read_asked,
    short_kind,
    table_fit,
    virtual_tables,
)
from vitrina.route.plans.onec_match import Request, field_hits, label_hits, read
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
    named_dims: list[str] = field(default_factory=list)  # the groupings the request named

    @property
    def object_name(self) -> str:
        return (self.report or self.register).ru_name

    @property
    def fits(self) -> bool:
        """The object is of the kind the request asks for (its table fits what is asked)."""
        return self.scores.get("table", 0.0) >= KIND_FIT

    def sort_key(self) -> tuple:
        natural = self.query.virtual_table == natural_table(self.register)
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
    placed, unplaced_values = place_values(obj, req.values)
    placed_words = (
        set().union(*(v.words for v in req.values if v not in unplaced_values)) if placed else set()
    )
    by_name, named_words, unplaced_items = place_items(obj, source, req)
    placed += by_name
    placed_words |= named_words
    label = report or obj
    # a word that is another object's exact name ("РегистрСведений2") names only that one
    mine = {obj.name.lower(), label.name.lower()}
    free = allowed - {i for i in req.exact if req.words[i] not in mine}
    name_share, name_used = label_hits(label.name, label.synonyms, req.words, free - req.grouping)
    _, direct_used = label_hits(
        label.name, label.synonyms, req.words, free - req.grouping, direct=True
    )
    if report is not None:  # a report also answers with what its register is called
        r_share, r_used = label_hits(obj.name, obj.synonyms, req.words, free)
        name_used |= r_used if r_share >= 1.0 else set()
    fields = _named_fields(obj, source, req, allowed - value_words)  # a reference names it too
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
        named_dims=dims_named,
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
    fit, why = table_fit(obj, vt, asked)
    missing = not_covered(report_query, asked, conditions) if report is not None else []
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
            share_of(len(req.values) + len(req.items), len(unplaced_values) + len(unplaced_items)),
            "filters "
            + (", ".join(p.text for p in placed) or "-")
            + (f"; not placed: {', '.join(c.unplaced)}" if c.unplaced else ""),
        ),
        ("table", fit, f"{vt or 'table'}: {why}"),
        (
            "kind",
            0.8 if report is not None else kind_fit(obj, asked, bool(obj.resources)),
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
    asked = read_asked(request, today)
    req = read(request, source.config, asked["period"].span if asked["period"] else "")
    focus = None
    if context and context.get("object") and not names_own_object(source, req):
        focus = context["object"]
        asked = read_asked(request, today, context)
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
            carry_over(relevant, context or {}, request, trace)
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
        (c for c in valid[1:] if c.fits and short_kind(c.register) != short_kind(best.register)),
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
        "named_dimensions": c.named_dims,  # what a follow-up keeps (onec_followup)
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
