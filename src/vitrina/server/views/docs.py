"""The measure manual of `vitrina docs`: contents, the combined manual, one measure."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends

from vitrina.server.auth import Who
from vitrina.server.docs_source import DocsSource, render_markdown
from vitrina.server.errors import ApiError
from vitrina.server.state import ServerState, server_state

State = Annotated[ServerState, Depends(server_state)]


def _docs(state: ServerState) -> DocsSource:
    source = state.docs()
    if source is None:
        raise ApiError(
            404,
            "docs_not_configured",
            "no measure manual: run `vitrina docs` or set VITRINA_DOCS_DIR / --docs",
            "нет документации мер: запустите `vitrina docs` или задайте VITRINA_DOCS_DIR / --docs",
        )
    return source


def docs_index(state: State, who: Who) -> dict[str, Any]:
    """Which manual is served and its measures by topic ({"available": false} when none)."""
    source = state.docs()
    return source.summary() if source else {"available": False, "topics": [], "missed": []}


def docs_manual(state: State, who: Who) -> dict[str, str]:
    """combined_manual.md as Markdown and as HTML (Mermaid blocks as ``<pre class="mermaid">``)."""
    text = _docs(state).manual()
    return {"markdown": text, "html": render_markdown(text)}


def docs_measure(name: str, state: State, who: Who, llm: bool = False) -> dict[str, Any]:
    """One measure's document and its lineage graph; `?llm=true` adds the model's checked
    wording."""
    source = _docs(state)
    entry = source.entry(name)
    if entry is None:
        raise ApiError(
            404,
            "measure_not_found",
            f"measure [{name}] is not in the manual",
            f"меры [{name}] нет в документации",
        )
    text = source.measure_markdown(entry)
    lineage = entry.get("lineage") or {}
    out: dict[str, Any] = {
        "measure": entry["measure"],
        "topic": entry.get("topic"),
        "table": entry.get("table"),
        "markdown": text,
        "html": render_markdown(text),
        "lineage": {
            k: lineage.get(k) for k in ("level", "nodes", "edges", "warnings", "unresolved")
        },
    }
    if llm and lineage:
        out["explanation_llm"] = _reword(state, lineage, source.index.get("lang") or "en")
    return out


def _reword(state: ServerState, lineage: dict[str, Any], lang: str) -> dict[str, Any]:
    """The wording pass over the manual's lineage; rejected wordings keep the rules text."""
    from vitrina.docs import reword
    from vitrina.llm.factory import LLMSettingsError, build_client

    try:
        client = build_client(state.settings)
    except LLMSettingsError as exc:
        raise ApiError(
            400,
            "llm_misconfigured",
            f"the model settings are wrong: {exc}",
            f"настройки модели неверны: {exc}",
        ) from None
    if client is None:
        raise ApiError(
            409,
            "llm_not_configured",
            "no model is configured: the rules explanation stands",
            "модель не настроена: остаётся объяснение по правилам",
        )
    return reword(lineage, lang, client)
