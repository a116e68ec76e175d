"""A plan changed by a job that continues from it (route's report variants, task's derived
steps): the joins that the change left without a use are dropped.

Joins are inner and many-to-one: a join kept for a breakdown that was removed still drops
the rows whose key is empty (payments from a wallet have no card), so "the same measure
without the breakdown" would be narrower than asked. Only the joins that a dimension, a
filter or a mandatory relation of the catalog needs stay, with the joins on their way.
"""

from __future__ import annotations

from vitrina.catalog import Catalog
from vitrina.query.plan import QueryPlan


def prune_joins(plan: QueryPlan, catalog: Catalog) -> QueryPlan:
    """Drop joins no remaining dimension, filter, date or mandatory relation needs."""
    needed = {d.table for d in plan.dimensions} | {f.table for f in plan.filters}
    needed |= {f.table for f in plan.share_filters}
    if plan.date_table:
        needed.add(plan.date_table)
    needed |= {
        r.needs for r in catalog.requires if r.when == "always" and r.table == plan.base_table
    }
    kept = []
    for join in reversed(plan.joins):
        if join.right_table in needed:
            kept.append(join)
            needed.add(join.left_table)
    return plan.model_copy(update={"joins": list(reversed(kept))})
