"""Table selection: metrics, dimensions and filters placed on tables; mandatory joins added.

Rules first: when the rules read the whole question, the rule plan is used. When the
question says more than the rules can read and a model is configured, the turn switches
to the model path (choose_tables_llm), with code still adding every join.
"""

from __future__ import annotations

from datetime import date

from langgraph.runtime import Runtime

from vitrina.ask.context import AskContext
from vitrina.ask.state import AskState
from vitrina.catalog import Catalog
from vitrina.language.periods import extract_period, period_offsets
from vitrina.language.periods.pair import read_two_periods
from vitrina.language.stopwords import QUESTION_STOPWORDS
from vitrina.query.messages import text
from vitrina.query.plan import PeriodRef, QueryPlan
from vitrina.query.planner import (
    build_plan,
    joined_by_conjunction,
    joined_vocabulary,
    metric_examples,
    plan_vocabulary,
)
from vitrina.query.understand import (
    MODEL_THRESHOLD,
    Reading,
    metric_stems,
    read_question,
    restates,
    unexplained_words,
)
from vitrina.trace import Trace


def unexplained_refusal(words: list[str], catalog: Catalog, lang: str) -> str:
    """The refusal that names the words nothing in the catalog explains."""
    quote = ("«{}»" if lang == "ru" else '"{}"').format
    return text(
        "unexplained",
        lang,
        words=", ".join(quote(w) for w in words),
        examples=metric_examples(catalog, lang),
    )


def dropped_metric_words(
    reading: Reading, plan: QueryPlan, catalog: Catalog, vocabulary: frozenset[str]
) -> list[str]:
    """Words of a metric named in the question that the plan could not use (it lives in
    another table): they asked for something the answer does not compute ("в среднем счетов
    на клиента" is not the average invoice), unless they restate the plan's own words or
    name a table it joins ("платежи картами Visa": the card table)."""
    out = []
    for match in reading.metrics:
        metric = catalog.metrics[match.phrase.target]
        if metric.id in plan.metrics or metric.table == plan.base_table:
            continue
        for word in reading.words[match.start : match.start + match.length]:
            if word.text not in QUESTION_STOPWORDS and not restates(word.text, vocabulary):
                out.append(word.text)
    return out


def metric_words(plan: QueryPlan, catalog: Catalog) -> frozenset[str]:
    """The stems of the plan's own metrics' names: a match of these words is the plan's
    metric named another way (revenue of invoices and of invoice lines), not a second one."""
    stems = metric_stems(catalog)
    return frozenset(s for metric_id in plan.metrics for s in stems.get(metric_id, ()))


def unaligned(reading: Reading, plan: QueryPlan, catalog: Catalog) -> list[tuple[str, str]]:
    """(words, role) the question asks for and the plan does not carry: a second metric joined
    by "и"/"and" to one the plan has, a second breakdown, a "per X" no average was built for,
    a second period. Each is a narrower answer if ignored, so the turn is not answered."""
    out: list[tuple[str, str]] = []
    own = metric_words(plan, catalog)
    for match in reading.metrics:
        if match.phrase.target in plan.metrics:
            continue
        said = [
            w for w in reading.words[match.start : match.end] if w.text not in QUESTION_STOPWORDS
        ]
        if all(restates(w.text, own) for w in said):
            continue  # the plan's metric under a twin's name
        if any(
            joined_by_conjunction(reading, match, other)
            for other in reading.metrics
            if other is not match
        ):
            out.append(
                (" ".join(w.original for w in reading.words[match.start : match.end]), "metric")
            )
    for unread in reading.unread:
        if unread.role == "per" and plan.derived == "per":
            continue
        out.append((unread.word, unread.role))
    if plan.period is not None:
        for i, w in enumerate(reading.words):
            if (
                i not in reading.used
                and w.text.isdigit()
                and len(w.text) == 4
                and 1900 <= int(w.text) <= 2100
            ):
                out.append((w.original, "period"))
    return out


PERIOD_NOUNS = ("год", "year")


def _part_of(word: str, parts: list[tuple[str, str]]) -> bool:
    """An unexplained word a named part already accounts for: its own word, or the noun of a
    second period ("в 2024 и 2025 годах")."""
    if any(word in said.lower().split() for said, _ in parts):
        return True
    return any(role == "period" for _, role in parts) and word.startswith(PERIOD_NOUNS)


