"""Run the docs job: build the request, resume or start the checkpointed graph, report."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vitrina.checkpoint import sqlite_checkpointer
from vitrina.config import Settings, load_settings
from vitrina.docs.graph import DocsContext, build_graph, request_key
from vitrina.docs.writer.explain import Explainer
from vitrina.llm.accounting import calls_summary


@dataclass
class DocsReport:
    """What the CLI shows at the end of a run."""

    processed: list[str] = field(default_factory=list)
    missed: list[dict[str, Any]] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    resumed: bool = False
    trace: list[dict[str, Any]] = field(default_factory=list)
    thread_id: str = ""
    llm_usage: dict[str, Any] = field(default_factory=dict)  # the model slots' calls (with --llm)


def make_request(model: Path | str, sql: Sequence[Path | str] = (), *, measures_file: Path | str | None = None,
                 all_measures: bool = False, out: Path | str, lang: str = "en") -> dict[str, Any]:
    return {
        "model": str(Path(model).resolve()),
        "sql": [str(Path(p).resolve()) for p in sql],
        "measures_file": str(Path(measures_file).resolve()) if measures_file else None,
        "all": bool(all_measures or not measures_file),
        "out": str(Path(out).resolve()),
        "lang": lang,
    }


def checkpoint_path(settings: Settings) -> Path:
    path = settings.home / "checkpoints" / "docs.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def run_docs(
    request: dict[str, Any],
    *,
    settings: Settings | None = None,
    measure_timeout_s: float = 60.0,
    explain: Explainer | None = None,
    list_llm: Callable[[str], str] | None = None,
    on_progress: Callable[[str, int, int, str], None] | None = None,
    fresh: bool = False,
    context: DocsContext | None = None,
    llm: Any = None,
) -> DocsReport:
    """Document the requested measures. An interrupted run with the same request resumes.

    `llm` (a vitrina.llm.LLMClient) fills both model slots: the free-text measure list and
    the wording of the explanations; each falls back to its rule result."""
    settings = settings or load_settings()
    start = time.perf_counter()
    if llm is not None:
        from vitrina.docs.model_slots import explain_slot, measure_list_slot

        explain = explain or explain_slot(llm)
        list_llm = list_llm or measure_list_slot(llm)
    first_call = len(llm.calls) if llm is not None else 0
    ctx = context or DocsContext(measure_timeout_s=measure_timeout_s, explain=explain, list_llm=list_llm,
                                 on_progress=on_progress)
    thread_id = request_key(request)
    saver = sqlite_checkpointer(checkpoint_path(settings))  # state holds plain dicts/lists only
    try:
        graph = build_graph(saver)
        config: dict[str, Any] = {"configurable": {"thread_id": thread_id}, "recursion_limit": 10_000_000}
        snapshot = graph.get_state(config)
        resumed = bool(snapshot.next) and not fresh
        if resumed:
            result = graph.invoke(None, config, context=ctx, durability="async")
        else:
            saver.delete_thread(thread_id)
            result = graph.invoke({"request": request}, config, context=ctx, durability="async")
    finally:
        saver.conn.close()
    return DocsReport(
        processed=list(result.get("processed", [])),
        missed=list(result.get("missed", [])),
        created=list(result.get("created", [])),
        unchanged=list(result.get("unchanged", [])),
        outputs=dict(result.get("outputs", {})),
        seconds=round(time.perf_counter() - start, 3),
        resumed=resumed,
        trace=list(result.get("trace", [])),
        thread_id=thread_id,
        llm_usage=calls_summary(llm.calls[first_call:]) if llm is not None else {},
    )
