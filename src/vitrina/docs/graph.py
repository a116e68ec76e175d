"""The docs graph: input -> measure list -> router <-> document one measure -> combine.

A cyclic LangGraph StateGraph. State keeps only small, serialisable facts (the list, what
was processed, missed with the reason, created documents); the loaded model and SQL index
live in the run context (`DocsContext`) so checkpoints stay small and a resumed run
rebuilds them from the same paths.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import operator
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from vitrina.docs.errors import DocsInputError
from vitrina.docs.lineage import MeasureLineage, MeasureTimeout, build_lineage
from vitrina.docs.measure_list import MeasureList, Topic, measure_list_from_text
from vitrina.docs.model.bim import read_text
from vitrina.docs.workspace import Workspace
from vitrina.docs.writer.combined import Entry, write_combined
from vitrina.docs.writer.explain import Explainer
from vitrina.docs.writer.markdown import doc_filename, read_hash, render_measure
from vitrina.trace import Trace

DOC_VERSION = "2"  # bump when the document layout changes: every document is rewritten once
MEASURES_DIR = "measures"


class DocsState(TypedDict, total=False):
    """Graph state. Lists with `operator.add` grow by the updates nodes return."""

    request: dict[str, Any]  # model, sql, measures_file, all, out, lang
    original_list: list[dict[str, Any]]  # [{"topic": ..., "measures": [...]}]
    queue: list[list[str]]  # [topic, table, measure] still to document, in order
    cursor: int
    current: str | None
    processed: Annotated[list[str], operator.add]
    missed: Annotated[list[dict[str, Any]], operator.add]
    created: Annotated[list[str], operator.add]
    unchanged: Annotated[list[str], operator.add]
    entries: Annotated[list[dict[str, Any]], operator.add]
    trace: Annotated[list[dict[str, Any]], operator.add]
    outputs: dict[str, str]


@dataclass
class DocsContext:
    """Run-scoped context: heavy caches, LLM slots, limits, progress callback."""

    measure_timeout_s: float = 60.0
    explain: Explainer | None = None
    list_llm: Callable[[str], str] | None = None
    on_progress: Callable[[str, int, int, str], None] | None = None
    workspace: Workspace | None = None
    filenames: dict[str, str] = field(default_factory=dict)
    lineages: dict[str, MeasureLineage] = field(default_factory=dict)

    def load(self, request: dict[str, Any]) -> Workspace:
        if self.workspace is None:
            self.workspace = Workspace.load(request["model"], request.get("sql") or [])
        if not self.filenames:
            taken: set[str] = set()
            for m in sorted(self.workspace.model.measures, key=lambda m: (m.table.lower(), m.name.lower())):
                self.filenames[m.name.lower()] = doc_filename(m.name, taken)
        return self.workspace


def _events(trace: Trace) -> list[dict[str, Any]]:
    return [e.model_dump(mode="json") for e in trace.events]


# ---------------------------------------------------------------- nodes
def input_node(state: DocsState, runtime: Runtime[DocsContext]) -> dict[str, Any]:
    """Check every path and load the model and the SQL index; say exactly what is missing."""
    req = state["request"]
    trace = Trace("docs.input")
    model = Path(req["model"])
    if not model.exists():
        raise DocsInputError("model not found (expected a .bim file or a TMDL folder)", path=model)
    for p in req.get("sql") or []:
        if not Path(p).exists():
            raise DocsInputError("SQL folder not found", path=p)
    if req.get("measures_file") and not Path(req["measures_file"]).is_file():
        raise DocsInputError("measure list file not found", path=req["measures_file"])
    ws = runtime.context.load(req)
    trace.measurement("model loaded", tables=len(ws.model.tables), measures=len(ws.model.measures))
    if ws.index is not None:
        trace.measurement("SQL index built", objects=len(getattr(ws.index, "objects", {}) or {}))
    else:
        trace.branch("no SQL folder: lineage stops at partition sources")
    return {"trace": _events(trace) + _events(ws.trace)}


def measure_list_node(state: DocsState, runtime: Runtime[DocsContext]) -> dict[str, Any]:
    """The user's list (or every measure), matched against the model."""
    req = state["request"]
    ctx = runtime.context
    ws = ctx.load(req)
    trace = Trace("docs.measure_list")
    if req.get("measures_file"):
        text = read_text(Path(req["measures_file"]))
        mlist = measure_list_from_text(text, llm=ctx.list_llm, trace=trace)
    else:
        topics: dict[str, Topic] = {}
        for m in ws.model.measures:
            name = (m.display_folder or m.table).strip() or m.table
            topics.setdefault(name, Topic(topic=name)).measures.append(m.name)
        mlist = MeasureList(topics=list(topics.values()))
        trace.branch("--all: every measure, topics from display folders or tables", measures=len(ws.model.measures))
    queue: list[list[str]] = []
    missed: list[dict[str, Any]] = []
    all_names = [m.name for m in ws.model.measures]
    lower = {n.lower(): n for n in all_names}
    for topic, name in mlist.flat():
        found = ws.model.measure(name)
        if found is None:
            close = difflib.get_close_matches(name.lower(), list(lower), n=3, cutoff=0.5)
            suggestions = [lower[c] for c in close]
            missed.append({"measure": name, "topic": topic, "reason": "not found", "suggestions": suggestions,
                           "detail": "not in the model" + (f"; did you mean {', '.join(f'[{s}]' for s in suggestions)}?" if suggestions else "")})
            trace.rejected("measure not found in the model", measure=name, suggestions=suggestions)
            continue
        queue.append([topic, found.table, found.name])
    return {
        "original_list": [t.model_dump() for t in mlist.topics],
        "queue": queue,
        "cursor": 0,
        "missed": missed,
        "trace": _events(trace),
    }


