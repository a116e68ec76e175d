"""Document one measure: lineage, content hash, rules document (or an agent's), atomic write.

Returns the ledger row and the lineage JSON; a timeout or an error becomes a missed row,
never a crash of the run.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vitrina.docs.agent_guard import agent_facts
from vitrina.docs.lineage import MeasureLineage, MeasureTimeout, build_lineage
from vitrina.docs.runfiles import DOC_VERSION, atomic_write
from vitrina.docs.screen import screen_lineage
from vitrina.docs.workspace import Workspace
from vitrina.docs.writer.markdown import read_hash, render_measure, with_hash
from vitrina.trace import Trace

if TYPE_CHECKING:
    from vitrina.docs.agent import AgentRunner
    from vitrina.docs.graph import DocsContext

MEASURES_DIR = "measures"


def content_hash(
    ws: Workspace,
    lin: MeasureLineage,
    topics: list[str],
    lang: str,
    extra: str = "",
    *,
    lineage_json: str | None = None,
) -> str:
    """Same DAX, same sources, same settings -> same hash -> the document is not rewritten.

    `lineage_json` is `lin.model_dump_json()` when the caller has it already (one dump per
    measure, not two)."""
    h = hashlib.sha256()
    m = ws.measure_by_name(lin.measure)
    lin_json = lineage_json if lineage_json is not None else lin.model_dump_json()
    parts: list[str] = [DOC_VERSION, lang, "\x02".join(topics), lin_json, extra]
    if m is not None:
        parts += [m.description or "", m.format_string or "", m.display_folder or ""]
    for name in lin.all_measures:
        dep = ws.measure_by_name(name)
        parts.append(dep.expression if dep else name)
    index = ws.index
    if index is not None:
        for o in [*lin.sql_objects, *lin.procedures]:
            obj = index.get(o.name)
            parts.append(obj.definition if obj is not None else o.name)
    for p in parts:
        h.update(p.encode("utf-8", "replace"))
        h.update(b"\x00")
    return h.hexdigest()[:16]


def document_measure(
    ctx: DocsContext,
    ws: Workspace,
    item: dict[str, Any],
    position: int,
    out_dir: Path,
    request: dict[str, Any],
    trace: Trace,
) -> tuple[dict[str, Any], str | None]:
    """One queue item -> (ledger row, lineage JSON or None)."""
    topics: list[str] = item["topics"]
    table, name = item["table"], item["measure"]
    lang = request.get("lang", "en")
    row: dict[str, Any] = {"i": position, "measure": name, "table": table, "topics": topics}
    start = time.monotonic()
    deadline = start + ctx.measure_timeout_s
    measures_dir = out_dir / MEASURES_DIR
    try:
        measure = ws.measure(table, name)
        if measure is None:
            raise LookupError(f"measure [{name}] disappeared from table '{table}'")
        lin = screen_lineage(ws, build_lineage(ws, measure, deadline=deadline, trace=trace))
        file_name = ctx.filenames[name.lower()]
        path = measures_dir / file_name

        def link(target: str) -> str | None:
            """Only documents that exist (this run's or kept ones): never a dead link."""
            target_file = ctx.filenames.get(target.lower())
            if target_file and (
                target.lower() in ctx.queued or (measures_dir / target_file).exists()
            ):
                return target_file
            return None

        linked = sorted(m for m in lin.all_measures if link(m))
        helper = f"agent={ctx.agent.name}" if ctx.agent else ""
        helper += f"llm={request.get('llm') or ''}"
        lin_json = lin.model_dump_json()  # nothing below changes the lineage
        digest = content_hash(
            ws, lin, topics, lang, extra="\x01".join([*linked, helper]), lineage_json=lin_json
        )
        row.update(file=file_name, hash=digest, run_warnings=_run_warnings(lin))
        if path.exists() and read_hash(path) == digest:
            trace.branch("measure unchanged: document kept", measure=name)
            row["status"] = "unchanged"
        else:
            text = render_measure(
                lin,
                measure,
                topic=", ".join(topics),
                lang=lang,
                link=link,
                explain=ctx.explain,
                trace=trace,
            )
            if time.monotonic() > deadline:
                raise MeasureTimeout(name)
            if ctx.agent is not None:
                worded = _agent_text(ctx.agent, ws, lin, text, row, out_dir, lang, trace)
                if worded is None:
                    return row, lin_json
                text = worded
            atomic_write(path, with_hash(text, digest))
            row["status"] = "created"
        trace.measurement(
            "measure documented", measure=name, ms=round((time.monotonic() - start) * 1000, 2)
        )
        return row, lin_json
    except MeasureTimeout:
        trace.error("measure timed out", measure=name, limit_s=ctx.measure_timeout_s)
        row.update(
            status="missed",
            reason="timeout",
            detail=f"over the {ctx.measure_timeout_s:g} s limit",
            suggestions=[],
        )
    except Exception as exc:
        trace.error("measure failed", measure=name, error=f"{type(exc).__name__}: {exc}"[:300])
        row.update(
            status="missed",
            reason="error",
            detail=f"{type(exc).__name__}: {exc}"[:300],
            suggestions=[],
        )
    return row, None


def _agent_text(
    agent: AgentRunner,
    ws: Workspace,
    lin: MeasureLineage,
    rules: str,
    row: dict[str, Any],
    out_dir: Path,
    lang: str,
    trace: Trace,
) -> str | None:
    """The agent's checked text; the rules text when the agent's is rejected (the run's
    warnings say why); None when the measure is missed (`row` says why)."""
    outcome = agent.document(
        lin, rules, facts=agent_facts(ws, lin, rules), out_dir=out_dir, lang=lang, trace=trace
    )
    if outcome.ok:
        return outcome.text
    if outcome.reason == "rejected":
        row["run_warnings"] = [*row["run_warnings"], f"[{lin.measure}]: {outcome.detail}"]
        return rules
    row.update(status="missed", reason=outcome.reason, detail=outcome.detail, suggestions=[])
    return None


def _run_warnings(lin: MeasureLineage) -> list[str]:
    """What the manual's own warnings section repeats: syntax errors and tables nobody writes."""
    return [*lin.syntax_errors, *lin.never_written]