def unaligned_refusal(
    parts: list[tuple[str, str]], plan: QueryPlan, catalog: Catalog, lang: str
) -> str:
    """The refusal naming each part of the question the plan would have left out, and why."""
    quote = ("«{}»" if lang == "ru" else '"{}"').format
    metric = " / ".join(quote(catalog.metrics[m].name(lang)) for m in plan.metrics)
    said = [
        text(f"unaligned_{role}", lang, word=quote(word), metric=metric) for word, role in parts
    ]
    return text("unaligned", lang, parts="; ".join(said))


def tie_checks(
    reading: Reading, plan: QueryPlan, catalog: Catalog, lang: str, trace: Trace
) -> list[dict]:
    """A trace event and a check for each metric reading decided between equal matches; the
    plan's notes name it in the answer."""
    checks = []
    for tie in reading.ties:
        if tie.chosen not in plan.metrics:
            continue
        chosen, other = catalog.metrics[tie.chosen], catalog.metrics[tie.other]
        trace.branch(
            "two metrics fit the same words: the one whose names cover more of the question",
            words=tie.words,
            chosen=tie.chosen,
            other=tie.other,
            decided_by="coverage" if tie.by_coverage else "catalog order",
        )
        message = text(
            "tie", lang, words=tie.words, chosen=chosen.name(lang), other=other.name(lang)
        )
        plan.notes.append(message)
        checks.append({"check": "tie", "message": message})
    return checks


def trace_verb_picks(reading: Reading, trace: Trace) -> None:
    """A metric re-read by its verb ("треков купили": tracks sold) is a decision: traced."""
    for verb, metric, instead in reading.verb_picks:
        trace.branch("a metric's own verb picked it", verb=verb, metric=metric, instead_of=instead)


def left_out(
    reading: Reading, plan: QueryPlan | None, catalog: Catalog
) -> tuple[list[str], list[tuple[str, str]]]:
    """What a rule plan would leave out of the question: the words nothing read, and the
    (words, role) read but not carried by the plan (see unaligned)."""
    if plan is None:
        return unexplained_words(reading), []
    vocabulary = plan_vocabulary(plan, catalog)
    joined = joined_vocabulary(plan, catalog)
    for part in plan.parts:  # each metric of another table names its own tables and columns
        vocabulary |= plan_vocabulary(part, catalog)
        joined |= joined_vocabulary(part, catalog)
    unexplained = unexplained_words(reading, vocabulary, plan.topic, joined)
    unexplained += dropped_metric_words(reading, plan, catalog, vocabulary | joined)
    return unexplained, unaligned(reading, plan, catalog)


def with_compared(
    plan: QueryPlan | None, compared: PeriodRef | None, parts: list[tuple[str, str]]
) -> list[tuple[str, str]]:
    """Put the second period on the plan; a time breakdown cannot line the two up (its
    buckets differ), so that plan carries one period only: the second is named as left out."""
    if plan is None or compared is None:
        return parts
    if plan.grain:
        return [*parts, (compared.label_ru, "period")]
    plan.compared = compared
    return parts


def rules_verdict(question: str, catalog: Catalog, today: date | None = None) -> dict:
    """The rules' plan for one standalone question, or None where the turn would not be
    answered by them (for measuring a question set without a warehouse): the topic is the
    reading's best scored, as detect_topic picks it when no segment or dialog decides."""
    two = read_two_periods(question, today or date.today())
    compared = PeriodRef.of(two.previous) if two else None
    question = two.question if two else question
    period = two.current if two else extract_period(question, today or date.today())
    ref = PeriodRef.of(period) if period else None
    reading = read_question(
        question, catalog, period_span=period_offsets(question, period.span if period else None)
    )
    scores = reading.topic_scores
    topic = max(scores, key=scores.__getitem__) if scores else next(iter(catalog.topics))
    trace = Trace("select_tables")
    outcome = build_plan(
        reading, catalog, topic=topic, lang="ru", period=ref, segment=None, trace=trace
    )
    unexplained, parts = left_out(reading, outcome.plan, catalog)
    parts = with_compared(outcome.plan, compared, parts)
    refused = bool(reading.unknown_names or unexplained or parts or outcome.plan is None)
    return {
        "plan": None if refused else outcome.plan,
        "unexplained": unexplained,
        "parts": parts,
        "ties": reading.ties,
    }


def _model_up(ctx: AskContext) -> bool:
    """A model is configured and not marked down for this run."""
    return ctx.llm is not None and not ctx.llm.down


