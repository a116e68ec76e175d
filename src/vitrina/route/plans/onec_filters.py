"""Filters of a 1C request placed on a candidate object: the configuration's own values (enum
values, predefined items) on the field of their type, typed names of items that are not
predefined as filters by name, and whether a configuration's report can take them at all.
"""

from __future__ import annotations

import re
from typing import Any

from vitrina.onec import Condition, MetaField, MetaObject, OneCSource
from vitrina.route.plans.onec_match import Request, Value, field_hits


def place_values(obj: MetaObject, values: list[Value]) -> tuple[list[Condition], list[Value]]:
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


def not_covered(query: str, asked: dict[str, Any], conditions: list[Condition]) -> list[str]:
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


def share_of(asked: int, missed: int) -> float:
    return (asked - missed) / asked if asked else 1.0


def place_items(
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
