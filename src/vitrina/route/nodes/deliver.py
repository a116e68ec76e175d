"""The one terminal node: every branch ends here, and the reply is shaped for its face.

cli: plain text; web: Markdown plus the structured payload; mcp: MCP tool-result content
(a text block) plus `structuredContent`.
"""

from __future__ import annotations

from typing import Any

from vitrina.route.messages import text
from vitrina.route.state import RouteState
from vitrina.trace import Trace


def _sections(state: RouteState, md: bool) -> list[str]:
    lang = state.get("lang", "ru")
    out = [state.get("answer") or ""]
    steps = state.get("steps") or []
    if steps:
        out.append(("### " if md else "") + text("steps", lang))
        for s in steps:
            out.append(f"{s['n']}. {s['thought']}\n   → {s['action']}\n   ← {s['observation']}")
    candidates = state.get("candidates") or []
    chosen = (state.get("chosen") or {}).get("id")
    if candidates:
        out.append(("### " if md else "") + text("plans", lang))
        for c in candidates:
            mark = (
                f" ← {text('chosen', lang)}" if c["id"] == chosen else ("" if c["valid"] else " ✗")
            )
            out.append(f"• {c['label']} [{c['id']}]: {c['total']}{mark}")
    report = state.get("report") or {}
    fence = "```" if md else ""
    if report.get("sql"):
        out.append(f"{fence}sql\n{report['sql']}\n{fence}" if md else report["sql"])
    if report.get("query"):
        out.append(f"{fence}\n{report['query']}\n{fence}" if md else report["query"])
        params = ", ".join(f"&{k} = {v['value']}" for k, v in report.get("parameters", {}).items())
        if params:
            out.append(params)
        out += report.get("links", [])
    for key in ("excel", "chart_png"):
        if report.get(key):
            out.append(f"{key}: {report[key]}")
    return [s for s in out if s]


def payload(state: RouteState) -> dict[str, Any]:
    return {
        "intent": state.get("intent"),
        "role": state.get("role"),
        "status": state.get("status"),
        "answer": state.get("answer"),
        "steps": state.get("steps") or [],
        "candidates": state.get("candidates") or [],
        "chosen": state.get("chosen"),
        "report": state.get("report"),
        "ask": state.get("ask"),
        "docs": state.get("docs"),
    }


def deliver(state: RouteState) -> dict:
    trace = Trace("deliver")
    face = state.get("face") or "cli"
    if face == "web":
        reply = {
            "face": "web",
            "markdown": "\n\n".join(_sections(state, md=True)),
            "data": payload(state),
        }
    elif face == "mcp":
        reply = {
            "face": "mcp",
            "content": [{"type": "text", "text": "\n\n".join(_sections(state, md=False))}],
            "structuredContent": payload(state),
            "isError": state.get("status") == "failed",
        }
    else:
        reply = {"face": "cli", "text": "\n\n".join(_sections(state, md=False))}
    trace.branch("reply delivered", face=face, role=state.get("role"), status=state.get("status"))
    return {"reply": reply, "trace": trace.events}
