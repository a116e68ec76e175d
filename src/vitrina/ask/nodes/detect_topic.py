"""Topic detection: weighted keyword rules per topic, restricted to the dialog's segment.

LLM slot: a topic classifier may run after these rules when more than one topic is
scored; it never runs when the rules leave exactly one, nor for a certain reading (every
word read, one topic decided) unless `llm_always` asks, and then it cannot override that
reading (decision 174).
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.llm import tasks
from vitrina.ask.slots import model_asked, reads_fully
from vitrina.ask.state import AskState
from vitrina.catalog import Catalog
from vitrina.catalog.catalog import BrokenMetric
from vitrina.language.periods import period_offsets
from vitrina.language.requests import write_verb
from vitrina.query.messages import text
from vitrina.query.planner import metric_examples
from vitrina.query.understand import read_question
from vitrina.trace import Trace

NEAR_TIE = 2.0  # topics of named metrics this close (one metric word) are a tie, not a choice


def broken_metric_text(broken: BrokenMetric, catalog: Catalog, lang: str) -> str:
    """The metric, the columns it names that do not exist, and what the catalog author does."""
    metric = broken.metric
    if broken.missing:
        quote = ("«{}»" if lang == "ru" else '"{}"').format
        return text(
            "broken_metric_columns",
            lang,
            metric=metric.name(lang),
            id=metric.id,
            columns=", ".join(quote(c) for c in broken.missing),
            table=metric.table,
        )
    return text("broken_metric", lang, metric=metric.name(lang), id=metric.id, reason=broken.reason)


def _topic_list(ctx: AskContext, lang: str) -> str:
    return ", ".join(t.name(lang) for t in ctx.catalog.topics.values())


def detect_topic(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("detect_topic")
    ctx = runtime.context
    lang = state["lang"]
    question = state["rewritten"]
    period = state.get("period")
    reading = read_question(
        question, ctx.catalog, period_span=period_offsets(question, period.span if period else None)
    )
    dialog_segment = (state.get("segment") or "auto").lower()
    asked = sorted(set(reading.segments))
    resolved = state.get("chosen", {}).get("segment")
    if resolved is None:
        resolved = (
            asked[0]
            if len(asked) == 1
            else (dialog_segment if dialog_segment in ctx.catalog.info.segment_values else None)
        )
    update: dict = {"resolved_segment": resolved, "grain": reading.grain, "rules_certain": False}

    verb = write_verb(question)
    if verb:
        trace.branch("the question asks to change data: refused, Vitrina only reads", verb=verb)
        example = next(iter(ctx.catalog.metrics.values())).name(lang) if ctx.catalog.metrics else ""
        return {
            **update,
            "status": "refused",
            "trace": trace.events,
            "reason": text("write_request", lang, verb=verb, example=example),
        }

    if reading.refuse:
        trace.branch("question names something the catalog marks as absent", words=reading.refuse)
        return {
            **update,
            "status": "refused",
            "trace": trace.events,
            "reason": text(
                "refuse_word",
                lang,
                word=shown_word(reading.refuse[0]),
                topics=_topic_list(ctx, lang),
            ),
        }

    if reading.broken:
        broken = ctx.catalog.broken_metrics[reading.broken[0]]
        trace.rejected(
            "the question names a catalog metric that cannot be computed: refused",
            metric=broken.metric.id,
            reason=broken.reason,
        )
        return {
            **update,
            "status": "refused",
            "trace": trace.events,
            "reason": broken_metric_text(broken, ctx.catalog, lang),
        }

    chosen = state.get("chosen", {}).get("topic")
    explicit = [t for t in (state.get("explicit_topics") or []) if t in ctx.catalog.topics]
    if chosen and chosen in ctx.catalog.topics:
        trace.branch("topic taken from the dialog", topic=chosen)
        return {**update, "topic": chosen, "candidates": [], "trace": trace.events}
    if len(explicit) == 1:
        trace.branch("topic chosen explicitly: detection skipped", topic=explicit[0])
        certain = reads_fully(question, ctx.catalog, period)
        return {
            **update,
            "topic": explicit[0],
            "candidates": [],
            "rules_certain": certain,
            "trace": trace.events,
        }

    scores = dict(reading.topic_scores)
    if explicit:
        scores = {t: s for t, s in scores.items() if t in explicit}
    if resolved in ctx.catalog.info.segment_values:  # whatever the catalog calls its segments
        excluded = [t for t in scores if not ctx.catalog.topics[t].serves(resolved)]
        for t in excluded:
            trace.rejected("topic outside the dialog's segment", topic=t, segment=resolved)
            scores.pop(t)
    trace.measurement("topic scores", scores=scores)
    if not scores:
        trace.branch("no topic matched: refusing")
        return {
            **update,
            "topic": None,
            "candidates": [],
            "status": "refused",
            "trace": trace.events,
            "reason": text(
                "no_topic",
                lang,
                topics=_topic_list(ctx, lang),
                examples=metric_examples(ctx.catalog, lang),
            ),
        }
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    best_score = ranked[0][1]
    tied = [t for t, s in ranked if s == best_score]
    if len(tied) > 1 and reading.metrics:
        lead = ctx.catalog.metrics[reading.metrics[0].phrase.target].topic
        if lead in tied:
            trace.branch("tie broken by the metric named first", topic=lead, tied=tied)
            tied = [lead]
    named = {ctx.catalog.metrics[m.phrase.target].topic for m in reading.metrics}
    first = ctx.catalog.metrics[reading.metrics[0].phrase.target].topic if reading.metrics else None
    close = [t for t, s in ranked if t in named and best_score - s <= NEAR_TIE]
    if len(tied) == 1 and first != tied[0] and first in close and len(close) > 1:
        trace.branch(
            "the metric named first lost its topic by at most one metric word: the user decides",
            candidates=close,
            scores={t: scores[t] for t in close},
        )
        tied = close
    certain = len(tied) == 1 and reads_fully(question, ctx.catalog, period)
    if len(scores) > 1 and ctx.llm is not None and (not certain or model_asked(ctx)):
        tied = _merge_with_model(tied, list(scores), question, ctx, lang, trace, certain)
    elif certain and len(scores) > 1 and ctx.llm is not None:
        trace.branch("the rules read the question with certainty: the model is not asked")
    if len(tied) > 1:
        trace.branch("topics tie: the user decides", candidates=tied)
        return {**update, "topic": None, "candidates": tied, "trace": trace.events}
    trace.branch("topic detected", topic=tied[0], score=best_score)
    return {
        **update,
        "topic": tied[0],
        "candidates": [],
        "rules_certain": certain,
        "trace": trace.events,
    }


def _merge_with_model(
    tied: list[str],
    left: list[str],
    question: str,
    ctx: AskContext,
    lang: str,
    trace: Trace,
    certain: bool = False,
) -> list[str]:
    """Model slot: the classifier runs only when rules scored several topics. It breaks a
    tie; when it disagrees with a clear rules winner, both go to the user, unless the
    reading is certain: then the rules' topic stands."""
    topics = [
        {
            "id": t,
            "name": ctx.catalog.topics[t].name(lang),
            "description": ctx.catalog.topics[t].description,
        }
        for t in left
    ]
    assert ctx.llm is not None
    choice = tasks.classify_topic(ctx.llm, trace, question=question, topics=topics)
    if choice is None:
        return tied
    if len(tied) > 1:
        if choice in tied:
            trace.branch("model broke the tie", topic=choice, tied=tied)
            return [choice]
        return tied
    if choice != tied[0] and certain:
        trace.rejected(
            "the model's topic ignored: the rules read the question with certainty",
            rules=tied[0],
            model=choice,
        )
        return tied
    if choice != tied[0]:
        trace.branch("rules and model disagree: the user decides", rules=tied[0], model=choice)
        return [tied[0], choice]
    return tied


def shown_word(typed: str) -> str:
    """A word of the question as a refusal names it: one Russian word in its dictionary form
    («ипотеку» -> «ипотека»), a phrase as typed (its words agree with each other)."""
    from vitrina.language.morph import dictionary_form

    return dictionary_form(typed.lower()) if len(typed.split()) == 1 else typed
