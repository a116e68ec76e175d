"""1C requests that are not register reports, answered from the metadata in one step (issue 33):
a catalog's (or any object's) attributes, and which of the configuration's reports cover a
subject. They never reach the report planner, whose answer would be a register's query.
"""

from __future__ import annotations

from typing import Any

from vitrina.onec import (
    MetaObject,
    OneCSource,
    attributes_query,
    check_query,
    list_link,
    own_fields,
    read_ask,
    report_link,
    report_sources,
)
from vitrina.route.plans.onec_match import label_hits, read

# the kind a word names, for "реквизиты справочника X": the object is looked for in that kind
KIND_NAMED = (
    (("справочник", "catalog"), ("Catalog",)),
    (("документ", "document"), ("Document",)),
    (
        ("регистр", "register"),
        ("AccumulationRegister", "InformationRegister", "AccountingRegister"),
    ),
)
DESCRIBED = (
    "Catalog",
    "Document",
    "InformationRegister",
    "AccumulationRegister",
    "AccountingRegister",
    "ChartOfCharacteristicTypes",
    "Enum",
)
VT_WORDS = {
    "Остатки": ("остат", "balance", "stock"),
    "Обороты": ("оборот", "turnover"),
    "ОстаткиИОбороты": ("остат", "оборот", "balance", "turnover"),
    "СрезПоследних": ("последн", "latest"),
}


def metadata_answer(request: str, source: OneCSource) -> dict[str, Any] | None:
    """The attributes or the reports the request asks about; None when it asks for neither."""
    ask = read_ask(request).ask
    if ask == "attributes":
        return _attributes(request, source)
    if ask == "reports":
        return _reports(request, source)
    return None


def _named_object(request: str, source: OneCSource) -> MetaObject | None:
    req = read(request, source.config)
    low = request.lower()
    kinds = next((k for words, k in KIND_NAMED if any(w in low for w in words)), DESCRIBED)
    allowed = set(req.content)
    best: tuple[float, int, int, str] | None = None
    for obj in source.config.objects.values():
        if obj.kind not in DESCRIBED:
            continue
        share, used = label_hits(obj.name, obj.synonyms, req.words, allowed)
        key = (share, obj.kind in kinds, -len(obj.name), obj.full_name)
        if share >= 1.0 and used and (best is None or key > best):
            best = key
    return source.config.objects[best[3]] if best else None


def _attributes(request: str, source: OneCSource) -> dict[str, Any] | None:
    obj = _named_object(request, source)
    if obj is None:
        return None
    query = attributes_query(obj)
    check = check_query(query)
    return {
        "target": "onec",
        "kind": "attributes",
        "object": obj.ru_name,
        "attributes": own_fields(obj),
        "titles": {
            f.name: f.synonym("ru") for f in (*obj.dimensions, *obj.resources, *obj.attributes)
        },
        "query": query,
        "check": {
            "checked": check.checked,
            "ok": check.ok,
            "errors": [str(e) for e in check.errors],
        },
        "links": [list_link(obj)],
    }


def _subject(request: str, source: OneCSource) -> tuple[list[str], list[int]]:
    """The request's words after "по"/"on"/"about" (the subject), without stop words."""
    req = read(request, source.config)
    words = req.words
    start = next(
        (i + 1 for i, w in enumerate(words) if w in ("по", "on", "about", "for", "о", "об")),
        len(words),
    )
    idx = [i for i in range(start, len(words)) if i in req.content or _vt_word(words[i])]
    return words, idx


def _vt_word(word: str) -> bool:
    return any(word.startswith(s) for stems in VT_WORDS.values() for s in stems)


def _explained(report: MetaObject, source: OneCSource, words: list[str], idx: list[int]) -> int:
    sources = report_sources(report, source.config)
    hit: set[int] = set()
    labels = [(report.name, report.synonyms)] + [(o.name, o.synonyms) for o, _ in sources]
    for name, synonyms in labels:
        for i in idx:
            if label_hits(name, synonyms, words, {i})[0] > 0:
                hit.add(i)
    for _, vt in sources:
        hit |= {i for i in idx if any(words[i].startswith(s) for s in VT_WORDS.get(vt, ()))}
    return len(hit)


def _reports(request: str, source: OneCSource) -> dict[str, Any]:
    words, idx = _subject(request, source)
    reports = [o for o in source.config.objects.values() if o.kind == "Report"]
    scored = [(r, _explained(r, source, words, idx)) for r in reports]
    top = max((n for _, n in scored), default=0)
    chosen = [r for r, n in scored if (n == top and n > 0) or not idx]
    return {
        "target": "onec",
        "kind": "reports",
        "subject": " ".join(words[i] for i in idx),
        "reports": [r.ru_name for r in chosen],
        "sources": {
            r.ru_name: [
                f"{o.ru_name}.{vt}" if vt else o.ru_name
                for o, vt in report_sources(r, source.config)
            ]
            for r in chosen
        },
        "links": [report_link(r.name) for r in chosen],
    }