def router_node(state: DocsState) -> dict[str, Any]:
    """Pick the next unprocessed measure (the cursor walks the queue once)."""
    cursor = state.get("cursor", 0)
    queue = state.get("queue", [])
    return {"current": queue[cursor][2] if cursor < len(queue) else None}


def route(state: DocsState) -> Literal["document", "combine"]:
    return "document" if state.get("current") else "combine"


def content_hash(ws: Workspace, lin: MeasureLineage, topic: str, lang: str, extra: str = "") -> str:
    """Same DAX, same sources, same settings -> same hash -> the document is not rewritten."""
    h = hashlib.sha256()
    m = ws.model.measure(lin.measure)
    parts: list[str] = [DOC_VERSION, lang, topic, lin.model_dump_json(), extra]
    if m is not None:
        parts += [m.description or "", m.format_string or "", m.display_folder or ""]
    for name in lin.all_measures:
        dep = ws.model.measure(name)
        parts.append(dep.expression if dep else name)
    index = ws.index
    if index is not None:
        for o in [*lin.sql_objects, *lin.procedures]:
            obj = index.get(o.name)
            parts.append(str(getattr(obj, "definition", "") or "") if obj is not None else o.name)
    for p in parts:
        h.update(p.encode("utf-8", "replace"))
        h.update(b"\x00")
    return h.hexdigest()[:16]


