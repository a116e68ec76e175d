"""A 1C chat follow-up keeps the previous turn's filters and groupings (issue 33, item 1).

The thread's previous plan (`RouteService._onec_threads`) holds the object, the kind and the
period, and also the filters placed and the groupings the request named. A follow-up that
keeps the object gets them back: a filter it names on another field is added, one on the same
field replaces the old one ("только склад брака" after "основной склад"), and "без отбора",
"without the filter" drops the kept ones. Groupings come back only where the follow-up names
none of its own; a field fixed by a filter is not a grouping.
"""

from __future__ import annotations

import re
from typing import Any

from vitrina.onec import Condition, write_query
from vitrina.trace import Trace

DROP_FILTERS = re.compile(
    r"без\s+(?:отбор|фильтр|услови|огранич)\w*|"
    r"(?:сними|снять|убери|убрать|сбрось|сбросить)\s+(?:все\s+)?(?:отбор|фильтр|услови)\w*|"
    r"по\s+всем\s+(?:склад|контрагент|покупател|организац|товар|номенклатур)\w*|"
    r"\bwithout\s+(?:the\s+|any\s+)?(?:filters?|conditions?)\b|\bno\s+filters?\b|"
    r"\b(?:remove|drop|clear)\s+(?:the\s+|all\s+)?(?:filters?|conditions?)\b",
    re.IGNORECASE,
)
CONDITION_KEYS = ("field", "expression", "says", "parameter", "parameter_type", "parameter_value")


def drops_filters(request: str) -> bool:
    """Whether the follow-up asks for the kept filters to be dropped."""
    return DROP_FILTERS.search(request) is not None


def _base(name: str) -> str:
    """The object's field a condition is on ("Покупатель.Наименование": Покупатель)."""
    return name.split(".", 1)[0]


def _has_field(register: Any, name: str) -> bool:
    return register.field(_base(name)) is not None


def _condition(kept: dict[str, Any]) -> Condition:
    known = {k: kept[k] for k in CONDITION_KEYS if kept.get(k) is not None}
    return Condition(**known, where=bool(kept.get("where")))


def _group(c: Any, groupings: list[str], fixed: set[str]) -> None:
    """The follow-up's groupings: its own, else the thread's; the object's defaults otherwise,
    without a field a filter fixes (where another is left)."""
    q = c.query
    if c.named_dims:
        return
    dims = [d for d in groupings if c.register.field(d) is not None and d not in fixed]
    if groupings:
        c.named_dims = groupings  # the user's grouping stays the thread's for later turns
    if dims and c.register.kind not in ("Document", "Catalog"):
        q.dimensions = dims
    elif fixed & set(q.dimensions):
        q.dimensions = [d for d in q.dimensions if d not in fixed] or q.dimensions


def carry_over(cands: list[Any], context: dict[str, Any], request: str, trace: Trace) -> None:
    """Put the thread's filters and groupings on each candidate of the kept object (in place)
    and write their queries again."""
    dropped = drops_filters(request)
    kept = [] if dropped else list(context.get("conditions") or [])
    groupings = list(context.get("dimensions") or [])
    if dropped and context.get("conditions"):
        trace.branch(
            "the follow-up drops the thread's filters",
            filters=[c.get("says") or c.get("field") for c in context["conditions"]],
        )
    for c in cands:
        q = c.query
        own = {_base(x.field) for x in q.conditions}  # a new filter on a field replaces the old
        added = [
            _condition(x)
            for x in kept
            if _base(x["field"]) not in own and _has_field(c.register, x["field"])
        ]
        q.conditions = [*q.conditions, *added]
        c.placed = [*c.placed, *added]
        fixed = {_base(x.field) for x in q.conditions}
        _group(c, groupings, fixed)
        write_query(q)
    if kept or groupings:
        trace.branch(
            "a follow-up: the thread's filters and groupings kept",
            filters=[x.get("says") or x["field"] for x in kept],
            groupings=groupings,
        )
