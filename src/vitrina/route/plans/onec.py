"""Candidate report plans for a 1C target: register x virtual table, scored, parser-checked.

A balance register can be read as Остатки (balances at a date), Обороты (movements over
a period) or ОстаткиИОбороты; a turnover register only as Обороты; a periodic
information register as СрезПоследних; a non-periodic one directly. The request's
words decide which is right: "остатки", "наличие", "balance" mean balances; "продажи",
"оборот", "приход", "за месяц" (a period) mean turnovers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from vitrina.ask import read_question
from vitrina.language.names import stems
from vitrina.language.periods import extract_period
from vitrina.onec import MetaObject, OneCQuery, OneCSource, check_query, write_query
from vitrina.route.tools import request_words, search_catalog
from vitrina.route.tools.match import phrase_hits
from vitrina.trace import Trace

BALANCE_WORDS = ("остатк", "остаток", "наличи", "на дату", "balance", "stock", "on hand")
TURNOVER_WORDS = ("продаж", "оборот", "приход", "расход", "выручк", "поступлени", "движени", "sales", "turnover",
                  "movement", "receipt")
MAX_REGISTERS = 2


@dataclass
class OneCCandidate:
    id: str
    register: MetaObject
    query: OneCQuery
    total: float = 0.0
    valid: bool = True
    scores: dict[str, float] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    check: Any = None


def _virtual_tables(obj: MetaObject) -> list[str]:
    if obj.kind == "AccumulationRegister":
        return ["Остатки", "Обороты", "ОстаткиИОбороты"] if obj.register_type == "Balance" else ["Обороты"]
    if obj.kind == "AccountingRegister":
        return ["Остатки", "Обороты"]
    if obj.kind == "InformationRegister":
        return ["СрезПоследних", ""] if obj.periodic else [""]
    return []


def _named(fields: list, words: list[str]) -> list[str]:
    out = []
    for f in fields:
        labels = [f.name, *f.synonyms.values()]
        if any(phrase_hits(stems(label), words) for label in labels):
            out.append(f.name)
    return out


def _has(words: list[str], text: str, stems_: tuple[str, ...]) -> bool:
    low = text.lower()
    return any(phrase_hits(s.split(), words) if " " not in s else s in low for s in stems_)


def onec_candidates(request: str, source: OneCSource, facts: dict[str, Any], today: date,
                    trace: Trace) -> tuple[list[OneCCandidate], dict[str, Any]]:
    """Scored candidates (best first) and what the request asked for."""
    words = request_words(request)
    hits = facts.get("hits") or [h.as_dict() for h in search_catalog(source.catalog, words)]
    tables = [h for h in hits if h["kind"] == "table"]
    registers = [(source.object_of(h["name"]), h["score"]) for h in tables]
    registers = [(o, s) for o, s in registers if o is not None and _virtual_tables(o)][:MAX_REGISTERS]
    period = extract_period(request, today)
    grain = read_question(request, source.catalog).grain
    wants_balance = _has(words, request, BALANCE_WORDS)
    wants_turnover = _has(words, request, TURNOVER_WORDS) or (period is not None and not wants_balance)
    asked = {"balance": wants_balance, "turnover": wants_turnover, "grain": grain,
             "period": [period.start.isoformat(), period.end.isoformat()] if period else None}
    top = max((s for _, s in registers), default=1.0) or 1.0
    out: list[OneCCandidate] = []
    for obj, hit_score in registers:
        dims = _named(obj.dimensions, words)
        resources = _named(obj.resources, words) or [r.name for r in obj.resources]
        for vt in _virtual_tables(obj):
            q = OneCQuery(register=obj, virtual_table=vt, dimensions=dims or [d.name for d in obj.dimensions],  # type: ignore[arg-type]
                          resources=resources, periodicity=grain if vt in ("Обороты", "ОстаткиИОбороты") else None)
            write_query(q)
            c = OneCCandidate(id=f"{obj.ru_name}.{vt}" if vt else obj.ru_name, register=obj, query=q)
            _score(c, hit_score / top, dims, asked, trace)
            out.append(c)
    out.sort(key=lambda c: (not c.valid, -c.total))
    return out, asked


def _vt_fit(obj: MetaObject, vt: str, asked: dict[str, Any]) -> tuple[float, str]:
    if obj.kind == "InformationRegister":
        if asked["balance"] or asked["turnover"]:
            return 0.2, "balances or turnovers asked: an information register holds neither"
        return (1.0, "periodic register: the latest values") if vt == "СрезПоследних" or not obj.periodic \
            else (0.5, "all records of the register")
    if asked["balance"] and not asked["turnover"]:
        value = {"Остатки": 1.0, "ОстаткиИОбороты": 0.5}.get(vt, 0.0)
        return value, "balances asked"
    if asked["turnover"] and not asked["balance"]:
        value = {"Обороты": 1.0, "ОстаткиИОбороты": 0.5}.get(vt, 0.0)
        return value, "turnovers over a period asked"
    if asked["balance"] and asked["turnover"]:
        return {"ОстаткиИОбороты": 1.0}.get(vt, 0.5), "balances and turnovers asked"
    natural = "Остатки" if obj.register_type == "Balance" or obj.kind == "AccountingRegister" else "Обороты"
    return (1.0 if vt == natural else 0.3), f"nothing said: {natural} is the register's natural table"


def _score(c: OneCCandidate, relevance: float, named_dims: list[str], asked: dict[str, Any], trace: Trace) -> None:
    fit, why = _vt_fit(c.register, c.query.virtual_table, asked)
    dims_value = 1.0 if not named_dims else len(set(named_dims) & set(c.query.dimensions)) / len(named_dims)
    grain_ok = (c.query.periodicity or None) == asked["grain"]
    parts = [("register", 3.0, relevance, f"search relevance {relevance:.2f}"),
             ("virtual_table", 3.0, fit, f"{c.query.virtual_table or 'table'}: {why}"),
             ("dimensions", 2.0, dims_value, f"dimensions {', '.join(c.query.dimensions) or '-'}"),
             ("grain", 1.0, 1.0 if grain_ok else 0.0, f"periodicity {c.query.periodicity or 'none'}, asked "
                                                       f"{asked['grain'] or 'none'}")]
    for name, weight, value, reason in parts:
        c.scores[name] = round(value, 3)
        c.total += weight * value
        c.reasons.append(f"{name}: {reason} ({value:.2f} x {weight:g})")
    c.check = check_query(c.query.text, trace=trace)
    if c.check.checked and not c.check.ok:
        c.valid = False
        c.reasons.append("syntax: " + "; ".join(str(e) for e in c.check.errors))
    else:
        c.reasons.append("syntax: " + ("accepted by " + c.check.parser if c.check.checked else "not checked"))
    c.total = round(c.total, 3)
