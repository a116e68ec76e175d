"""Report planner (Tree of Thoughts): several complete candidate plans, each scored by
explicit criteria in code (plus a model's score when configured); the scores and reasons
stay in state and the best valid plan is chosen. Execution is the next node's job.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.route.context import RouteContext
from vitrina.route.messages import text
from vitrina.route.plans.model_slot import model_scores
from vitrina.route.plans.onec import onec_candidates, onec_row, unsure
from vitrina.route.plans.request import read_request
from vitrina.route.plans.scoring import asked_of, score_plan
from vitrina.route.plans.warehouse import warehouse_candidates
from vitrina.route.state import RouteState
from vitrina.trace import Trace


def plan_report(state: RouteState, runtime: Runtime[RouteContext]) -> dict:
    trace = Trace("plan_report")
    ctx = runtime.context
    if ctx.target == "onec":
        return _plan_onec(state, ctx, trace)
    lang = state.get("lang", "ru")
    req = read_request(state.get("request", ""), ctx.catalog, ctx.today, state.get("facts"))
    for note in req.notes:
        trace.branch(note)
    cands, refusal = warehouse_candidates(req, ctx.catalog, trace)
    if not cands:
        reason = text("no_metric", lang) if refusal in (None, "no_metric") else refusal
        trace.branch("no candidate plan", reason=reason)
        return {
            "role": "report",
            "status": "refused",
            "answer": text("no_plan", lang, reason=reason),
            "candidates": [],
            "chosen": None,
            "trace": trace.events,
        }
    asked = asked_of(req, cands[0].plan)
    rows = []
    for cand in cands:
        scored = score_plan(
            cand, asked, ctx.catalog, dialect=ctx.dialect, row_cap=ctx.settings.row_cap
        )
        rows.append(
            {
                "id": cand.id,
                "label": cand.label(lang),
                "total": scored.total,
                "code_score": scored.total,
                "valid": scored.valid,
                "scores": scored.scores,
                "reasons": scored.reasons,
                "sql": scored.sql,
                "expected_rows": scored.expected_rows,
                "plan": cand.plan.model_dump(mode="json"),
                "previous": cand.previous.model_dump(mode="json") if cand.previous else None,
            }
        )
    _add_model_scores(ctx, req.question, rows, trace)
    return _choose(rows, lang, trace, question=req.question)


def _add_model_scores(ctx: RouteContext, question: str, rows: list[dict], trace: Trace) -> None:
    for cid, (added, reason) in model_scores(ctx.llm, question, rows, trace).items():
        row = next(r for r in rows if r["id"] == cid)
        row["model_score"] = added
        row["total"] = round(row["total"] + added, 3)
        row["reasons"].append(f"model: +{added} {reason}".rstrip())


def _choose(rows: list[dict], lang: str, trace: Trace, **extra: object) -> dict:
    for r in rows:
        trace.measurement(f"plan {r['id']} scored", total=r["total"], valid=r["valid"])
    valid = [r for r in rows if r["valid"]]
    if not valid:
        trace.rejected("every candidate plan is invalid", plans=[r["id"] for r in rows])
        return {
            "role": "report",
            "status": "failed",
            "candidates": rows,
            "chosen": None,
            "answer": text("no_plan", lang, reason="; ".join(rows[0]["reasons"][-1:])),
            "trace": trace.events,
        }
    # max keeps the first of equals: rows come ranked; a 1C row of another kind than asked
    # ("fits" False) never outranks one of the asked kind, whatever its names score
    best = max(valid, key=lambda r: (r.get("fits", True), r["total"]))
    trace.branch("best plan chosen", plan=best["id"], total=best["total"])
    return {
        "role": "report",
        "candidates": rows,
        "chosen": {"id": best["id"], **extra},
        "trace": trace.events,
    }


def _plan_onec(state: RouteState, ctx: RouteContext, trace: Trace) -> dict:
    lang = state.get("lang", "ru")
    from vitrina.route.plans.request import clean_question

    question = clean_question(state.get("request", ""))
    cands, asked = onec_candidates(
        question,
        ctx.onec,
        state.get("facts") or {},
        ctx.today,
        trace,
        context=state.get("onec_context"),
    )
    follow_up = bool(asked.get("follow_up"))
    if not cands or unsure(cands, follow_up) == "no object is named by the request":
        trace.branch("no object of the configuration fits the request", words=asked["words"])
        return {
            "role": "report",
            "status": "refused",
            "candidates": [onec_row(c) for c in cands[:5]],
            "chosen": None,
            "answer": text("no_plan", lang, reason=text("onec_no_register", lang)),
            "trace": trace.events,
        }
    rows = [onec_row(c) for c in cands]
    _add_model_scores(ctx, question, rows, trace)
    doubt = unsure(cands, follow_up)
    if doubt:
        trace.branch("the best 1C plans tie: the answer says so", why=doubt)
    return _choose(rows, lang, trace, question=question, asked=asked, unsure=doubt)
