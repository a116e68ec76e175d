"""A request read once into a plan: metric, breakdowns, filters, segment, period and the
period compared with, by the same rules ask's graph runs (`read_question`, `build_plan`).

A job that builds its own steps from a request (task's first step) takes the plan from here
instead of cutting a sentence out of the request. Where the rules cannot read the request
fully (no plan, a name nothing in the catalog explains, words asking for a condition the
rules have no place for), `plan` is None and `reason` says why: the caller keeps the words.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from vitrina.catalog import Catalog
from vitrina.language.periods import extract_period, period_offsets
from vitrina.language.periods.compare import Comparison, find_comparison, strip_comparison
from vitrina.language.periods.pair import read_two_periods
from vitrina.language.text import normalize, tokenize
from vitrina.query.plan import PeriodRef, QueryPlan
from vitrina.query.planner import build_plan, joined_vocabulary, plan_vocabulary
from vitrina.query.understand import Reading, read_question, unexplained_words
from vitrina.trace import Trace

# an exclusion ("без Москвы", "кроме Казани", "excluding Moscow"): the value after it is a
# filter that keeps every other value (`Filter.exclude`); a word of exclusion followed by no
# value the rules read is never planned, so never as its opposite
LIST_WORDS = frozenset({"и", "или", "and", "or"})
EXCLUSION_WORDS = frozenset(
    {"без", "кроме", "исключая", "исключением", "except", "excluding", "without"}
)


@dataclass
class RequestPlan:
    plan: QueryPlan | None  # the request's plan without its comparison
    reason: str | None = None  # why the rules could not plan it (English, for the trace)
    comparison: Comparison | None = None  # "к прошлому году": how far back the compared period is
    compared: PeriodRef | None = None  # a second period named outright


def _topic(reading: Reading, catalog: Catalog) -> str | None:
    """The best scored topic; among equals the lead metric's, as route and ask pick it."""
    if not reading.topic_scores:
        return None
    ranked = sorted(reading.topic_scores.items(), key=lambda kv: -kv[1])
    tied = [t for t, s in ranked if s == ranked[0][1]]
    lead = catalog.metrics[reading.metrics[0].phrase.target].topic if reading.metrics else None
    return lead if lead in tied else tied[0]


def _excluded(reading: Reading) -> set[str] | None:
    """The values an exclusion word stands right before, with those listed after them
    ("кроме Москвы и Казани"); None where one stands before something else ("без учёта
    возвратов")."""
    values: set[str] = set()
    starts = {m.start: m for m in reading.values if m.phrase.value}
    for i, word in enumerate(reading.words):
        if word.text not in EXCLUSION_WORDS:
            continue
        match = starts.get(i + 1)
        if match is None:
            return None
        while match is not None and match.phrase.value:
            values.add(match.phrase.value)
            j = match.end
            joined = j < len(reading.words) and reading.words[j].text in LIST_WORDS
            match = starts.get(j + 1) if joined else starts.get(j)
    return values


def _exclude(plan: QueryPlan, values: set[str]) -> str | None:
    """Mark the filters of excluded values; a reason where a filter mixes kept and excluded
    values or an excluded value was placed on no filter."""
    placed: set[str] = set()
    for flt in plan.filters:
        hit = values & set(flt.values)
        if not hit:
            continue
        if hit != set(flt.values):
            return "kept and excluded values on one column"
        flt.exclude = True
        placed |= hit
    return None if placed == values else "an excluded value placed on no filter"


def _left_out(
    reading: Reading, plan: QueryPlan, catalog: Catalog, comparison: Comparison | None
) -> list[str]:
    """The words the plan does not carry ("старше 60 лет"): a plan without them would answer
    a wider question than was asked. The comparison's words are the derived steps' own."""
    told = {w.text for w in tokenize(comparison.span)} if comparison else set()
    told |= EXCLUSION_WORDS if any(f.exclude for f in plan.filters) else set()
    words = unexplained_words(
        reading, plan_vocabulary(plan, catalog), plan.topic, joined_vocabulary(plan, catalog)
    )
    return [w for w in words if normalize(w) not in told]


def _unreadable(reading: Reading) -> str | None:
    if _excluded(reading) is None:
        return "an exclusion of something that is not a value"
    if reading.unknown_names:
        return f"names nothing in the catalog explains: {', '.join(reading.unknown_names)}"
    if reading.refuse or reading.broken:
        return "names something the catalog marks as absent or broken"
    if len(set(reading.segments)) > 1:
        return "several segments named"
    return None


def plan_request(text: str, catalog: Catalog, today: date, lang: str, trace: Trace) -> RequestPlan:
    """The plan of a data request and its comparison, read once; `plan` None with a reason
    where the rules cannot read it."""
    comparison = find_comparison(text)
    two = None if comparison else read_two_periods(text, today)
    question = two.question if two is not None else text
    found = (
        two.current
        if two is not None
        else extract_period(
            strip_comparison(question, comparison) if comparison else question, today
        )
    )
    period = PeriodRef.of(found) if found is not None else None
    reading = read_question(
        question, catalog, period_span=period_offsets(question, found.span if found else None)
    )
    compared = PeriodRef.of(two.previous) if two is not None else None
    reason = _unreadable(reading)
    topic = _topic(reading, catalog)
    if reason is None and topic is None:
        reason = "no metric read"
    if reason is not None:
        return RequestPlan(None, reason, comparison, compared)
    assert topic is not None
    segments = sorted(set(reading.segments))
    outcome = build_plan(
        reading,
        catalog,
        topic=topic,
        lang=lang,
        period=period,
        segment=segments[0] if segments else None,
        trace=trace,
    )
    if outcome.plan is None:
        return RequestPlan(None, outcome.refusal or "no plan", comparison, compared)
    plan = outcome.plan.model_copy(update={"compared": None}, deep=True)
    why = _exclude(plan, _excluded(reading) or set())
    if why is not None:
        return RequestPlan(None, why, comparison, compared)
    left = _left_out(reading, plan, catalog, comparison)
    if left:
        return RequestPlan(None, f"words the rules did not read: {', '.join(left)}", comparison)
    if any(f.exclude for f in plan.filters):
        trace.branch("an exclusion read", filters=[f.column for f in plan.filters if f.exclude])
    return RequestPlan(plan, None, comparison, compared)
