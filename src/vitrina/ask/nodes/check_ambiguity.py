"""Ambiguity check: ask only when the answer changes the subject area or the segment.

Bounded: after `max_clarifications` questions in a row the best guess is used and the
answer says so. The model's ambiguity slot runs only when the rules' reading is not certain
(or `llm_always` asks for it); a model's "ambiguous" never overrides a certain reading
(decision 174).
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.llm import tasks
from vitrina.ask.slots import model_asked
from vitrina.ask.state import AskState
from vitrina.query.messages import text
from vitrina.query.understand import read_question
from vitrina.trace import Trace


def check_ambiguity(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("check_ambiguity")
    ctx = runtime.context
    lang = state["lang"]
    asked = state.get("clarifications_in_row", 0)
    limit = ctx.settings.max_clarifications
    candidates = state.get("candidates") or []
    dialog_segment = (state.get("segment") or "auto").lower()
    chosen = state.get("chosen", {})

    if candidates and state.get("topic") is None:
        if asked >= limit:
            topic = candidates[0]
            trace.branch("clarification limit reached: best guess used", topic=topic, limit=limit)
            note = text("clarify_limit", lang, topic=ctx.catalog.topics[topic].name(lang))
            return {
                "topic": topic,
                "candidates": [],
                "clarification": None,
                "trace": trace.events,
                "checks": [
                    *state.get("checks", []),
                    {"check": "clarification_limit", "message": note},
                ],
            }
        options = [{"id": t, "label": ctx.catalog.topics[t].name(lang)} for t in candidates]
        trace.branch("asking which topic", options=candidates)
        return {
            "clarification": {
                "kind": "topic",
                "question": text("clarify_topic", lang),
                "options": options,
            },
            "trace": trace.events,
        }

    if (
        dialog_segment in ctx.catalog.info.segment_values
        and "segment" not in chosen
        and ctx.catalog.info.segment_column
    ):
        asked_segments = set(read_question(state["rewritten"], ctx.catalog).segments)
        if asked_segments and asked_segments != {dialog_segment}:
            if asked >= limit:
                trace.branch(
                    "clarification limit reached: dialog segment kept", segment=dialog_segment
                )
                return {
                    "resolved_segment": dialog_segment,
                    "clarification": None,
                    "trace": trace.events,
                }
            other = sorted(asked_segments - {dialog_segment})[0]
            label = ctx.catalog.info.segment_label
            options = [{"id": s, "label": label(s)} for s in (dialog_segment, other)]
            trace.branch(
                "question contradicts the dialog segment", dialog=dialog_segment, question=other
            )
            return {
                "clarification": {
                    "kind": "segment",
                    "options": options,
                    "question": text(
                        "clarify_segment",
                        lang,
                        dialog=label(dialog_segment),
                        question=label(other),
                    ),
                },
                "trace": trace.events,
            }
    if ctx.llm is not None and "topic" not in chosen and asked < limit:
        clarification = _model_ambiguity(state, ctx, trace)
        if clarification is not None:
            return {"clarification": clarification, "topic": None, "trace": trace.events}
    trace.branch("no clarification needed")
    return {"clarification": None, "trace": trace.events}


def _model_ambiguity(state: AskState, ctx: AskContext, trace: Trace) -> dict | None:
    """The model's ambiguity slot: a clarification of subject, or None. Not asked for a
    certain rules reading (unless `llm_always`); an "ambiguous" on one is ignored."""
    lang = state["lang"]
    certain = bool(state.get("rules_certain"))
    if len(ctx.catalog.topics) < 2 or (certain and not model_asked(ctx)):
        if certain:
            trace.branch("the rules read the question with certainty: the model is not asked")
        return None
    topics = [{"id": t.id, "name": t.name(lang)} for t in ctx.catalog.topics.values()]
    assert ctx.llm is not None
    found = tasks.detect_ambiguity(
        ctx.llm, trace, question=state["rewritten"], topics=topics, lang=lang
    )
    if found is None:
        return None
    if certain:
        trace.rejected(
            "the model's ambiguity ignored: the rules read the question with certainty",
            options=found.options,
            topic=state.get("topic"),
        )
        return None
    options = [{"id": t, "label": ctx.catalog.topics[t].name(lang)} for t in found.options]
    trace.branch("model found an ambiguity of subject: asking", options=found.options)
    return {
        "kind": "topic",
        "options": options,
        "question": found.question or text("clarify_topic", lang),
    }
