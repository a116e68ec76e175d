"""Explicit scoring of candidate report plans: one small function per criterion.

Each criterion returns (value 0..1, reason); the total is the weighted sum. A plan whose
joins do not follow the catalog's relations, or whose SQL the guard rejects, is invalid
whatever its score. A model, when configured, adds its own score (model_slot.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from math import prod

from vitrina.catalog import Catalog
from vitrina.query import QueryPlan, compile_plan
from vitrina.route.plans.request import ReportRequest
from vitrina.route.plans.warehouse import Candidate, compared_period
from vitrina.sql.guard import guard_with_catalog

UNKNOWN_CARDINALITY = 50
GRAIN_DAYS = {"day": 1, "week": 7, "month": 30.4, "quarter": 91.3, "year": 365.25}


@dataclass
class Scored:
    id: str
    total: float
    valid: bool
    scores: dict[str, float] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    sql: str | None = None
    expected_rows: int = 1


@dataclass
class Asked:
    metrics: set[str]
    dimensions: set[tuple[str, str]]
    grain: str | None
    limit: int | None
    compare: bool
    period: tuple | None
    previous: tuple | None = None  # the compared period the request names, when it names one


def asked_of(req: ReportRequest, base: QueryPlan) -> Asked:
    """What the request asked for: the base plan (the ask planner's reading) is the reference."""
    previous = None
    if req.compare_unit and base.period:
        found = compared_period(base.period, req.compare_unit)
        previous = (found.start, found.end)
    return Asked(
        metrics=set(base.metrics),
        dimensions={(d.table, d.column) for d in base.dimensions},
        grain=req.reading.grain,
        limit=req.reading.limit,
        compare=req.compare,
        period=(req.period.start, req.period.end) if req.period else None,
        previous=previous,
    )


def measures(cand: Candidate, asked: Asked, _: Catalog) -> tuple[float, str]:
    plan = cand.plan
    got = asked.metrics & set(plan.metrics)
    return (
        len(got) / len(asked.metrics) if asked.metrics else 1.0
    ), f"measures {len(got)}/{len(asked.metrics)}"


def dimensions(cand: Candidate, asked: Asked, _: Catalog) -> tuple[float, str]:
    plan = cand.plan
    have = {(d.table, d.column) for d in plan.dimensions}
    if not asked.dimensions:
        value = 1.0 if not have else 0.5
        return value, "no breakdown asked" + ("" if not have else f", {len(have)} added")
    covered = len(asked.dimensions & have) / len(asked.dimensions)
    extra = len(have - asked.dimensions)
    return max(
        0.0, covered - 0.5 * extra
    ), f"dimensions {len(asked.dimensions & have)}/{len(asked.dimensions)}"


def joins(cand: Candidate, _: Asked, catalog: Catalog) -> tuple[float, str]:
    plan = cand.plan
    rels = {(r.left, r.right) for r in catalog.relations} | {
        (r.right, r.left) for r in catalog.relations
    }
    for j in plan.joins:
        if (f"{j.left_table}.{j.left_column}", f"{j.right_table}.{j.right_column}") not in rels:
            return 0.0, f"join {j.left_table} -> {j.right_table} is not a catalog relation"
        if catalog.join_path(plan.base_table, j.right_table) is None:
            return 0.0, f"join to {j.right_table} is not many-to-one from {plan.base_table}"
    return 1.0, f"{len(plan.joins)} joins along many-to-one relations"


def grain(cand: Candidate, asked: Asked, _: Catalog) -> tuple[float, str]:
    if cand.plan.grain == asked.grain:
        return 1.0, f"grain {cand.plan.grain or 'none'} as asked"
    return 0.0, f"grain {cand.plan.grain or 'none'}, asked {asked.grain or 'none'}"


def period(cand: Candidate, asked: Asked, _: Catalog) -> tuple[float, str]:
    plan, prev = cand.plan, cand.previous
    got = (plan.period.start, plan.period.end) if plan.period else None
    if got != asked.period:
        return 0.0, "period differs from the request"
    compared = (prev.start, prev.end) if prev else None
    if not asked.compare:
        return (
            (1.0, "period as asked") if compared is None else (0.5, "a comparison nobody asked for")
        )
    if compared is None:
        return 0.5, "period as asked, but the comparison asked for needs the compared period too"
    if compared == asked.previous:
        return 1.0, f"period as asked, compared with {prev.label_en}"
    return 0.25, f"compared with {prev.label_en}, not the period the request names"


def expected_rows(plan: QueryPlan, catalog: Catalog) -> int:
    sizes = []
    for d in plan.dimensions:
        dic = catalog.dictionary_for(d.table, d.column)
        sizes.append(len(dic.values) if dic else UNKNOWN_CARDINALITY)
    if plan.grain:
        days = ((plan.period.end - plan.period.start).days + 1) if plan.period else 4 * 365
        sizes.append(max(1, round(days / GRAIN_DAYS[plan.grain])))
    rows = prod(sizes) if sizes else 1
    return min(rows, plan.limit) if plan.limit else rows


def size(cand: Candidate, asked: Asked, catalog: Catalog) -> tuple[float, str]:
    plan = cand.plan
    rows = expected_rows(plan, catalog)
    full = expected_rows(plan.model_copy(update={"limit": None}), catalog)
    if plan.limit and full > plan.limit and not asked.limit:
        return (
            0.5,
            f"about {rows} rows, but top {plan.limit} cuts {full - plan.limit} of {full} "
            "not asked to cut",
        )
    value = 1.0 if rows <= 100 else 0.5 if rows <= 1000 else 0.0
    return value, f"about {rows} rows"


CRITERIA: tuple[
    tuple[str, float, Callable[[Candidate, Asked, Catalog], tuple[float, str]]], ...
] = (
    ("measures", 3.0, measures),
    ("dimensions", 3.0, dimensions),
    ("joins", 2.0, joins),
    ("grain", 1.0, grain),
    ("period", 2.0, period),
    ("size", 1.0, size),
)


def score_plan(
    cand: Candidate, asked: Asked, catalog: Catalog, *, dialect: str, row_cap: int
) -> Scored:
    """Weighted criteria plus the compile-and-guard gate."""
    plan = cand.plan
    out = Scored(id=cand.id, total=0.0, valid=True, expected_rows=expected_rows(plan, catalog))
    for name, weight, criterion in CRITERIA:
        value, reason = criterion(cand, asked, catalog)
        out.scores[name] = round(value, 3)
        out.total += weight * value
        out.reasons.append(f"{name}: {reason} ({value:.2f} x {weight:g})")
        if name == "joins" and value == 0.0:
            out.valid = False
    try:
        sql = compile_plan(plan, catalog, dialect)
    except Exception as exc:  # an unplannable variant is invalid, never fatal
        out.valid = False
        out.reasons.append(f"compile: {type(exc).__name__}: {exc}")
        return out
    checked = guard_with_catalog(sql, catalog, dialect=dialect, row_cap=row_cap)
    if not checked.ok:
        out.valid = False
        out.reasons.append("guard: " + "; ".join(v.message_en for v in checked.violations))
    else:
        out.sql = checked.sql
        out.reasons.append("guard: passed")
    out.total = round(out.total, 3)
    return out
