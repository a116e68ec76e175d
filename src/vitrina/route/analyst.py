"""The metadata analyst's policy: which action comes next, given what has been found.

Pure functions over the facts dict, so the ReAct node stays one Thought -> Action ->
Observation step and the sequence is testable without a graph. A productive search
runs search -> columns -> values -> relation path and finishes; a fruitless one
relaxes its search (loose stems, measure index, word by word) until the graph's MAX
steps guard stops it.
"""

from __future__ import annotations

from typing import Any

from vitrina.catalog import Catalog
from vitrina.route.tools import (
    lookup_columns,
    lookup_values,
    relation_path,
    search_catalog,
    search_measures,
)
from vitrina.trace import Trace

THOUGHTS = {
    "search_catalog": (
        "Ищу в каталоге объекты, названные в запросе: {arg}",
        "Searching the catalog for objects the request names: {arg}",
    ),
    "lookup_columns": (
        "Смотрю поля лучшего кандидата {arg}",
        "Looking at the columns of the best candidate {arg}",
    ),
    "lookup_values": (
        "Проверяю, нет ли в запросе значений из справочников",
        "Checking the request for dictionary values",
    ),
    "relation_path": ("Проверяю путь связей {arg}", "Checking the relation path {arg}"),
    "search_catalog_loose": (
        "Точных совпадений нет: ищу по началам слов",
        "No exact match: searching by word beginnings",
    ),
    "search_measures": (
        "Ищу меры в индексе документации",
        "Searching the measures of the docs index",
    ),
    "search_word": ("Ищу по одному слову: {arg}", "Searching for one word: {arg}"),
    "recorders": (
        "Ищу документы, которые делают движения по регистру {arg}",
        "Looking up the documents that record into {arg}",
    ),
    "attributes": (
        "Читаю реквизиты объекта в метаданных: {arg}",
        "Reading the object's attributes from the metadata: {arg}",
    ),
    "reports": (
        "Ищу отчёты конфигурации, чьи схемы читают тему запроса: {arg}",
        "Looking for the configuration's reports whose schemas read the subject: {arg}",
    ),
}


def thought(action: str, lang: str, detail: str | None = None) -> str:
    name, _, arg = action.partition(":")
    ru, en = THOUGHTS[name]
    return (ru if lang == "ru" else en).format(arg=detail or arg or "")


def next_action(facts: dict[str, Any], *, has_docs: bool) -> str | None:
    """The next action not yet done, or None when the search has nothing left to try."""
    done = set(facts.get("done", []))
    tables = facts.get("tables", [])
    order: list[str] = ["search_catalog"]
    if tables:
        order += [f"lookup_columns:{tables[0]}", "lookup_values"]
        other = next((t for t in tables[1:] if t in facts.get("column_tables", [])), None)
        if other:
            order.append(f"relation_path:{tables[0]}->{other}")
    else:
        order.append("search_catalog_loose")
        if has_docs:
            order.append("search_measures")
        order += [f"search_word:{w}" for w in facts.get("words", [])]
    return next((a for a in order if a not in done), None)


def run_action(
    action: str,
    facts: dict[str, Any],
    catalog: Catalog,
    *,
    docs_index: Any = None,
    docs_model: Any = None,
    trace: Trace,
) -> tuple[dict[str, Any], str, int]:
    """Do one action: (new facts, observation text, count of new things found)."""
    name, _, arg = action.partition(":")
    words = facts.get("words", [])
    new = dict(facts)
    new["done"] = [*facts.get("done", []), action]
    before = _known(facts)
    if name in ("search_catalog", "search_catalog_loose", "search_word"):
        probe = [arg] if name == "search_word" else words
        hits = search_catalog(catalog, probe, loose=name != "search_catalog")
        new["hits"] = _merge(facts.get("hits", []), [h.as_dict() for h in hits])
        new["tables"] = [h["name"] for h in new["hits"] if h["kind"] == "table"]
        new["metrics"] = [h["name"] for h in new["hits"] if h["kind"] == "metric"]
        new["column_tables"] = [
            h["name"]
            for h in new["hits"]
            if h["kind"] == "table" and any(w.startswith("column") for w in h["why"])
        ]
        observation = "; ".join(f"{h['name']} ({h['score']})" for h in new["hits"][:6]) or "—"
    elif name == "lookup_columns":
        cols = lookup_columns(catalog, arg, words)
        new["columns"] = _merge(facts.get("columns", []), cols, key=("table", "column"))
        observation = (
            ", ".join(
                f"{c['column']} [{c['role']}{', named' if c['named'] else ''}]" for c in cols[:10]
            )
            or "—"
        )
    elif name == "lookup_values":
        values = lookup_values(catalog, words)
        new["values"] = values
        observation = ", ".join(f"{v['column']} = {v['value']}" for v in values[:8]) or "—"
    elif name == "relation_path":
        start, _, goal = arg.partition("->")
        path = relation_path(catalog, start, goal)
        new["paths"] = {**facts.get("paths", {}), goal: path}
        observation = " -> ".join(path) if path else "no many-to-one path"
        if path is None:
            trace.rejected("no relation path between the found tables", start=start, goal=goal)
    elif name == "search_measures":
        measures = search_measures(words, index=docs_index, model=docs_model, trace=trace)
        new["measures"] = measures
        observation = ", ".join(f"[{m['measure']}] ({m.get('table', '')})" for m in measures) or "—"
    else:  # unreachable: next_action only proposes the names above
        raise ValueError(f"unknown analyst action {action!r}")
    return new, observation, len(_known(new) - before)


def _known(facts: dict[str, Any]) -> set[str]:
    keys = {f"t:{t}" for t in facts.get("tables", [])} | {
        f"m:{m}" for m in facts.get("metrics", [])
    }
    keys |= {f"c:{c['table']}.{c['column']}" for c in facts.get("columns", []) if c.get("named")}
    keys |= {f"v:{v['column']}={v['value']}" for v in facts.get("values", [])}
    keys |= {f"p:{k}" for k, v in facts.get("paths", {}).items() if v}
    keys |= {f"d:{m['measure']}" for m in facts.get("measures", [])}
    return keys


def _merge(old: list[dict], new: list[dict], key: tuple[str, ...] = ("kind", "name")) -> list[dict]:
    """Keep the best score per item, best first, each item once."""
    best: dict[tuple, dict] = {}
    for item in [*old, *new]:
        k = tuple(item.get(f) for f in key)
        if k not in best or item.get("score", 0) > best[k].get("score", 0):
            best[k] = item
    return (
        sorted(best.values(), key=lambda i: -i.get("score", 0))
        if "score" in next(iter(best.values()), {})
        else list(best.values())
    )
