"""Run the docs job: build the request, skip an unchanged rerun, resume or start the graph,
report."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vitrina.config import Settings, load_settings
from vitrina.docs.runfiles import DOC_VERSION, MANIFEST, RunFiles

if (
    TYPE_CHECKING
):  # the graph and LangGraph load only when there is work: an unchanged rerun is instant
    from langchain_core.runnables import RunnableConfig

    from vitrina.docs.agent import AgentRunner
    from vitrina.docs.graph import DocsContext, DocsState
    from vitrina.docs.writer.explain import Explainer

MAX_SQL_FILES = 200_000  # a hard bound on the files one input hash reads


@dataclass
class DocsReport:
    """What the CLI shows at the end of a run (counts over the whole run, resumed or not)."""

    processed: list[str] = field(default_factory=list)
    missed: list[dict[str, Any]] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    resumed: bool = False
    skipped: bool = False  # nothing changed since the last run: no work was done
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # procedures that failed to parse
    trace: list[dict[str, Any]] = field(default_factory=list)
    thread_id: str = ""
    llm_usage: dict[str, Any] = field(default_factory=dict)  # the model slots' calls, with --llm


def make_request(
    model: Path | str,
    sql: Sequence[Path | str] = (),
    *,
    measures_file: Path | str | None = None,
    all_measures: bool = False,
    out: Path | str,
    lang: str = "en",
    agent: str | None = None,
    llm: str | None = None,
    order: Path | str | None = None,
) -> dict[str, Any]:
    return {
        "order": str(Path(order).resolve()) if order else None,
        "model": str(Path(model).resolve()),
        "sql": [str(Path(p).resolve()) for p in sql],
        "measures_file": str(Path(measures_file).resolve()) if measures_file else None,
        "all": bool(all_measures or not measures_file),
        "out": str(Path(out).resolve()),
        "lang": lang,
        "agent": agent,
        "llm": llm,
    }


def checkpoint_path(settings: Settings) -> Path:
    path = settings.home / "checkpoints" / "docs.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def request_key(request: dict[str, Any]) -> str:
    """A stable thread id: same model, SQL, list, output, language and helpers -> same run to
    resume."""
    parts = {
        k: request.get(k)
        for k in ("model", "sql", "measures_file", "all", "out", "lang", "agent", "llm", "order")
    }
    if request.get("measures_file") and Path(request["measures_file"]).is_file():
        parts["list_sha"] = hashlib.sha256(Path(request["measures_file"]).read_bytes()).hexdigest()
    return (
        "docs-"
        + hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:20]
    )


def input_hash(request: dict[str, Any]) -> str:
    """A digest of everything a run reads: model files, SQL files, the list and the options."""
    h = hashlib.sha256(DOC_VERSION.encode())
    h.update(
        json.dumps(
            {k: request.get(k) for k in ("measures_file", "all", "lang", "agent", "llm")},
            sort_keys=True,
        ).encode()
    )
    paths: list[Path] = []
    for raw in [
        request["model"],
        *(request.get("sql") or []),
        request.get("measures_file"),
        request.get("order"),
    ]:
        if not raw:
            continue
        p = Path(raw)
        if p.is_dir():
            paths.extend(sorted(f for f in p.rglob("*") if f.is_file())[:MAX_SQL_FILES])
        elif p.is_file():
            paths.append(p)
    for p in paths:
        h.update(str(p).encode("utf-8", "replace") + b"\x00")
        try:
            h.update(p.read_bytes())
        except OSError as exc:
            h.update(f"unreadable:{exc}".encode())
    return h.hexdigest()


def unchanged_run(request: dict[str, Any]) -> dict[str, Any] | None:
    """The manifest of the last run when its inputs and every output file are as it left them."""
    out = Path(request["out"])
    try:
        manifest: dict[str, Any] = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if manifest.get("input_hash") != request["input_hash"]:
        return None
    if any(m.get("reason") in ("timeout", "error") for m in manifest.get("missed", [])):
        return None  # a measure that timed out or failed deserves another try
    for name, (size, mtime) in manifest.get("files", {}).items():
        try:
            st = (out / name).stat()
        except OSError:
            return None
        if st.st_size != size or st.st_mtime_ns != mtime:
            return None
    return manifest


def run_docs(
    request: dict[str, Any],
    *,
    settings: Settings | None = None,
    measure_timeout_s: float = 60.0,
    explain: Explainer | None = None,
    list_llm: Callable[[str], Any] | None = None,
    agent: AgentRunner | None = None,
    on_progress: Callable[[str, int, int, str], None] | None = None,
    fresh: bool = False,
    context: DocsContext | None = None,
) -> DocsReport:
    """Document the requested measures. An interrupted run with the same request resumes."""
    settings = settings or load_settings()
    start = time.perf_counter()
    request = {**request, "input_hash": input_hash(request)}
    thread_id = request_key(request)
    if not fresh and (manifest := unchanged_run(request)) is not None:
        out = Path(request["out"])
        return DocsReport(
            processed=list(manifest["measures"]),
            unchanged=list(manifest["measures"]),
            missed=list(manifest["missed"]),
            warnings=list(manifest["warnings"]),
            errors=list(manifest.get("errors", [])),
            outputs={
                "manual": str(out / "combined_manual.md"),
                "index": str(out / "index.json"),
                "measures_dir": str(out / "measures"),
            },
            seconds=round(time.perf_counter() - start, 3),
            skipped=True,
            thread_id=thread_id,
            trace=[
                {
                    "node": "docs.run",
                    "kind": "branch",
                    "message": "inputs and outputs unchanged since the last run: nothing to do",
                }
            ],
        )
    from vitrina.checkpoint import sqlite_checkpointer
    from vitrina.docs.graph import DocsContext, build_graph
    from vitrina.docs.writer.combined import collect

    ctx = context or DocsContext(
        measure_timeout_s=measure_timeout_s,
        explain=explain,
        list_llm=list_llm,
        agent=agent,
        on_progress=on_progress,
    )
    files = RunFiles(settings.home / "runs" / "docs" / thread_id)
    saver = sqlite_checkpointer(checkpoint_path(settings))  # state holds plain dicts/lists only
    try:
        graph = build_graph(saver)
        config: RunnableConfig = {
            "configurable": {"thread_id": thread_id},
            "recursion_limit": 10_000_000,
        }
        snapshot = graph.get_state(config)
        resumed = (
            bool(snapshot.next)
            and not fresh
            and snapshot.values.get("request", {}).get("input_hash") == request["input_hash"]
        )
        if resumed:
            result = graph.invoke(None, config, context=ctx, durability="async")
        else:
            saver.delete_thread(thread_id)
            files.reset()
            first: DocsState = {"request": request, "run_dir": str(files.root)}
            result = graph.invoke(
                first,
                config,
                context=ctx,
                durability="async",
            )
        saver.delete_thread(thread_id)  # finished: the ledger and the outputs hold the results
    finally:
        saver.close()  # every thread's connection
    if context is None:  # issue 32: the model and SQL index go before the ledger is read back
        ctx.workspace, ctx.queue, ctx.done = None, None, None
    documented, missed, rows, _ = collect(files)
    index_warnings: list[str] = []
    index_errors: list[str] = []
    try:
        written = json.loads((Path(request["out"]) / MANIFEST).read_text(encoding="utf-8"))
        index_warnings, index_errors = written["warnings"], written.get("errors", [])
    except (OSError, ValueError, KeyError):
        pass
    return DocsReport(
        processed=[r["measure"] for r in documented],
        missed=missed,
        created=[f"measures/{r['file']}" for r in rows if r.get("status") == "created"],
        unchanged=[r["measure"] for r in rows if r.get("status") == "unchanged"],
        outputs=dict(result.get("outputs", {})),
        seconds=round(time.perf_counter() - start, 3),
        resumed=resumed,
        warnings=index_warnings,
        errors=index_errors,
        trace=files.trace_events(),
        thread_id=thread_id,
    )
