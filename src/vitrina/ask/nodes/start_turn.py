"""Start of a turn: a fresh trace, a run id, the question's language.

`start_plan` starts a turn whose plan was made elsewhere (route's report planner,
`AskService.run_plan`): the same fresh state with the plan, its topic, period and grain
set, so the turn goes straight to SQL and runs ask's own guard, checks and answer.
"""

from __future__ import annotations

import uuid

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.state import TRACE_RESET, AskState
from vitrina.catalog import Catalog
from vitrina.language.detect import detect_lang
from vitrina.query.plan import QueryPlan


def start_turn(state: AskState) -> dict:
    # the previous turn's status, read before it is reset: a follow-up after a refusal has
    # nothing to continue (resolve_context)
    return {
        **fresh_turn((state.get("question") or "").strip()),
        "previous_status": state.get("status"),
    }


def plan_problems(plan: QueryPlan, catalog: Catalog) -> list[str]:
    """What makes a plan from outside unusable against this catalog (the guard checks the SQL)."""
    problems = [f"unknown table {t}" for t in plan.tables if t not in catalog.tables]
    for metric_id in plan.metrics:
        metric = catalog.metrics.get(metric_id)
        if metric is None:
            problems.append(f"unknown metric {metric_id}")
        elif metric.table not in {plan.base_table, *(p.base_table for p in plan.parts)}:
            problems.append(f"metric {metric_id} is not on {plan.base_table}")
    problems += [f"{d.table} is not joined" for d in plan.dimensions if d.table not in plan.tables]
    problems += [f"{f.table} is not joined" for f in plan.filters if f.table not in plan.tables]
    return problems if plan.metrics else [*problems, "no metric"]


def start_plan(state: AskState, runtime: Runtime[AskContext]) -> dict:
    plan = state["given_plan"]
    assert plan is not None, "start_plan runs only with a given plan"
    turn = fresh_turn((state.get("question") or "").strip())
    update = {
        **turn,
        "lang": state.get("lang") or turn["lang"],
        "topic": plan.topic,
        "period": plan.period,
        "grain": plan.grain,
        "plan": plan,
        "given_plan": None,
    }
    problems = plan_problems(plan, runtime.context.catalog)
    if problems:  # the fail node records the error (this node's update starts a fresh trace)
        return {**update, "plan": None, "sql_error": "plan: " + "; ".join(problems)}
    return update


def fresh_turn(question: str) -> dict:
    """Every per-turn key reset: nothing of the previous turn leaks into this one."""
    return {
        "trace": TRACE_RESET,
        "run_id": uuid.uuid4().hex[:12],
        "lang": detect_lang(question),
        "rewritten": question,
        "follow_up": False,
        "topic": None,
        "period": None,
        "compared": None,
        "compare_question": None,
        "compare_span": None,
        "grain": None,
        "plan": None,
        "reading_plan": None,
        "mode": "rules",
        "rules_certain": False,
        "unexplained": [],
        "llm_tables": [],
        "table_notes": None,
        "feasibility_attempts": 0,
        "semantic_attempts": 0,
        "sql_explanation": None,
        "sql_confidence": None,
        "context": {},
        "sql": None,
        "sql_attempts": 0,
        "sql_error": None,
        "sql_source": "rules",
        "verified": None,
        "bank_close": [],
        "result": None,
        "result_rows": None,
        "result_file": None,
        "columns_meta": [],
        "checks": [],
        "answer": None,
        "table": None,
        "chart": None,
        "chart_png": None,
        "excel": None,
        "outputs": None,
        "clarification": None,
        "chosen": {},
        "clarifications_in_row": 0,
        "reason": None,
        "status": "failed",
        "given_plan": None,
    }
