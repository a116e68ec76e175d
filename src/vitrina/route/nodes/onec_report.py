"""Write the chosen 1C plan as deliverables: the query (parser-checked), its parameters with
values from the request's period, a data composition schema and navigation links.

Period ends are whole days: `&КонецПериода` is 23:59:59 of the last day, so "за ноябрь"
keeps 30.11. Balances at a date use a `Граница` that includes the day's movements
("остатки на 30.11" is the balance at the end of 30.11); the latest values of an information
register are taken at the end of the day too. A configuration's own report is offered as
it is: its query, its parameters and its link.
"""

from __future__ import annotations

import re
import uuid
from datetime import date, datetime, time
from typing import Any

from langgraph.runtime import Runtime

from vitrina.language.periods import extract_period
from vitrina.onec import (
    Condition,
    OneCQuery,
    list_link,
    report_link,
    report_name,
    write_dcs,
    write_query,
)
from vitrina.route.context import RouteContext
from vitrina.route.messages import text
from vitrina.route.state import RouteState
from vitrina.trace import Trace

PARAMETER = re.compile(r"&([^\W\d]\w*)")


def onec_report(state: RouteState, runtime: Runtime[RouteContext]) -> dict:
    trace = Trace("onec_report")
    ctx = runtime.context
    lang = state.get("lang", "ru")
    chosen = state["chosen"] or {}
    row = next(r for r in state.get("candidates", []) if r["id"] == chosen.get("id"))
    config = ctx.onec.config
    register = config.get(row["register"])
    title = chosen.get("question") or state.get("request", "")
    bounds = (chosen.get("asked") or {}).get("period")  # as the planner read it (or kept it)
    recorders = [
        config.objects[d] for d in config.recorders(register.full_name) if d in config.objects
    ]
    if row.get("report"):
        own = config.get(row["report"])
        query, name, dcs = row["query"], own.name, ""
        params = {p: "" for p in dict.fromkeys(PARAMETER.findall(query))}
        links = [report_link(own.name), list_link(register)]
        data = {}
        trace.branch("the configuration's own report offered", report=own.ru_name)
    else:
        q = write_query(
            OneCQuery(
                register=register,
                virtual_table=row["virtual_table"],
                dimensions=row["dimensions"],
                resources=row["resources"],
                periodicity=row["periodicity"],
                movements=row.get("movements", False),
                dated=row.get("dated", False),
                conditions=[Condition(**c) for c in row.get("conditions", [])],
            )
        )
        query, name, params = q.text, report_name(title), q.parameters
        values = _named(
            parameter_values(title, ctx.today, params, q.virtual_table, bounds), q.conditions
        )
        dcs = write_dcs(q, values={k: v["value"] for k, v in values.items()})
        links = [list_link(register), report_link(name)]
        data = _read_infobase(ctx, q, values, trace)
    values = _named(
        parameter_values(title, ctx.today, params, row["virtual_table"], bounds),
        [Condition(**c) for c in row.get("conditions", [])],
    )
    links += [list_link(d) for d in recorders]
    files = {}
    if ctx.write_files:
        run_dir = (ctx.outputs_dir or ctx.settings.outputs_dir) / f"onec-{uuid.uuid4().hex[:12]}"
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "query.sdbl").write_text(query, encoding="utf-8")
        files = {"query": str(run_dir / "query.sdbl")}
        if dcs:
            (run_dir / "Template.xml").write_text(dcs, encoding="utf-8")
            files["dcs"] = str(run_dir / "Template.xml")
    for word in row.get("unplaced", []):
        trace.rejected(
            "a filter of the request has no field in the chosen object",
            filter=word,
            object=row["object"],
        )
    trace.branch(
        "1C report written", object=row["object"], virtual_table=row["virtual_table"], report=name
    )
    doubt = chosen.get("unsure")
    report = {
        "target": "onec",
        "plan": row["id"],
        "label": row["label"],
        "object": row["object"],
        "register": register.ru_name,
        "virtual_table": row["virtual_table"],
        "query": query,
        "parameters": values,
        "filters": [Condition(**c).text for c in row.get("conditions", [])],
        "unplaced": row.get("unplaced", []),
        "report_name": name,
        "dcs": dcs,
        "links": links,
        "recorders": [d.ru_name for d in recorders],
        "check": row["check"],
        "files": files,
        "unsure": doubt,
        **data,
    }
    answer = text(
        "onec_report", lang, title=title, source=row["object"], vt=row["virtual_table"] or "—"
    )
    if report["filters"]:
        answer += "\n" + text("onec_filters", lang, filters="; ".join(report["filters"]))
    if report["unplaced"]:
        answer += "\n" + text(
            "onec_unplaced",
            lang,
            filters=", ".join(f"«{w}»" for w in report["unplaced"]),
            source=row["object"],
        )
    if doubt:
        answer += "\n" + text("onec_unsure", lang, why=doubt)
    status = "unsure" if doubt else "planned"
    return {"status": status, "answer": answer, "report": report, "trace": trace.events}


