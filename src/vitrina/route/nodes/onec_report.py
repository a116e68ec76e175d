"""Write the chosen 1C plan as deliverables: the query (parser-checked), its parameters with
values from the request's period, a data composition schema and navigation links."""

from __future__ import annotations

import uuid
from datetime import date

from langgraph.runtime import Runtime

from vitrina.language.periods import extract_period
from vitrina.onec import OneCQuery, list_link, report_link, report_name, write_dcs, write_query
from vitrina.route.context import RouteContext
from vitrina.route.messages import text
from vitrina.route.state import RouteState
from vitrina.trace import Trace


def onec_report(state: RouteState, runtime: Runtime[RouteContext]) -> dict:
    trace = Trace("onec_report")
    ctx = runtime.context
    lang = state.get("lang", "ru")
    chosen = state["chosen"] or {}
    row = next(r for r in state.get("candidates", []) if r["id"] == chosen.get("id"))
    register = ctx.onec.config.get(row["register"])
    q = write_query(OneCQuery(register=register, virtual_table=row["virtual_table"], dimensions=row["dimensions"],
                              resources=row["resources"], periodicity=row["periodicity"]))
    title = chosen.get("question") or state.get("request", "")
    name = report_name(title)
    values = _parameter_values(title, ctx.today, q.parameters)
    links = [list_link(register), report_link(name)]
    links += [f"e1cib/list/{ctx.onec.config.objects[d].ru_name}" for d in ctx.onec.config.recorders(register.full_name)
              if d in ctx.onec.config.objects]
    dcs = write_dcs(q)
    files = {}
    if ctx.write_files:
        run_dir = (ctx.outputs_dir or ctx.settings.outputs_dir) / f"onec-{uuid.uuid4().hex[:12]}"
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "query.sdbl").write_text(q.text, encoding="utf-8")
        (run_dir / "Template.xml").write_text(dcs, encoding="utf-8")
        files = {"query": str(run_dir / "query.sdbl"), "dcs": str(run_dir / "Template.xml")}
    trace.branch("1C report written", register=register.ru_name, virtual_table=q.virtual_table, report=name)
    report = {"target": "onec", "plan": row["id"], "label": row["label"], "query": q.text, "parameters": values,
              "register": register.ru_name, "virtual_table": q.virtual_table, "report_name": name, "dcs": dcs,
              "links": links, "check": row["check"], "files": files}
    answer = text("onec_report", lang, title=title, source=register.ru_name, vt=q.virtual_table or "—")
    return {"status": "planned", "answer": answer, "report": report, "trace": trace.events}


def _parameter_values(question: str, today: date, params: dict[str, str]) -> dict[str, dict[str, str]]:
    """Each parameter with its meaning and a value taken from the request's period (or today)."""
    period = extract_period(question, today)
    start, end = (period.start, period.end) if period else (today.replace(day=1), today)
    value = {"Период": end, "НачалоПериода": start, "КонецПериода": end}
    return {k: {"meaning": v, "value": value.get(k, today).isoformat()} for k, v in params.items()}
