"""The catalog for pickers: topics (with segments) and tables (with columns)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends

from vitrina.server.auth import Who
from vitrina.server.state import ServerState, server_state

State = Annotated[ServerState, Depends(server_state)]


def topics(state: State, who: Who) -> list[dict[str, Any]]:
    """Topics a dialog can be limited to, in both languages."""
    return [
        {
            "id": t.id,
            "name_ru": t.name_ru,
            "name_en": t.name_en,
            "description": t.description,
            "segment": str(t.segment.value),
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
            "columns": [
                {
                    "name": c.name,
                    "type": c.type,
                    "role": str(c.role.value),
                    "description": c.description,
                    "label_ru": c.label_ru,
                    "label_en": c.label_en,
                }
                for c in t.columns
            ],
        }
        for t in state.service.catalog.tables.values()
    ]
