"""A second metric on another fact table: its own plan, combined on the shared breakdown.

"Revenue and number of orders by priority": revenue is summed over order lines, orders are
counted in the orders table. Each metric gets the plan the rules build for it alone (its
own joins, filters and date); `vitrina.query.combine` aggregates each on its own and joins
the results on the breakdown. A part that cannot carry what the question asks (a breakdown
or filter its table does not reach) refuses the whole turn with its reason: never an answer
without it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from vitrina.catalog import Catalog
from vitrina.query.plan import QueryPlan
from vitrina.query.understand import CONJUNCTIONS, Match, Reading, phrases
from vitrina.trace import Trace

if TYPE_CHECKING:  # the planner imports this module: its outcome type only for the checker
    from vitrina.query.planner import PlanOutcome

Build = Callable[..., "PlanOutcome"]  # planner._build_plan with the reading and catalog bound
MAX_PARTS = 4  # metrics on other tables combined in one answer


def _joined(reading: Reading, match: Match) -> bool:
    """Named next to another metric with "и"/"and"/"vs" between: a metric asked for."""
    for other in reading.metrics:
        if other is match:
            continue
        lo, hi = sorted((match, other), key=lambda m: m.start)
        between = reading.words[lo.start + lo.length : hi.start]
        if any(w.text in CONJUNCTIONS for w in between):
            return True
    return False


def _candidates(match: Match, catalog: Catalog) -> list[str]:
    """The metric a match names and the metrics named by the very same words (twins)."""
    twins = [
        p.target
        for p in phrases(catalog)
        if p.kind == "metric" and p.stems == match.phrase.stems and p.target != match.phrase.target
    ]
    return list(dict.fromkeys([match.phrase.target, *twins]))


def _fits(part: QueryPlan, plan: QueryPlan) -> bool:
    """A part joins the plan only on the very same breakdown: the same columns of the same
    tables (a payment's channel is not a wallet's), the same time bucket."""

    def keys(p: QueryPlan) -> list[tuple[str, str, str | None]]:
        return [(d.table, d.select_column, d.key_column) for d in p.dimensions]

    return keys(part) == keys(plan) and part.grain == plan.grain


def _part_for(
    match: Match, catalog: Catalog, plan: QueryPlan, build: Build, trace: Trace
) -> tuple[QueryPlan | None, str | None]:
    """(the part's plan, None) or (None, the reason it cannot be built) for one metric."""
    refusal = None
    for metric_id in _candidates(match, catalog):
        if metric_id in plan.metrics:
            return None, None
        scratch = Trace(trace.node)
        outcome = build(trace=scratch, lead_id=metric_id, topic=catalog.metrics[metric_id].topic)
        built = outcome.plan
        if built is not None and metric_id in built.metrics and _fits(built, plan):
            trace.events.extend(scratch.events)
            return built, None
        refusal = refusal or outcome.refusal
    return None, refusal


def with_other_tables(
    outcome: PlanOutcome, reading: Reading, catalog: Catalog, build: Build, trace: Trace
) -> PlanOutcome:
    """The outcome with the metrics of other fact tables the question asks for as parts; an
    outcome refusing with a part's reason when one cannot be built."""
    plan = outcome.plan
    if plan is None:
        return outcome
    if plan.derived == "share" or any(c.kind == "metric" for c in plan.comparisons):
        return outcome  # a share or a HAVING of one metric does not carry over: refused later
    parts: list[QueryPlan] = []
    for match in reading.metrics:
        known = {*plan.metrics, *(m for p in parts for m in p.metrics)}
        target = catalog.metrics[match.phrase.target]
        if match.phrase.target in known or target.table == plan.base_table:
            continue
        if not _joined(reading, match) or len(parts) >= MAX_PARTS:
            continue
        asked = plan.model_copy(update={"metrics": list(known)})
        part, refusal = _part_for(match, catalog, asked, build, trace)
        if refusal is not None:
            trace.rejected("a second metric's own plan cannot carry the question", metric=target.id)
            return type(outcome)(None, refusal=refusal)
        if part is not None:
            trace.branch(
                "second metric on another table: aggregated on its own, joined on the breakdown",
                metric=target.id,
                table=part.base_table,
            )
            parts.append(part)
    if not parts:
        return outcome
    metrics = [*plan.metrics, *(m for p in parts for m in p.metrics if m not in plan.metrics)]
    if not plan.derived:  # columns in the order the question names them
        named = {m.phrase.target: m.start for m in reading.metrics}
        metrics.sort(key=lambda m: named.get(m, len(reading.words)))
    lead = plan.model_copy(update={"order": None, "limit": None})
    combined = plan.model_copy(update={"metrics": metrics, "parts": [lead, *parts]})
    return type(outcome)(combined, notes=outcome.notes)
