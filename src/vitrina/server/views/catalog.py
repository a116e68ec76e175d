"""The catalog for pickers: the start panel, topics (with segments), tables (with columns)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends

from vitrina.language.detect import detect_lang
from vitrina.server.auth import Who
from vitrina.server.state import ServerState, server_state

State = Annotated[ServerState, Depends(server_state)]
MAX_EXAMPLES = 4  # example chips per language on the start panel


def start(state: State, who: Who) -> dict[str, Any]:
    """What the start panel offers, all from the loaded catalog (nothing of the demo in code):
    its segments, its topic names for the placeholder, its example questions per language."""
    catalog = state.service.catalog
    info = catalog.info
    examples: dict[str, list[str]] = {"ru": [], "en": []}
    for example in catalog.examples:
        bucket = examples[detect_lang(example.question)]
        if len(bucket) < MAX_EXAMPLES and example.question not in bucket:
            bucket.append(example.question)
    segments = info.segment_ids()
    return {
        "segments": [{"id": s, "label": info.segment_label(s)} for s in segments],
        "segment_name": {"ru": info.segment_name_ru, "en": info.segment_name_en},
        "topics": {
            "ru": [t.name_ru for t in catalog.topics.values()],
            "en": [t.name_en for t in catalog.topics.values()],
        },
        "examples": examples,
    }


def topics(state: State, who: Who) -> list[dict[str, Any]]:
    """Topics a dialog can be limited to, in both languages."""
    return [
        {
            "id": t.id,
            "name_ru": t.name_ru,
            "name_en": t.name_en,
            "description": t.description,
            "segment": t.segment,
            "tables": t.tables,
        }
        for t in state.service.catalog.topics.values()
    ]


def tables(state: State, who: Who) -> list[dict[str, Any]]:
    """Tables of the catalog with their columns and descriptions."""
    return [
        {
            "name": t.name,
            "description": t.description,
            "description_ru": t.description_ru,
            "topics": t.topics,
            "columns": [c.summary() for c in t.columns],
        }
        for t in state.service.catalog.tables.values()
    ]