def _narrower(
    parts: list[tuple[str, str]],
    unexplained: list[str],
    plan: QueryPlan | None,
    ctx: AskContext,
    lang: str,
    trace: Trace,
) -> dict:
    """The plan carries less than the question asks (`parts`): a model plans it, or, with no
    model, a refusal naming what would be left out (never an answer to a narrower question)."""
    words = [w for w, _ in parts]
    rest = [w for w in unexplained if not _part_of(w, parts)]
    if _model_up(ctx):
        trace.branch(
            "the plan carries less than the question asks: the model plans it",
            parts=[f"{role}: {word}" for word, role in parts],
        )
        return {
            "mode": "llm",
            "unexplained": [*words, *rest],
            "reading_plan": plan,
            "trace": trace.events,
        }
    trace.rejected(
        "the plan carries less than the question asks: not answered narrower",
        parts=[f"{role}: {word}" for word, role in parts],
        words=rest,
    )
    assert plan is not None
    reason = unaligned_refusal(parts, plan, ctx.catalog, lang)
    if rest:
        reason += " " + unexplained_refusal(rest, ctx.catalog, lang)
    return {
        "status": "refused",
        "unexplained": [*words, *rest],
        "trace": trace.events,
        "reason": reason,
    }


def _unread(
    unexplained: list[str], plan: QueryPlan | None, ctx: AskContext, lang: str, trace: Trace
) -> dict:
    """Too many words the rules cannot place: a model plans the question, or, with no model,
    a refusal naming the words."""
    if _model_up(ctx):
        trace.branch(
            "the rules cannot read the whole question: the model plans it", words=unexplained
        )
        return {
            "mode": "llm",
            "unexplained": unexplained,
            "reading_plan": plan,
            "trace": trace.events,
        }
    trace.rejected(
        "words the rules cannot place and no model to read them: not answered",
        words=unexplained,
    )
    return {
        "status": "refused",
        "unexplained": unexplained,
        "trace": trace.events,
        "reason": unexplained_refusal(unexplained, ctx.catalog, lang),
    }


def select_tables(state: AskState, runtime: Runtime[AskContext]) -> dict:
    trace = Trace("select_tables")
    ctx = runtime.context
    lang = state["lang"]
    period = state.get("period")
    question = state.get("compare_question") or state["rewritten"]
    reading = read_question(
        question, ctx.catalog, period_span=period_offsets(question, period.span if period else None)
    )
    if reading.unknown_names:
        trace.rejected(
            "names in the question match nothing in the catalog", names=reading.unknown_names
        )
        return {
            "status": "refused",
            "reason": text("unknown_value", lang, name=reading.unknown_names[0]),
            "trace": trace.events,
        }
    outcome = build_plan(
        reading,
        ctx.catalog,
        topic=state["topic"],
        lang=lang,
        period=period,
        segment=state.get("resolved_segment"),
        trace=trace,
        via=state.get("chosen", {}).get("join"),
    )
    plan = outcome.plan
    unexplained, parts = left_out(reading, plan, ctx.catalog)
    parts = with_compared(plan, state.get("compared"), parts)
    if parts:
        return _narrower(parts, unexplained, plan, ctx, lang, trace)
    if len(unexplained) >= MODEL_THRESHOLD:
        return _unread(unexplained, plan, ctx, lang, trace)
    if outcome.plan is None:
        asked = state.get("clarifications_in_row", 0)
        if outcome.clarification and asked < ctx.settings.max_clarifications:
            trace.branch(
                "several join paths: the user chooses",
                table_options=len(outcome.clarification["options"]),
            )
            return {"clarification": outcome.clarification, "trace": trace.events}
        return {"status": "refused", "reason": outcome.refusal, "trace": trace.events}
    trace.measurement(
        "plan",
        tables=outcome.plan.tables,
        metrics=outcome.plan.metrics,
        joins=len(outcome.plan.joins),
    )
    trace_verb_picks(reading, trace)
    if ctx.options.model_writes_sql and _model_up(ctx):
        trace.branch("the model writes the SQL of a reading the rules hold (an experiment)")
        return {"mode": "llm", "unexplained": [], "reading_plan": plan, "trace": trace.events}
    checks = tie_checks(reading, outcome.plan, ctx.catalog, lang, trace)
    if checks:
        return {
            "plan": outcome.plan,
            "mode": "rules",
            "checks": [*state.get("checks", []), *checks],
            "trace": trace.events,
        }
    return {"plan": outcome.plan, "mode": "rules", "trace": trace.events}
