"""Recorder questions ("какие документы двигают регистр X") answered from the metadata.

A document's `RegisterRecords` name the registers it records into; the register is found by
its name or synonym in the request (the best share of its name, the shortest name on a tie),
and the answer is every document that records into it, with their list links.
"""

from __future__ import annotations

import re
from typing import Any

from vitrina.onec import REGISTERS, OneCSource, list_link
from vitrina.route.plans.onec_match import label_hits, read

ASKS_RECORDERS = re.compile(
    r"регистратор\w*|recorders?\b|(документ\w*|documents?)\b.*\b(двига\w*|движени\w*|запис\w*|провод\w*|"
    r"формиру\w* движени\w*|post\w*|record\w*|writ\w*|move\w*)",
    re.IGNORECASE,
)

# "записи регистра X по регистраторам": the register's records grouped by recorder, not a
# question about which documents record into it
GROUPED_BY_RECORDER = re.compile(r"\bпо регистратор\w*|\bby recorders?\b", re.IGNORECASE)


def recorder_answer(request: str, source: OneCSource) -> dict[str, Any] | None:
    """The register the request names and its recorder documents; None when it is not such a
    question."""
    if not ASKS_RECORDERS.search(request) or GROUPED_BY_RECORDER.search(request):
        return None
    req = read(request, source.config)
    allowed = {i for i, w in enumerate(req.words) if len(w) > 1}
    best: tuple[float, int, str] | None = None
    for obj in source.config.objects.values():
        if obj.kind not in REGISTERS:
            continue
        share, _used = label_hits(obj.name, obj.synonyms, req.words, allowed)
        key = (share, -len(obj.name), obj.full_name)
        if share > 0 and (best is None or key > best):
            best = key
    if best is None or best[0] < 1.0:
        return None
    register = source.config.objects[best[2]]
    documents = [
        source.config.objects[d]
        for d in source.config.recorders(register.full_name)
        if d in source.config.objects
    ]
    return {
        "target": "onec",
        "kind": "recorders",
        "object": register.ru_name,
        "register": register.ru_name,
        "recorders": [d.ru_name for d in documents],
        "links": [list_link(d) for d in documents],
    }