def document_node(state: DocsState, runtime: Runtime[DocsContext]) -> dict[str, Any]:
    """Document exactly one measure; a timeout or error becomes a missed entry, not a crash."""
    ctx = runtime.context
    req = state["request"]
    ws = ctx.load(req)
    cursor = state.get("cursor", 0)
    topic, table, name = state["queue"][cursor]
    trace = Trace("docs.document")
    update: dict[str, Any] = {"cursor": cursor + 1}
    start = time.monotonic()
    deadline = start + ctx.measure_timeout_s
    measure = ws.measure(table, name)
    out_dir = Path(req["out"])
    measures_dir = out_dir / MEASURES_DIR
    try:
        if measure is None:
            raise LookupError(f"measure [{name}] disappeared from table '{table}'")
        lin = build_lineage(ws, measure, deadline=deadline, trace=trace)
        ctx.lineages[name.lower()] = lin
        file_name = ctx.filenames[name.lower()]
        path = measures_dir / file_name
        queued = {q[2].lower() for q in state["queue"]}

        def link(target: str) -> str | None:
            """Only documents that exist (this run's or kept ones): never a dead link."""
            target_file = ctx.filenames.get(target.lower())
            if target_file and (target.lower() in queued or (measures_dir / target_file).exists()):
                return target_file
            return None

        linked = sorted(m for m in lin.all_measures if link(m))
        digest = content_hash(ws, lin, topic, req.get("lang", "en"), extra="\x01".join(linked))
        if path.exists() and read_hash(path) == digest:
            trace.branch("measure unchanged: document kept", measure=name)
            update["unchanged"] = [name]
        else:
            text = render_measure(lin, measure, topic=topic, lang=req.get("lang", "en"), link=link,
                                  explain=ctx.explain, content_hash=digest, trace=trace)
            if time.monotonic() > deadline:
                raise MeasureTimeout(name)
            measures_dir.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            update["created"] = [f"{MEASURES_DIR}/{file_name}"]
        update["processed"] = [name]
        update["entries"] = [{"topic": topic, "measure": name, "table": table, "file": file_name, "hash": digest}]
        trace.measurement("measure documented", measure=name, ms=round((time.monotonic() - start) * 1000, 2))
    except MeasureTimeout:
        trace.error("measure timed out", measure=name, limit_s=ctx.measure_timeout_s)
        update["missed"] = [{"measure": name, "topic": topic, "reason": "timeout",
                             "detail": f"over the {ctx.measure_timeout_s:g} s limit", "suggestions": []}]
    except Exception as exc:
        trace.error("measure failed", measure=name, error=f"{type(exc).__name__}: {exc}"[:300])
        update["missed"] = [{"measure": name, "topic": topic, "reason": "error",
                             "detail": f"{type(exc).__name__}: {exc}"[:300], "suggestions": []}]
    if ctx.on_progress is not None:
        ctx.on_progress("measure", cursor + 1, len(state["queue"]), name)
    update["trace"] = _events(trace)
    return update


def combine_node(state: DocsState, runtime: Runtime[DocsContext]) -> dict[str, Any]:
    """combined_manual.md grouped by topic, and index.json with every measure's lineage."""
    ctx = runtime.context
    req = state["request"]
    ws = ctx.load(req)
    trace = Trace("docs.combine")
    out_dir = Path(req["out"])
    measures_dir = out_dir / MEASURES_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    entries: list[Entry] = []
    for e in state.get("entries", []):
        lin = ctx.lineages.get(e["measure"].lower())
        if lin is None:  # documented before a resume: rebuild (cheap, cached sources)
            m = ws.measure(e["table"], e["measure"])
            lin = build_lineage(ws, m, trace=trace) if m is not None else None
            trace.branch("lineage rebuilt for index.json after resume", measure=e["measure"])
        entries.append(Entry(topic=e["topic"], measure=e["measure"], table=e["table"], file=e["file"],
                             content_hash=e["hash"], lineage=lin.model_dump(mode="json") if lin else {}))
    manual, index = write_combined(out_dir, measures_dir, entries, lang=req.get("lang", "en"),
                                   model_name=ws.model.name, model_path=str(req["model"]), missed=state.get("missed", []))
    trace.measurement("combined manual written", measures=len(entries), missed=len(state.get("missed", [])))
    return {"outputs": {"manual": str(manual), "index": str(index), "measures_dir": str(measures_dir)},
            "trace": _events(trace)}


def build_graph(checkpointer: Any = None) -> Any:
    """Compile the cyclic docs graph (with a checkpointer for resumable runs)."""
    g = StateGraph(DocsState, context_schema=DocsContext)
    g.add_node("input", input_node)
    g.add_node("measure_list", measure_list_node)
    g.add_node("router", router_node)
    g.add_node("document", document_node)
    g.add_node("combine", combine_node)
    g.add_edge(START, "input")
    g.add_edge("input", "measure_list")
    g.add_edge("measure_list", "router")
    g.add_conditional_edges("router", route, {"document": "document", "combine": "combine"})
    g.add_edge("document", "router")
    g.add_edge("combine", END)
    return g.compile(checkpointer=checkpointer)


def request_key(request: dict[str, Any]) -> str:
    """A stable thread id: same model, SQL, list, output and language -> same run to resume."""
    parts = {k: request.get(k) for k in ("model", "sql", "measures_file", "all", "out", "lang")}
    if request.get("measures_file") and Path(request["measures_file"]).is_file():
        parts["list_sha"] = hashlib.sha256(Path(request["measures_file"]).read_bytes()).hexdigest()
    return "docs-" + hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:20]
