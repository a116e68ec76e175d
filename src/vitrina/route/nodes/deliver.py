"""The one terminal node: every branch ends here, and the reply is shaped for its face.

cli: plain text; web: Markdown plus the structured payload; mcp: MCP tool-result content
(a text block) plus `structuredContent`. The answer and, for a report, the chosen option in
words come first; the plans' codes and scores, the search steps and the SQL follow under
"technical details" only (the web chat shows a report as an ask answer, vitrina.server.turns).
"""

from __future__ import annotations

from typing import Any

from vitrina.route.messages import text
from vitrina.route.state import RouteState
from vitrina.trace import Trace


def chosen_line(state: RouteState) -> str | None:
    """The chosen report plan in words ("Вариант отчёта: разбивка, как в запросе")."""
    chosen = (state.get("chosen") or {}).get("id")
    row = next((c for c in state.get("candidates") or [] if c["id"] == chosen), None)
    if row is None or state.get("status") not in ("answered", None):
        return None
    return text("chosen_plan", state.get("lang", "ru"), label=row["label"])


def technical(state: RouteState) -> list[str]:
    """What only technical details show: each plan's code and score, why it scored so, the
    SQL. A person reads the answer and the chosen option in words; this is for checking."""
    lang = state.get("lang", "ru")
    chosen = (state.get("chosen") or {}).get("id")
    out = []
    for c in state.get("candidates") or []:
        mark = f" ← {text('chosen', lang)}" if c["id"] == chosen else ("" if c["valid"] else " ✗")
        out.append(f"• {c['label']} [{c['id']}]: {c['total']}{mark}")
    report = state.get("report") or {}
    if report.get("sql"):
        out.append(report["sql"])
    return out


def _steps(state: RouteState, md: bool) -> list[str]:
    steps = state.get("steps") or []
    if not steps:
        return []
    out = [("### " if md else "") + text("steps", state.get("lang", "ru"))]
    for s in steps:
        out.append(f"{s['n']}. {s['thought']}\n   → {s['action']}\n   ← {s['observation']}")
    return out


def _sections(state: RouteState, md: bool, details: bool = True) -> list[str]:
    """The reply's parts; with `details`, the technical details last under their heading."""
    out = [state.get("answer") or "", chosen_line(state) or ""]
    report = state.get("report") or {}
    fence = "```" if md else ""
    if report.get("query"):  # a 1C query: it is the answer itself
        out.append(f"{fence}\n{report['query']}\n{fence}" if md else report["query"])
        params = ", ".join(f"&{k} = {v['value']}" for k, v in report.get("parameters", {}).items())
        if params:
            out.append(params)
        out += report.get("links", [])
    for key in ("excel", "chart_png"):
        if report.get(key):
            out.append(f"{key}: {report[key]}")
    found = _details(state, md)
    if details and found:
        out.append(("### " if md else "") + text("technical", state.get("lang", "ru")))
        out += found
    return [s for s in out if s]


def _details(state: RouteState, md: bool) -> list[str]:
    """The search steps, the plans' codes and scores, the SQL (a code block in Markdown)."""
    found = _steps(state, md) + technical(state)
    sql = (state.get("report") or {}).get("sql")
    if md and sql and found and found[-1] == sql:
        found[-1] = f"```sql\n{sql}\n```"
    return found


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
        reply = {  # the page shows the details only when the user asks for them
            "face": "web",
            "markdown": "\n\n".join(_sections(state, md=True, details=False)),
            "details_markdown": "\n\n".join(_details(state, md=True)),
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