def _read_infobase(
    ctx: RouteContext, q: OneCQuery, values: dict[str, dict[str, str]], trace: Trace
) -> dict[str, Any]:
    """Rows from the infobase's standard OData interface when its URL is configured."""
    url = getattr(ctx.settings, "onec_url", None)
    if not url:
        return {}
    from vitrina.onec import ODataClient, ODataError

    try:
        client = ODataClient(
            url,
            user=ctx.settings.onec_user,
            password=ctx.settings.onec_password,
            timeout_s=ctx.settings.statement_timeout_s,
            max_rows=ctx.settings.row_cap,
        )
        try:
            result = client.fetch(q, {k: v["value"] for k, v in values.items()})
        finally:
            client.close()
    except ODataError as exc:
        trace.rejected("the infobase's OData interface did not answer the plan", error=str(exc))
        return {"odata_error": str(exc)}
    trace.measurement(
        "rows read from the infobase", rows=len(result.rows), truncated=result.truncated
    )
    return {"rows": result.rows, "odata_url": result.url, "truncated": result.truncated}


def _named(
    values: dict[str, dict[str, str]], conditions: list[Condition]
) -> dict[str, dict[str, str]]:
    """Parameters of filters by name ("на складе «Main»" -> &Warehouse = "Main") get the name."""
    for c in conditions:
        if c.parameter and c.parameter in values:
            values[c.parameter] = {
                "type": c.parameter_type or "Строка",
                "meaning": c.says,
                "value": c.parameter_value,
            }
    return values


def _end_of_day(day: date) -> str:
    return datetime.combine(day, time(23, 59, 59)).isoformat()


def _start(day: date) -> str:
    return datetime.combine(day, time(0, 0)).isoformat()


def parameter_values(
    question: str,
    today: date,
    params: dict[str, str],
    virtual_table: str,
    bounds: list[str] | None = None,
) -> dict[str, dict[str, str]]:
    """Each parameter with its type, meaning and value from the request's period (or today).

    `bounds` (ISO start and end) is the period the planner read, a follow-up's kept from its
    thread. Starts are 00:00:00, ends 23:59:59 of the day; a balance is taken at a Граница
    that includes the movements of its day.
    """
    period = extract_period(question, today)
    start, end = (period.start, period.end) if period else (today.replace(day=1), today)
    if bounds:
        start, end = date.fromisoformat(bounds[0]), date.fromisoformat(bounds[1])
    out: dict[str, dict[str, str]] = {}
    for name, meaning in params.items():
        kind, _, says = meaning.partition(": ") if ": " in meaning else ("Дата", "", meaning)
        low = name.lower()
        if "начало" in low or low.startswith("begin") or low.startswith("start"):
            out[name] = {
                "type": "Дата",
                "meaning": says or "начало периода",
                "value": _start(start),
            }
        elif any(
            k in low
            for k in ("конец", "граница", "период", "дата", "момент", "end", "date", "period")
        ):
            balance = kind == "Граница" or (virtual_table == "Остатки" and "начало" not in low)
            value = {
                "type": "Граница" if balance else "Дата",
                "meaning": says or "конец периода",
                "value": _end_of_day(end),
            }
            if balance:
                value["boundary"] = "Включая"
                value["set_in_code"] = (
                    f'Запрос.УстановитьПараметр("{name}", Новый Граница(Дата({end.year}, '
                    f"{end.month}, {end.day}, 23, 59, 59), ВидГраницы.Включая));"
                )
            out[name] = value
        else:
            out[name] = {"type": kind, "meaning": says, "value": ""}
    return out
