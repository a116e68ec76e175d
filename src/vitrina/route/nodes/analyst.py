"""Metadata analyst (ReAct): exactly one Thought -> Action -> Observation step per call.

Whether to take another step, hand the findings to the report planner or finish is the
router's decision (routes.after_analyst); the MAX steps guard is checked here so the
router stays a pure function of state.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.route.analyst import next_action, run_action, thought
from vitrina.route.context import RouteContext
from vitrina.route.messages import text
from vitrina.route.metadata_view import readable_summary
from vitrina.route.plans.onec_metadata import metadata_answer
from vitrina.route.plans.onec_recorders import recorder_answer
from vitrina.route.plans.request import clean_question
from vitrina.route.state import RouteState
from vitrina.route.tools import request_words
from vitrina.trace import Trace


def analyst(state: RouteState, runtime: Runtime[RouteContext]) -> dict:
    trace = Trace("analyst")
    ctx = runtime.context
    lang = state.get("lang", "ru")
    facts = dict(state.get("facts") or {})
    if "words" not in facts:
        facts["words"] = request_words(clean_question(state.get("request", "")))
    if ctx.onec is not None and not state.get("steps"):
        request = state.get("request", "")
        answered = _recorders(request, ctx, lang, trace) or _described(request, ctx, lang, trace)
        if answered is not None:
            return answered
    has_docs = ctx.docs_index is not None or ctx.docs_model is not None
    action = state.get("pending") or next_action(facts, has_docs=has_docs)
    steps_done = len(state.get("steps") or [])
    if action is None:  # nothing to try at all (an empty request)
        trace.branch("nothing to search for")
        return {
            "pending": None,
            "stop": "finished",
            "status": "not_found",
            "answer": text("not_found", lang, steps=steps_done),
            "role": "metadata",
            "trace": trace.events,
        }
    new_facts, observation, new = run_action(
        action,
        facts,
        ctx.catalog,
        docs_index=ctx.docs_index,
        docs_model=ctx.docs_model,
        trace=trace,
    )
    arg = ", ".join(facts["words"]) if action.startswith("search_catalog") else None
    step = {
        "n": steps_done + 1,
        "thought": thought(action, lang, arg),
        "action": action,
        "observation": observation,
        "new": new,
    }
    trace.branch(f"step {step['n']}: {action}", new=new)
    pending = next_action(new_facts, has_docs=has_docs)
    update: dict = {
        "facts": new_facts,
        "steps": [step],
        "pending": pending,
        "role": "metadata",
        "trace": trace.events,
    }
    if pending is not None and step["n"] >= ctx.max_steps:
        trace.warning("MAX steps reached: the search stops", max_steps=ctx.max_steps, next=pending)
        update.update(pending=None, stop="guard")
    elif pending is None:
        update["stop"] = "finished"
    if update["pending"] is None:
        found = bool(new_facts.get("tables") or new_facts.get("measures"))
        update["status"] = "found" if found else "not_found"
        update["answer"] = readable_summary(
            new_facts, ctx.catalog, lang, step["n"], update["stop"], ctx.today.year - 1
        )
    return update


def _recorders(request: str, ctx: RouteContext, lang: str, trace: Trace) -> dict | None:
    """A 1C recorder question is answered from the metadata in one step."""
    found = recorder_answer(request, ctx.onec)
    if found is None:
        return None
    documents = ", ".join(found["recorders"])
    key = "onec_recorders" if found["recorders"] else "onec_no_recorders"
    step = {
        "n": 1,
        "thought": thought("recorders", lang, found["register"]),
        "action": "recorders",
        "observation": f"{found['register']}: {documents or '-'}",
        "new": len(found["recorders"]),
    }
    trace.branch(
        "1C recorder question answered from RegisterRecords",
        register=found["register"],
        documents=found["recorders"],
    )
    return {
        "pending": None,
        "stop": "finished",
        "status": "found",
        "role": "metadata",
        "handoff": False,  # answered from the metadata: not a register report
        "steps": [step],
        "report": found,
        "answer": text(key, lang, register=found["register"], documents=documents),
        "trace": trace.events,
    }


def _described(request: str, ctx: RouteContext, lang: str, trace: Trace) -> dict | None:
    """A 1C object's attributes, or the reports on a subject: from the metadata, one step."""
    found = metadata_answer(request, ctx.onec)
    if found is None:
        return None
    if found["kind"] == "attributes":
        fields = ", ".join(found["attributes"]) or "-"
        answer = text("onec_attributes", lang, object=found["object"], fields=fields)
        observation, new = f"{found['object']}: {fields}", len(found["attributes"])
    else:
        names = ", ".join(found["reports"])
        key = "onec_reports" if names else "onec_no_reports"
        answer = text(key, lang, subject=found["subject"] or "-", reports=names)
        observation, new = f"{found['subject']}: {names or '-'}", len(found["reports"])
    trace.branch(f"1C {found['kind']} question answered from the metadata", answer=observation)
    step = {
        "n": 1,
        "thought": thought(found["kind"], lang, found.get("object") or found["subject"]),
        "action": found["kind"],
        "observation": observation,
        "new": new,
    }
    return {
        "pending": None,
        "stop": "finished",
        "status": "found" if new or found["kind"] == "attributes" else "not_found",
        "role": "metadata",
        "handoff": False,  # not a register report: the planner would answer with a register
        "steps": [step],
        "report": found,
        "answer": answer,
        "trace": trace.events,
    }
