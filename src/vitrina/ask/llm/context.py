"""Join completion for the model path: the model picks tables, code connects them."""

from __future__ import annotations

from vitrina.catalog import Catalog
from vitrina.query.plan import Join, PeriodRef


def connect(catalog: Catalog, tables: list[str], extra: list[str]) -> tuple[list[str], list[Join]]:
    """Add the tables on the relation paths between the chosen ones (and required ones),
    with their join keys, so a model never guesses a join."""
    if not tables:
        return [], []
    base, everything, joins = tables[0], [tables[0]], []
    for table in [*tables[1:], *extra]:
        path = (
            catalog.join_path(base, table)
            or catalog.join_path(base, table, many_to_one_only=False)
            or []
        )
        for rel in path:
            for name in (rel.left_table, rel.right_table):
                if name not in everything:
                    everything.append(name)
            join = Join(
                left_table=rel.left_table,
                left_column=rel.left_column,
                right_table=rel.right_table,
                right_column=rel.right_column,
            )
            if join not in joins:
                joins.append(join)
        if table not in everything:
            everything.append(table)
    for req in catalog.requires:
        if req.when == "always" and req.table in everything and req.needs not in everything:
            return connect(catalog, tables, [*extra, req.needs])
    return everything, joins


def period_text(period: PeriodRef | None) -> str:
    """The period as a model must use it: explicit ISO bounds, never a phrase to interpret."""
    if period is None:
        return "all available dates (no period filter)"
    return (
        f"{period.label_en}: from {period.start.isoformat()} to {period.end.isoformat()} inclusive"
    )
