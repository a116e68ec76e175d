"""The chart's points of a columnar result (a large DuckDB result kept as Arrow), grouped by
Arrow instead of a Python dict per row: what `charts.data` makes of the rows, the same
numbers in the same order.

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

from vitrina.present.charts.choose import ChartDecision


@dataclass
class Points:
    """X values in drawing order; per metric its value at each; or per series its values."""

    x_values: list[Any]
    metric_values: list[list[Decimal | None]] = field(default_factory=list)
    series: list[tuple[Any, list[Decimal | None]]] = field(default_factory=list)
    other: list[Decimal | None] | None = None  # the folded series, per x


def supported(table: Any, xi: Sequence[int], si: Sequence[int], yi: Sequence[int]) -> bool:
    """One x column, at most one series column, integer or decimal metrics."""
    import pyarrow as pa

    kinds = [table.column(i).type for i in yi]
    exact = all(pa.types.is_integer(k) or pa.types.is_decimal(k) for k in kinds)
    return len(xi) == 1 and len(si) <= 1 and exact and len(set([*xi, *si])) == len([*xi, *si])


def _dec(value: Any) -> Decimal | None:
    if value is None:
        return None
    return value if isinstance(value, Decimal) else Decimal(value)


def _grouped(table: Any, xi: int, si: int | None, yi: Sequence[int], summable: list[bool]) -> Any:
    """One row per (x, series): the metrics as the points keep them, the first row seen."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    arrays = [table.column(xi)]
    names = ["x"]
    if si is not None:
        arrays.append(table.column(si))
        names.append("s")
    arrays += [table.column(i) for i in yi]
    names += [f"y{j}" for j in range(len(yi))]
    arrays.append(pa.array(np.arange(table.num_rows, dtype=np.int64)))
    names.append("r")
    keyed = pa.Table.from_arrays(arrays, names=names)
    summed = pc.ScalarAggregateOptions(min_count=1)
    aggregations = [(f"y{j}", "sum", summed) for j, summ in enumerate(summable) if summ]
    keys = names[: 2 if si is not None else 1]
    out = keyed.group_by(keys, use_threads=False).aggregate([*aggregations, ("r", "min")])
    # "y0_sum", "r_min" -> "y0", "r"; the keys keep their names
    out = out.rename_columns([n if n in keys else n.rsplit("_", 1)[0] for n in out.column_names])
    for j, summ in enumerate(summable):  # not summed: the value of the group's first row
        if not summ:  # (by its row: Arrow's "first" has no kernel for decimals)
            out = out.append_column(f"y{j}", table.column(yi[j]).take(out.column("r")))
    return out


def _x_order(
    table: Any, xi: int, si: int | None, yi: Sequence[int], summable: list[bool], decision: Any
) -> Any:
    """The X values kept, in drawing order (an Arrow array). Ordered by x: the distinct
    values; by total: the first metric summed per x, which for a summable metric is its sum
    over the rows (no (x, series) groups: at a million rows they took 190 MB)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    limit = decision.max_points
    if decision.order == "x":
        xs = pc.unique(table.column(xi))
        xs = xs.take(pc.sort_indices(xs, sort_keys=[("", "ascending", "at_end")]))
        return xs.slice(len(xs) - limit) if limit and len(xs) > limit else xs
    if summable[0] or si is None:
        rows = pa.Table.from_arrays(
            [table.column(xi), table.column(yi[0]), pa.array(np.arange(table.num_rows))],
            names=["x", "y0", "r"],
        )
        if not summable[0]:  # one point per x: its first row's value
            rows = _grouped(table, xi, None, yi[:1], [False])
    else:  # a point per (x, series) holds its first row's value: the groups are needed
        rows = _grouped(table, xi, si, yi[:1], [False])
    per_x = rows.group_by("x", use_threads=False).aggregate(
        [("y0", "sum", pc.ScalarAggregateOptions(min_count=0)), ("r", "min")]
    )
    ranked = per_x.sort_by([("y0_sum", "descending"), ("r_min", "ascending")])
    xs = ranked.column("x")
    return xs.slice(0, limit) if limit and len(xs) > limit else xs


def columnar_points(
    decision: ChartDecision,
    table: Any,
    xi: int,
    si: int | None,
    yi: Sequence[int],
    summable: list[bool],
) -> Points:
    """The points `charts.data` draws, from the table (see the module's text): the X values
    kept first, then the (x, series) points of their rows only."""
    import pyarrow.compute as pc

    xs = _x_order(table, xi, si, yi, summable, decision)
    if len(xs) < table.num_rows:
        table = table.filter(pc.is_in(table.column(xi), value_set=xs))
    kept = _grouped(table, xi, si, yi, summable)
    x_values = xs.to_pylist()
    position = {x: n for n, x in enumerate(x_values)}
    if si is None:
        cells: list[list[Decimal | None]] = [[None] * len(x_values) for _ in yi]
        columns = [kept.column(f"y{j}").to_pylist() for j in range(len(yi))]
        for n, x in enumerate(kept.column("x").to_pylist()):
            for j, column in enumerate(columns):
                cells[j][position[x]] = _dec(column[n])
        return Points(x_values, metric_values=cells)
    return _series_points(decision, kept, x_values, position)


def _series_points(
    decision: ChartDecision, kept: Any, x_values: list[Any], position: dict[Any, int]
) -> Points:
    import pyarrow.compute as pc

    absolute = kept.append_column("a", pc.abs(kept.column("y0")))
    per_s = absolute.group_by("s", use_threads=False).aggregate(
        [("a", "sum", pc.ScalarAggregateOptions(min_count=0))]
    )
    ranked = per_s.sort_by([("a_sum", "descending"), ("s", "ascending", "at_end")]).column("s")
    keep = len(ranked)
    if len(ranked) > decision.max_series:
        keep = decision.max_series - 1 if decision.fold_other else decision.max_series
    shown = ranked.slice(0, keep)
    is_shown = pc.fill_null(pc.is_in(kept.column("s"), value_set=shown), False)
    drawn = kept.filter(is_shown)
    series: dict[Any, list[Decimal | None]] = {s: [None] * len(x_values) for s in shown.to_pylist()}
    for x, s, y in zip(
        drawn.column("x").to_pylist(),
        drawn.column("s").to_pylist(),
        drawn.column("y0").to_pylist(),
        strict=True,
    ):
        series[s][position[x]] = _dec(y)
    other: list[Decimal | None] | None = None
    if keep < len(ranked) and decision.fold_other:
        rest = kept.filter(pc.invert(is_shown)).group_by("x", use_threads=False)
        folded = rest.aggregate([("y0", "sum", pc.ScalarAggregateOptions(min_count=1))])
        other = [None for _ in x_values]
        for x, y in zip(
            folded.column("x").to_pylist(), folded.column("y0_sum").to_pylist(), strict=True
        ):
            other[position[x]] = _dec(y)
    return Points(x_values, series=list(series.items()), other=other)
