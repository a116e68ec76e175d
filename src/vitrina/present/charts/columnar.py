"""The chart's points of a columnar result (a large DuckDB result kept as Arrow), grouped by
value codes and NumPy (`charts.exact`) instead of a Python dict per row: what
`charts.data` makes of the rows, the same numbers in the same order. Not by Arrow's
`Table.group_by`: it runs on Acero, whose import takes pandas with it (43 MB, issue 38).

A point is one (x, series) group: a summable metric summed (NULL when every value is NULL),
another the group's first row's value. The X values kept are ordered by x, or by their total
of the first metric (largest first, ties: the x seen first), and cut to `max_points`; the
series over those X values by their total of absolute values (ties by value), the rest
summed per x into "Other". Only the points shown leave Arrow as Python values: at most
`max_points` x `max_series`, not a million.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from vitrina.present.charts import exact
from vitrina.present.charts.choose import ChartDecision


@dataclass
class Points:
    """X values in drawing order; per metric its value at each; or per series its values."""

    x_values: list[Any]
    metric_values: list[list[Decimal | None]] = field(default_factory=list)
    series: list[tuple[Any, list[Decimal | None]]] = field(default_factory=list)
    other: list[Decimal | None] | None = None  # the folded series, per x


def supported(table: Any, xi: Sequence[int], si: Sequence[int], yi: Sequence[int]) -> bool:
    """One x column, at most one series column, integer or decimal128 metrics."""
    import pyarrow as pa

    kinds = [table.column(i).type for i in yi]
    exact = all(pa.types.is_integer(k) or pa.types.is_decimal128(k) for k in kinds)
    return len(xi) == 1 and len(si) <= 1 and exact and len(set([*xi, *si])) == len([*xi, *si])


def _point_values(table: Any, col: int, points: exact.Groups, summable: bool) -> exact.Exact:
    """A metric per point: summed (NULL when every value is NULL), or its first row's."""
    if summable:
        return exact.sums(table.column(col), points, min_count=1)
    return exact.values_at(table.column(col), points.first_row)


def _x_order(
    table: Any, xi: int, si: int | None, yi: Sequence[int], summable: list[bool], decision: Any
) -> Any | None:
    """The X values kept, in drawing order (an Arrow array). Ordered by x: the distinct
    values; by total: the first metric summed per x (NULL as 0), which for a summable
    metric is its sum over the rows (no (x, series) groups: at a million rows they took
    190 MB); ties by the x seen first. None when the x cannot be grouped here."""
    import pyarrow.compute as pc

    limit = decision.max_points
    if decision.order == "x":
        xs = pc.unique(table.column(xi))
        xs = xs.take(pc.sort_indices(xs, sort_keys=[("", "ascending", "at_end")]))
        return xs.slice(len(xs) - limit) if limit and len(xs) > limit else xs
    by_x = exact.groups(table, [xi])
    if by_x is None:
        return None
    if summable[0]:
        totals = exact.sums(table.column(yi[0]), by_x, min_count=0)
    elif si is None:  # one point per x: its first row's value
        first = exact.values_at(table.column(yi[0]), by_x.first_row)
        totals = exact.sum_points(first, exact.np_range(by_x.count), by_x.count, min_count=0)
    else:  # a point per (x, series) holds its first row's value: the points are needed
        points = exact.groups(table, [xi, si])
        if points is None:
            return None
        values = exact.values_at(table.column(yi[0]), points.first_row)
        owner = by_x.ids[points.first_row]
        totals = exact.sum_points(values, owner, by_x.count, min_count=0)
    order = exact.descending(totals, by_x.first_row)
    if limit and len(order) > limit:
        order = order[:limit]
    return table.column(xi).take(exact.indices(by_x.first_row[order]))


