"""The structured entry: a typed spec (metrics, breakdowns, filters, period, comparison) to a
plan, through the same planner a question goes through.

A job that already knows what it wants (the build team's KPI, a route report) does not
write a sentence for the question reader to parse back: it names catalog ids, and
`plan_from_spec` turns them into the reading the planner takes (`understand.Reading`) with
every part bound exactly, then calls `build_plan`. Dates through joins, a metric's several
dates, segment filters, shares and ratio metrics are planned as for `vitrina ask`, and
the plan is checked to hold exactly what the spec asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field

from vitrina.catalog import Catalog
from vitrina.language.text import Word
from vitrina.query.plan import PeriodRef, QueryPlan
from vitrina.query.planner import build_plan
from vitrina.query.understand import Match, Phrase, Reading, phrases
from vitrina.trace import Trace

GrainName = Literal["day", "week", "month", "quarter", "year"]
JOINER = "&"  # a conjunction the planner reads between two metrics (understand.CONJUNCTIONS)


class SpecFilter(BaseModel):
    """Rows whose `column` (table.column) holds one of `values` (as stored)."""

    column: str
    values: list[str] = Field(min_length=1)


class QuerySpec(BaseModel):
    """What to query, by catalog ids: no words to read."""

    metrics: list[str] = Field(min_length=1)  # metric ids; the first leads (its table, dates)
    breakdowns: list[str] = Field(default_factory=list)  # dimension columns, table.column
    grain: GrainName | None = None  # a time breakdown
    filters: list[SpecFilter] = Field(default_factory=list)
    period: PeriodRef | None = None
    compare_with: PeriodRef | None = None  # the same plan for this period too
    date: str | None = None  # which of the metric's dates (table.column); default: its own
    share: bool = False  # the lead metric as a share of the total
    order: Literal["desc", "asc"] | None = None
    top: int | None = Field(default=None, ge=1, le=1000)
    lang: Literal["ru", "en"] = "ru"


@dataclass
class SpecOutcome:
    """The plan (and the compared period's plan), or why the spec cannot be planned."""

    plan: QueryPlan | None
    refusal: str | None = None
    compared: QueryPlan | None = None
    notes: list[str] = field(default_factory=list)


def _exact(kind: str, target: str, value: str | None = None) -> Phrase:
    """A phrase no catalog word has (stems `spec:...`), so the planner never swaps it for a
    twin named by the same words."""
    return Phrase((f"spec:{kind}:{target}:{value or ''}",), kind, target, value, exact=True)


def _dimension_phrase(catalog: Catalog, column: str) -> Phrase | None:
    """The catalog's own phrase for a dimension column: the planner places dimensions by it."""
    return next((p for p in phrases(catalog) if p.kind == "dimension" and p.target == column), None)


def _segment_of(catalog: Catalog, flt: SpecFilter) -> str | None:
    """The segment id when the filter is one value of the catalog's segment column (the
    planner adds that filter with its mandatory joins, as for a question's "B2B")."""
    info = catalog.info
    if flt.column != info.segment_column or len(flt.values) != 1:
        return None
    return next((sid for sid, value in info.segment_values.items() if value == flt.values[0]), None)


def _unknown(spec: QuerySpec, catalog: Catalog) -> str | None:
    """The first id of the spec the catalog does not have, worded for the spec's author."""
    for metric in spec.metrics:
        if metric not in catalog.metrics:
            return f"'{metric}' is not a metric of the catalog"
    for column in [*spec.breakdowns, *(f.column for f in spec.filters)]:
        if catalog.column(column) is None:
            return f"'{column}' is not a column of the catalog (write table.column)"
    for column in spec.breakdowns:
        if _dimension_phrase(catalog, column) is None:
            return f"'{column}' is not a dimension the catalog names (it has no synonyms)"
    return None


def reading_of(spec: QuerySpec, catalog: Catalog) -> tuple[Reading, str | None]:
    """The reading the planner takes, every part bound by id; and the segment id, if any."""
    words = [Word(JOINER, i, i + 1, JOINER) for i in range(2 * len(spec.metrics))]
    reading = Reading(words=words, grain=spec.grain, order=spec.order, limit=spec.top)
    reading.metrics = [
        Match(_exact("metric", m), start=2 * i, length=1) for i, m in enumerate(spec.metrics)
    ]
    reading.share = spec.share
    if spec.date:
        reading.dates = [Match(_exact("date", spec.date), start=0, length=0)]
    for column in spec.breakdowns:
        phrase = _dimension_phrase(catalog, column)
        assert phrase is not None  # _unknown checked it
        reading.dimensions.append(Match(phrase, start=0, length=0))
    segment = None
    for flt in spec.filters:
        seg = _segment_of(catalog, flt)
        if seg is not None and segment is None:
            segment = seg
            continue
        for value in flt.values:
            match = Match(_exact("value", flt.column, value), 0, 0, alternatives=(flt.column,))
            reading.values.append(match)
    return reading, segment


def mismatch(plan: QueryPlan, spec: QuerySpec) -> str | None:
    """Why the plan is not exactly the spec (None when it is): the planner placed a
    breakdown on a nearer column of the same name, or left a part out."""
    if plan.metrics != spec.metrics[: len(plan.metrics)] or len(plan.metrics) != len(spec.metrics):
        return f"the metrics planned are {plan.metrics}, the spec asks for {spec.metrics}"
    dims = [f"{d.table}.{d.column}" for d in plan.dimensions]
    if dims != spec.breakdowns:
        return f"the breakdown planned is {dims or 'none'}, the spec asks for {spec.breakdowns}"
    if plan.grain != spec.grain:
        return f"the time grain planned is {plan.grain}, the spec asks for {spec.grain}"
    got = {(f"{f.table}.{f.column}", tuple(sorted(f.values))) for f in plan.filters}
    got |= {(f"{f.table}.{f.column}", tuple(sorted(f.values))) for f in plan.share_filters}
    wanted = {(f.column, tuple(sorted(set(f.values)))) for f in spec.filters}
    if got != wanted:
        return f"the filters planned are {_shown(got)}, the spec asks for {_shown(wanted)}"
    return None


def _shown(filters: set[tuple[str, tuple[str, ...]]]) -> str:
    """Filters as a person reads them: `table.column in (a, b)`, or "none"."""
    return "; ".join(f"{c} in ({', '.join(v)})" for c, v in sorted(filters)) or "none"


def plan_from_spec(spec: QuerySpec, catalog: Catalog, trace: Trace) -> SpecOutcome:
    """The plan of a spec, through `build_plan`; a refusal in the spec's language otherwise."""
    problem = _unknown(spec, catalog)
    if problem:
        trace.rejected("spec names what the catalog does not have", problem=problem)
        return SpecOutcome(None, refusal=problem)
    reading, segment = reading_of(spec, catalog)
    lead = catalog.metrics[spec.metrics[0]]
    outcome = build_plan(
        reading,
        catalog,
        topic=lead.topic or "",  # as a question: ask plans within the metric's topic
        lang=spec.lang,
        period=spec.period,
        segment=segment,
        trace=trace,
    )
    if outcome.plan is None:
        return SpecOutcome(None, refusal=outcome.refusal, notes=outcome.notes)
    problem = mismatch(outcome.plan, spec)
    if problem:
        trace.rejected("the plan is not the spec", problem=problem)
        return SpecOutcome(None, refusal=problem, notes=outcome.notes)
    trace.branch("spec planned", metrics=spec.metrics, tables=outcome.plan.tables)
    compared = None
    if spec.compare_with is not None:
        compared = outcome.plan.model_copy(update={"period": spec.compare_with}, deep=True)
    return SpecOutcome(outcome.plan, compared=compared, notes=outcome.notes)
