"""The docs graph: input -> measure list -> router <-> document a batch -> combine.

A cyclic LangGraph StateGraph whose checkpointed state holds pointers only: the request,
the run folder, a cursor and the queue length. The queue, each measure's result (the run
ledger), lineages and trace events are files of the run folder (`vitrina.docs.runfiles`),
so a checkpoint is O(1) per step however many measures the run has. The loaded model and
SQL index live in the run context (`DocsContext`); a resumed run rebuilds them.
"""

from __future__ import annotations

import difflib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from vitrina.docs.agent import AgentRunner
from vitrina.docs.document import MEASURES_DIR, document_measure
from vitrina.docs.errors import DocsInputError
from vitrina.docs.measure_list import MeasureList, Topic, measure_list_from_text
from vitrina.docs.model.bim import read_text
from vitrina.docs.runfiles import RunFiles
from vitrina.docs.workspace import Workspace
from vitrina.docs.writer.combined import write_combined
from vitrina.docs.writer.explain import Explainer
from vitrina.docs.writer.markdown import doc_filename
from vitrina.trace import Trace

BATCH_MEASURES = 50  # measures per graph step: fewer checkpoints, same resume precision
BATCH_SECONDS = 2.0


class DocsState(TypedDict, total=False):
    """Checkpointed state: small and of constant size (see the module docstring)."""

    request: dict[str, Any]  # model, sql, measures_file, all, out, lang
    run_dir: str
    total: int
    cursor: int
    outputs: dict[str, str]


@dataclass
class DocsContext:
    """Run-scoped context: heavy caches, LLM and agent slots, limits, progress callback."""

    measure_timeout_s: float = 60.0
    explain: Explainer | None = None
    list_llm: Callable[[str], Any] | None = None
    agent: AgentRunner | None = None
    on_progress: Callable[[str, int, int, str], None] | None = None
    workspace: Workspace | None = None
    filenames: dict[str, str] = field(default_factory=dict)
    queue: list[dict[str, Any]] | None = None
    queued: set[str] = field(default_factory=set)
    done: set[int] | None = None

    def load(self, request: dict[str, Any]) -> Workspace:
        if self.workspace is None:
            self.workspace = Workspace.load(
                request["model"], request.get("sql") or [], order=request.get("order")
            )
        if not self.filenames:
            taken: set[str] = set()
            for m in sorted(
                self.workspace.model.measures, key=lambda m: (m.table.lower(), m.name.lower())
            ):
                self.filenames[m.name.lower()] = doc_filename(m.name, taken)
        return self.workspace

    def run_queue(self, files: RunFiles) -> list[dict[str, Any]]:
        if self.queue is None:
            self.queue = files.read_queue()["queue"]
            self.queued = {q["measure"].lower() for q in self.queue}
        return self.queue


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
        trace.measurement(
            "SQL index built", objects=len(ws.index.objects), errors=len(ws.index.errors)
        )
    else:
        trace.branch("no SQL folder: lineage stops at partition sources")
    RunFiles(state["run_dir"]).trace(_events(trace) + _events(ws.trace))
    return {}


def measure_list_node(state: DocsState, runtime: Runtime[DocsContext]) -> dict[str, Any]:
    """The user's list (or every measure), matched against the model; written to the run folder."""
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
        trace.branch(
            "--all: every measure, topics from display folders or tables",
            measures=len(ws.model.measures),
        )
    by_name: dict[str, dict[str, Any]] = {}
    queue: list[dict[str, Any]] = []
    missed: list[dict[str, Any]] = []
    lower = {m.name.lower(): m.name for m in ws.model.measures}
    for topic, name in mlist.flat():
        found = ws.measure_by_name(name)
        if found is None:
            if any(x["measure"].lower() == name.lower() for x in missed):
                continue
            close = difflib.get_close_matches(name.lower(), list(lower), n=3, cutoff=0.5)
            suggestions = [lower[c] for c in close]
            hint = (
                f"; did you mean {', '.join(f'[{s}]' for s in suggestions)}?" if suggestions else ""
            )
            missed.append(
                {
                    "measure": name,
                    "topic": topic,
                    "reason": "not found",
                    "suggestions": suggestions,
                    "detail": "not in the model" + hint,
                }
            )
            trace.rejected("measure not found in the model", measure=name, suggestions=suggestions)
            continue
        item = by_name.get(found.name.lower())
        if item is None:
            item = {"topics": [topic], "table": found.table, "measure": found.name}
            by_name[found.name.lower()] = item
            queue.append(item)
        elif topic not in item["topics"]:
            item["topics"].append(topic)
            trace.branch(
                "measure listed under several topics: one document, listed in each",
                measure=found.name,
                topics=item["topics"],
            )
    if not ws.model.measures:
        trace.warning("the model has no measures: nothing to document", model=str(req["model"]))
    files = RunFiles(state["run_dir"])
    files.write_queue(queue, missed, {"topics": [t.topic for t in mlist.topics]})
    files.trace(_events(trace))
    ctx.queue = None
    return {"total": len(queue), "cursor": 0}


def router_node(state: DocsState) -> dict[str, Any]:
    """Nothing to update: the cursor says where the next batch starts."""
    return {}


def route(state: DocsState) -> Literal["document", "combine"]:
    return "document" if state.get("cursor", 0) < state.get("total", 0) else "combine"


def document_node(state: DocsState, runtime: Runtime[DocsContext]) -> dict[str, Any]:
    """Document the next batch of measures; each result is in the ledger before the cursor moves."""
    ctx = runtime.context
    req = state["request"]
    ws = ctx.load(req)
    files = RunFiles(state["run_dir"])
    queue = ctx.run_queue(files)
    if ctx.done is None:  # a resumed run: positions already in the ledger are not done twice
        ctx.done = set(files.rows())
    cursor = state.get("cursor", 0)
    total = len(queue)
    started = time.monotonic()
    trace = Trace("docs.document")
    while cursor < total:
        fresh = cursor not in ctx.done
        if fresh:
            row, lineage_json = document_measure(
                ctx, ws, queue[cursor], cursor, Path(req["out"]), req, trace
            )
            files.record(row, lineage_json)
            ctx.done.add(cursor)
        cursor += 1
        if fresh and ctx.on_progress is not None:
            ctx.on_progress("measure", cursor, total, queue[cursor - 1]["measure"])
        if cursor % BATCH_MEASURES == 0 or time.monotonic() - started > BATCH_SECONDS:
            break
    files.trace(_events(trace))
    return {"cursor": cursor}


def combine_node(state: DocsState, runtime: Runtime[DocsContext]) -> dict[str, Any]:
    """combined_manual.md grouped by topic, and index.json with every measure's lineage."""
    ctx = runtime.context
    req = state["request"]
    ws = ctx.load(req)
    ws.drop_memos()  # issue 32: the memos of 100,000 measures are not held through the combine
    ctx.queue, ctx.done = None, None
    files = RunFiles(state["run_dir"])
    trace = Trace("docs.combine")
    out_dir = Path(req["out"])
    manual, index = write_combined(out_dir, files, ws, request=req)
    trace.measurement("combined manual written", measures=state.get("total", 0))
    files.trace(_events(trace))
    return {
        "outputs": {
            "manual": str(manual),
            "index": str(index),
            "measures_dir": str(out_dir / MEASURES_DIR),
        }
    }


def build_graph(
    checkpointer: Any = None,
) -> CompiledStateGraph[DocsState, DocsContext, DocsState, DocsState]:
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