def columnar_points(
    decision: ChartDecision,
    table: Any,
    xi: int,
    si: int | None,
    yi: Sequence[int],
    summable: list[bool],
) -> Points | None:
    """The points `charts.data` draws, from the table (see the module's text): the X values
    kept first, then the (x, series) points of their rows only. None when a key column
    cannot be grouped by its codes (the row code draws it then)."""
    import numpy as np
    import pyarrow.compute as pc

    xs = _x_order(table, xi, si, yi, summable, decision)
    if xs is None:
        return None
    if len(xs) < table.num_rows:
        table = table.filter(pc.is_in(table.column(xi), value_set=xs))
    x_coded = exact.column_codes(table, xi)
    s_coded = exact.column_codes(table, si) if si is not None else None
    if x_coded is None or (si is not None and s_coded is None):
        return None
    by_x = exact.column_groups(*x_coded)
    # a point per (x, series): the codes mixed, as `combined_codes` mixes them
    mixed = None if s_coded is None else x_coded[0] * s_coded[1] + s_coded[0]
    points = by_x if mixed is None else exact.groups_of(mixed)
    x_values = xs.to_pylist()
    position = {x: n for n, x in enumerate(x_values)}
    x_found = table.column(xi).take(exact.indices(by_x.first_row)).to_pylist()
    x_place = np.array([position[x] for x in x_found], dtype=np.int64)  # at most max_points
    point_place = x_place[by_x.ids[points.first_row]]  # each point's x, as its place
    if s_coded is None or si is None:
        cells: list[list[Decimal | None]] = [[None] * len(x_values) for _ in yi]
        for j, col in enumerate(yi):
            values = _point_values(table, col, points, summable[j])
            for n, place in enumerate(point_place.tolist()):
                cells[j][place] = exact.decimal(values, n)
        return Points(x_values, metric_values=cells)
    values = _point_values(table, yi[0], points, summable[0])
    by_s = exact.column_groups(*s_coded)
    owner = by_s.ids[points.first_row]  # each point's series
    return _series_points(decision, table, si, by_s, owner, values, point_place, x_values)


def _series_points(
    decision: ChartDecision,
    table: Any,
    si: int,
    by_s: exact.Groups,
    owner: Any,
    values: exact.Exact,
    point_place: Any,
    x_values: list[Any],
) -> Points:
    """The series over the kept X values by their total of absolute values (ties by the
    series' value, NULL last), the rest summed per x into "Other"."""
    import numpy as np
    import pyarrow.compute as pc

    size = exact.sum_points(exact.absolute(values), owner, by_s.count, min_count=0)
    names = table.column(si).take(exact.indices(by_s.first_row))
    by_name = exact.as_numpy(pc.sort_indices(names, sort_keys=[("", "ascending", "at_end")]))
    name_rank = np.empty(by_s.count, dtype=np.int64)
    name_rank[by_name] = np.arange(by_s.count, dtype=np.int64)
    ranked = exact.descending(size, name_rank)
    keep = len(ranked)
    if len(ranked) > decision.max_series:
        keep = decision.max_series - 1 if decision.fold_other else decision.max_series
    shown = ranked[:keep]
    labels = names.take(exact.indices(shown)).to_pylist()
    line = np.full(by_s.count, -1, dtype=np.int64)
    line[shown] = np.arange(keep, dtype=np.int64)
    series: list[tuple[Any, list[Decimal | None]]] = [(s, [None] * len(x_values)) for s in labels]
    point_line = line[owner]
    for n in np.flatnonzero(point_line >= 0).tolist():  # the shown points only
        series[int(point_line[n])][1][int(point_place[n])] = exact.decimal(values, n)
    other: list[Decimal | None] | None = None
    if keep < len(ranked) and decision.fold_other:
        rest = np.flatnonzero(point_line < 0)
        folded = exact.sum_points(values.take(rest), point_place[rest], len(x_values))
        other = [exact.decimal(folded, n) for n in range(len(x_values))]
    return Points(x_values, series=series, other=other)
