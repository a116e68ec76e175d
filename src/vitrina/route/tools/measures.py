"""Measure search for the metadata analyst: the docs job's index.json, or the model itself.

index.json (written by `vitrina docs`) holds every documented measure with its table and
lineage; without it, the Tabular model is read through `vitrina.docs.model.load_model`.
"""

from __future__ import annotations

import json
from pathlib import Path

from vitrina.route.tools.match import phrase_hits, text_stems
from vitrina.trace import Trace

MAX_MEASURES = 5


def _entries(index: Path | None, model: Path | None, trace: Trace) -> list[dict]:
    if index is not None:
        try:
            data = json.loads(Path(index).read_text(encoding="utf-8"))
            return [
                {
                    "measure": m.get("measure", key),
                    "table": m.get("table", ""),
                    "file": m.get("file", ""),
                    "tables": sorted(
                        {
                            n.get("label", "")
                            for n in (m.get("lineage") or {}).get("nodes", [])
                            if n.get("kind") in ("table", "view")
                        }
                    ),
                }
                for key, m in (data.get("measures") or {}).items()
            ]
        except (OSError, ValueError, AttributeError) as exc:
            trace.suppressed(
                "docs index unreadable: measure search skipped it", index=str(index), error=str(exc)
            )
    if model is not None:
        from vitrina.docs import load_model

        try:
            loaded = load_model(model)
        except Exception as exc:  # a broken model must not stop the search of the catalog
            trace.suppressed(
                "Tabular model unreadable: measure search skipped it",
                model=str(model),
                error=str(exc),
            )
            return []
        return [
            {
                "measure": m.name,
                "table": m.table,
                "description": m.description or "",
                "folder": m.display_folder or "",
            }
            for m in loaded.measures
        ]
    return []


def search_measures(
    words: list[str],
    *,
    index: Path | None = None,
    model: Path | None = None,
    trace: Trace | None = None,
) -> list[dict]:
    """Measures whose name, table, folder or description the request names, best first."""
    trace = trace or Trace("search_measures")
    scored = []
    for entry in _entries(index, model, trace):
        fields = [
            entry["measure"],
            entry.get("table", ""),
            entry.get("folder", ""),
            entry.get("description", ""),
        ]
        score = sum(
            max((phrase_hits([s], words) for s in text_stems(f)), default=0) for f in fields if f
        )
        if score:
            scored.append({**entry, "score": score})
    scored.sort(key=lambda e: (-e["score"], e["measure"]))
    return scored[:MAX_MEASURES]
