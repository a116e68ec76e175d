"""The docs role: "документация по мере [X]" documents one measure of the configured model
through the docs job's public entry point (`run_docs`) and returns its document. With no
model configured, the manual that `vitrina docs` wrote and that the web app's /docs page
serves (its index.json, `docs_index`) answers: the measure's document, read from it."""

from __future__ import annotations

import json
import re
from pathlib import Path

from langgraph.runtime import Runtime

from vitrina.route.context import RouteContext
from vitrina.route.messages import text
from vitrina.route.state import RouteState
from vitrina.trace import Trace

MEASURE = re.compile(r"\[((?:[^\]]|\]\])+)\]|[«\"]([^»\"]+)[»\"]")
EXCERPT_LINES = 40


def measure_name(request: str) -> str | None:
    """The measure named in brackets or quotes: '... по мере [Total Sales]' -> 'Total Sales'."""
    found = MEASURE.search(request)
    if not found:
        return None
    return (found.group(1) or found.group(2)).replace("]]", "]").strip()


def docs(state: RouteState, runtime: Runtime[RouteContext]) -> dict:
    from vitrina.docs import DocsInputError, make_request, run_docs

    trace = Trace("docs")
    ctx = runtime.context
    lang = state.get("lang", "ru")
    name = measure_name(state.get("request", ""))
    if ctx.docs_model is None:
        if ctx.docs_index is not None and ctx.docs_index.is_file() and name:
            return _from_manual(ctx.docs_index.parent, name, lang, trace)
        trace.branch("no Tabular model configured and no manual served")
        return {
            "role": "docs",
            "status": "refused",
            "answer": text("docs_no_model", lang),
            "trace": trace.events,
        }
    if not name:
        trace.branch("no measure named in the request")
        return {
            "role": "docs",
            "status": "clarification",
            "answer": text("docs_no_measure", lang),
            "trace": trace.events,
        }
    out = (
        (ctx.outputs_dir or ctx.settings.outputs_dir)
        / "docs"
        / (Path(ctx.docs_model).stem or "model")
    )
    out.mkdir(parents=True, exist_ok=True)
    listing = out / "route-measures.md"
    listing.write_text(f"# General\n## [{name.replace(']', ']]')}]\n", encoding="utf-8")
    try:
        report = run_docs(
            make_request(ctx.docs_model, ctx.docs_sql, measures_file=listing, out=out, lang=lang),
            settings=ctx.settings,
        )
    except DocsInputError as exc:
        trace.error("docs job refused its input", error=str(exc))
        return {"role": "docs", "status": "failed", "answer": str(exc), "trace": trace.events}
    missed = next((m for m in report.missed if m.get("measure") == name), None)
    if missed is not None or name not in report.processed:
        reason = (missed or {}).get("reason", "not found")
        detail = (missed or {}).get("detail", "")
        trace.rejected("measure not documented", measure=name, reason=reason, detail=detail)
        return {
            "role": "docs",
            "status": "refused",
            "trace": trace.events,
            "answer": text("docs_missed", lang, measure=name, reason=f"{reason} {detail}".strip()),
            "docs": {"measure": name, "missed": missed},
        }
    path = _document_path(out, name)
    excerpt = (
        "\n".join(path.read_text(encoding="utf-8").splitlines()[:EXCERPT_LINES]) if path else ""
    )
    trace.branch("measure documented", measure=name, path=str(path) if path else None)
    answer = text("docs_done", lang, measure=name, path=path or out) + (
        "\n\n" + excerpt if excerpt else ""
    )
    return {
        "role": "docs",
        "status": "answered",
        "answer": answer,
        "trace": trace.events,
        "docs": {"measure": name, "path": str(path) if path else None, "outputs": report.outputs},
    }


def _document_path(out: Path, name: str) -> Path | None:
    try:
        index = json.loads((out / "index.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    entry = next((m for m in index.get("measures", {}).values() if m.get("measure") == name), None)
    return out / entry["file"] if entry and (out / entry["file"]).is_file() else None


def _from_manual(folder: Path, name: str, lang: str, trace: Trace) -> dict:
    """The measure's document from a written manual (the one /docs serves), or a refusal that
    names the manual's measures' count and where to see them."""
    from urllib.parse import quote

    path = _document_path(folder, name)
    if path is None:
        trace.rejected("measure not in the served manual", measure=name, manual=str(folder))
        return {
            "role": "docs",
            "status": "refused",
            "answer": text("docs_not_in_manual", lang, measure=name),
            "trace": trace.events,
            "docs": {"measure": name, "manual": str(folder)},
        }
    excerpt = "\n".join(path.read_text(encoding="utf-8").splitlines()[:EXCERPT_LINES])
    link = f"/docs#measure={quote(path.stem)}"
    trace.branch("measure read from the served manual", measure=name, path=str(path))
    return {
        "role": "docs",
        "status": "answered",
        "answer": text("docs_from_manual", lang, measure=name, link=link) + "\n\n" + excerpt,
        "trace": trace.events,
        "docs": {"measure": name, "path": str(path), "link": link},
    }
