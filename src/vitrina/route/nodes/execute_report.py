"""Execute the chosen warehouse plan as an ask answer: the plan goes to the ask job's own
entry point (`run_plan`), whose graph runs the query core's steps (`vitrina.query.run`:
compile, guard and EXPLAIN, deterministic checks, execution, result checks) and then ask's
answer, table, chart and Excel. The report is therefore an ask run like any other: it is
stored in the asker's dialog (when the face gives one), its files are downloaded and its
table sorted and paged by run id, and a follow-up question continues from it.

A comparison is one plan of two periods (`QueryPlan.compared`): one statement gives both
values, the change and the change in percent, and the result checks flag a period that the
data end inside (`vitrina.query.result_checks`), as they do for ask's own comparisons.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from vitrina.query import QueryPlan
from vitrina.route.context import RouteContext
from vitrina.route.messages import text
from vitrina.route.state import RouteState
from vitrina.trace import Trace

# what a face shows of the run at the top level of `report` (the whole AskResult is `result`)
ANSWER_FIELDS = (
    "sql",
    "columns",
    "rows",
    "row_count",
    "table",
    "chart",
    "chart_png",
    "excel",
    "checks",
    "run_id",
)


def execute_report(state: RouteState, runtime: Runtime[RouteContext]) -> dict:
    trace = Trace("execute_report")
    ctx = runtime.context
    lang = state.get("lang", "ru")
    chosen = state["chosen"] or {}
    row = next(r for r in state.get("candidates", []) if r["id"] == chosen.get("id"))
    if ctx.run_plan is None:
        trace.error("no ask service configured: the report cannot run")
        return _failed(lang, "ask service is not configured", trace)
    plan = QueryPlan.model_validate(row["plan"])
    question = chosen.get("question") or state.get("request", "")
    current = ctx.run_plan(plan, question=question, lang=lang, thread_id=state.get("ask_thread"))
    trace.branch(
        "report run through the ask job",
        plan=row["id"],
        status=current.status,
        run_id=current.run_id,
        compared=plan.compared.label_en if plan.compared else None,
    )
    if current.status != "answered":
        return _failed(lang, current.answer or current.status, trace, current)
    data = current.model_dump()
    report: dict[str, Any] = {
        "target": "warehouse",
        "plan": row["id"],
        "label": row["label"],
        **{key: data[key] for key in ANSWER_FIELDS},
        "result": data,
    }
    if plan.compared is not None:
        report["compared_with"] = plan.compared.model_dump(mode="json")
    return {
        "status": "answered",
        "answer": current.answer,
        "report": report,
        "trace": trace.events,
    }


def _failed(lang: str, reason: str, trace: Trace, result: Any = None) -> dict:
    if result is not None:
        trace.error(
            "the ask job did not answer the plan",
            status=result.status,
            run_id=result.run_id,
            checks=result.checks,
        )
    return {
        "status": "failed",
        "answer": text("report_failed", lang, reason=reason),
        "report": None,
        "trace": trace.events,
    }
