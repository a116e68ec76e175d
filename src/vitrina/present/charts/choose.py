"""Chart choice by rules: what goes on X, which metrics are plotted, on which axis, and why.

Periods are always the X axis (a month number is a period, never a metric); ids are never
plotted as values; metrics of different units or scales never share an axis; each chart
kind has a point limit and the decision says when it cut.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, Field

from vitrina.present import columnar
from vitrina.present.charts import limits
from vitrina.present.columns import ColumnMeta, ColumnRole, ValueFormat
from vitrina.present.numbers import Lang, format_count, metas_for, to_decimal
from vitrina.present.summary import is_period, is_summable, metric_columns
from vitrina.warehouse.result import QueryResult

ChartKind = Literal["line", "bar", "grouped_bar", "stacked_bar", "pie", "kpi", "none"]
Axis = Literal["y", "y2"]


class ChartDecision(BaseModel):
    """What to draw and why; ``cut`` says what was left out (shown under the chart)."""

    kind: ChartKind
    x: str | None = None  # the X column (the first of x_columns)
    x_columns: list[str] = Field(default_factory=list)  # several periods combine: year + month
    series: str | None = None  # the column that splits lines / bar groups
    series_columns: list[str] = Field(default_factory=list)
    y_columns: list[str] = Field(default_factory=list)  # metrics plotted
    axes: dict[str, Axis] = Field(default_factory=dict)  # metric -> "y" | "y2"
    reason: str = ""
    cut: str | None = None
    order: Literal["x", "desc"] = "x"  # by X (periods) or by value, largest first
    max_points: int = 0  # X values kept
    max_series: int = limits.SERIES_MAX
    fold_other: bool = False  # series over the limit fold into "Other" (summable metrics)
    dropped: list[str] = Field(default_factory=list)  # metric columns not plotted
    # the chart data `decide_chart` built for the spec ({lang, data: ChartData dumped}): the PNG
    # in that language is drawn from it as it is, not from the result again (a million rows:
    # seconds; a reloaded dialog holds only a sample of them)
    prepared: dict[str, Any] | None = None


def _t(lang: Lang | str, ru: str, en: str) -> str:
    return ru if lang == "ru" else en


def _distinct(result: QueryResult, columns: Sequence[str]) -> int:
    """Distinct value combinations (by value; by text where a value cannot be hashed)."""
    idx = [result.columns.index(c) for c in columns]
    if result.arrow is not None:  # a large result: by Arrow (`present.columnar`)
        return columnar.distinct(result.arrow, idx)
    if not idx:
        return 1 if result.rows else 0
    try:  # itemgetter: the keys are made in C, a million rows in a fraction of a second
        return len(set(map(operator.itemgetter(*idx), result.rows)))
    except TypeError:  # a list or a dict in a cell
        return len({tuple(repr(row[i]) for i in idx) for row in result.rows})


def _max_abs(result: QueryResult, column: str) -> Decimal:
    i = result.columns.index(column)
    table = result.arrow
    if table is not None and columnar.exact_numbers(table, i):
        import pyarrow.compute as pc

        return columnar.as_decimal(pc.max(pc.abs(table.column(i))).as_py()) or Decimal(0)
    cells = columnar.values(table, i) if table is not None else (row[i] for row in result.rows)
    values = [abs(d) for cell in cells if (d := to_decimal(cell)) is not None]
    return max(values, default=Decimal(0))


def same_scale(result: QueryResult, a: ColumnMeta, b: ColumnMeta) -> bool:
    """Two metrics may share an axis: same format, same unit, maxima within the ratio limit."""
    if a.fmt != b.fmt or (a.unit or "") != (b.unit or ""):
        return False
    ma, mb = _max_abs(result, a.name), _max_abs(result, b.name)
    lo, hi = min(ma, mb), max(ma, mb)
    if lo == 0:
        return True
    return hi / lo <= Decimal(str(limits.SCALE_RATIO_MAX))


def assign_axes(
    result: QueryResult, metrics: Sequence[ColumnMeta]
) -> tuple[dict[str, Axis], list[str]]:
    """Put each metric on y, on y2 (another unit or scale), or drop it when both are taken."""
    axes: dict[str, Axis] = {}
    dropped: list[str] = []
    y_base = metrics[0]
    y2_base: ColumnMeta | None = None
    axes[y_base.name] = "y"
    for m in metrics[1:]:
        if same_scale(result, y_base, m):
            axes[m.name] = "y"
        elif y2_base is None or same_scale(result, y2_base, m):
            y2_base = y2_base or m
            axes[m.name] = "y2"
        else:
            dropped.append(m.name)
    return axes, dropped


def _dropped_note(
    metas: Sequence[ColumnMeta], names: Iterable[str], lang: Lang | str
) -> str | None:
    labels = [f"«{m.label(lang)}»" for m in metas if m.name in set(names)]
    if not labels:
        return None
    return _t(
        lang,
        f"не показаны (другой масштаб или единица): {', '.join(labels)}",
        f"not shown (another scale or unit): {', '.join(labels)}",
    )


def _join(*notes: str | None) -> str | None:
    parts = [n for n in notes if n]
    if not parts:
        return None
    text = "; ".join(parts)
    return text[0].upper() + text[1:]


def _none(reason: str) -> ChartDecision:
    return ChartDecision(kind="none", reason=reason)


def _series_note(n: int, fold: bool, lang: Lang | str) -> str | None:
    if n <= limits.SERIES_MAX:
        return None
    if fold:
        keep = limits.SERIES_MAX - 1
        return _t(
            lang,
            f"показаны {keep} крупнейших рядов из {n}, остальные объединены в «Прочее»",
            f"showing the {keep} largest series of {n}, the rest folded into “Other”",
        )
    keep = limits.SERIES_MAX
    return _t(
        lang,
        f"показаны {keep} крупнейших рядов из {n}",
        f"showing the {keep} largest series of {n}",
    )


def _dup_note(
    result: QueryResult, keys: Sequence[str], summable: bool, lang: Lang | str
) -> str | None:
    if _distinct(result, keys) == result.row_count:
        return None
    if summable:
        return _t(
            lang,
            "несколько строк на точку: значения сложены",
            "several rows per point: values summed",
        )
    return _t(
        lang,
        "несколько строк на точку: взято первое значение",
        "several rows per point: the first value is shown",
    )


def choose_chart(
    result: QueryResult, metas: Iterable[ColumnMeta], lang: Lang | str = "ru"
) -> ChartDecision:
    """Choose a chart for a result by the column meanings (rules only, no model)."""
    metas = metas_for(result, metas)
    if not result.rows:
        return _none(_t(lang, "нет строк для графика", "no rows to chart"))
    periods = [m for m in metas if is_period(m)]
    dims = [m for m in metas if m.role is ColumnRole.DIMENSION and not is_period(m)]
    metrics = metric_columns(result, metas)
    if not metrics:
        return _none(
            _t(
                lang,
                "нет числового показателя для графика "
                "(периоды и идентификаторы не строятся как значения)",
                "no numeric metric to plot (periods and ids are never plotted as values)",
            )
        )
    if result.row_count == 1:
        shown = metrics[: limits.KPI_MAX_VALUES]
        return ChartDecision(
            kind="kpi",
            y_columns=[m.name for m in shown],
            axes={m.name: "y" for m in shown},
            reason=_t(lang, "одно значение: карточка показателя", "a single value: a KPI card"),
            max_points=1,
            dropped=[m.name for m in metrics[limits.KPI_MAX_VALUES :]],
        )
    if periods:
        return _period_chart(result, metas, periods, dims, metrics, lang)
    cats = dims or [m for m in metas if m.role in (ColumnRole.ID, ColumnRole.ATTRIBUTE)][:1]
    if not cats:
        return _none(
            _t(lang, "у строк нет подписей для оси X", "rows have no labels for the X axis")
        )
    if len(cats) == 1:
        return _category_chart(result, metas, cats[0], metrics, lang)
    if len(cats) == 2:
        return _two_dim_chart(result, metas, cats, metrics, lang)
    return _none(
        _t(
            lang,
            f"слишком много разрезов для графика ({len(cats)}), смотрите таблицу",
            f"too many dimensions for a chart ({len(cats)}), see the table",
        )
    )


def _period_chart(
    result: QueryResult,
    metas: list[ColumnMeta],
    periods: list[ColumnMeta],
    dims: list[ColumnMeta],
    metrics: list[ColumnMeta],
    lang: Lang | str,
) -> ChartDecision:
    x_cols = [m.name for m in periods]
    n_points = _distinct(result, x_cols)
    points_note = None
    if n_points > limits.LINE_MAX_POINTS:
        points_note = _t(
            lang,
            f"показаны последние {limits.LINE_MAX_POINTS} "
            f"из {format_count(n_points, lang)} периодов",
            f"showing the latest {limits.LINE_MAX_POINTS} of {format_count(n_points, lang)} "
            "periods",
        )
    is_line = n_points >= limits.LINE_MIN_POINTS
    x_label = " · ".join(m.label(lang) for m in periods)
    if dims:
        metric = metrics[0]
        s_cols = [m.name for m in dims]
        n_series = _distinct(result, s_cols)
        fold = is_summable(metric)
        dropped = [m.name for m in metrics[1:]]
        dropped_note = _first_only_note(
            metric, dropped, lang, "несколько рядов по разрезу", "several series by dimension"
        )
        return ChartDecision(
            kind="line" if is_line else "grouped_bar",
            x=x_cols[0],
            x_columns=x_cols,
            series=s_cols[0],
            series_columns=s_cols,
            y_columns=[metric.name],
            axes={metric.name: "y"},
            reason=_t(
                lang,
                f"период «{x_label}» по оси X, ряд на каждое значение «{dims[0].label(lang)}»",
                f"period “{x_label}” on X, one series per “{dims[0].label(lang)}”",
            )
            + (
                ""
                if is_line
                else _t(lang, " (не больше 3 периодов: столбцы)", " (3 periods or fewer: bars)")
            ),
            cut=_join(
                points_note,
                _series_note(n_series, fold, lang),
                dropped_note,
                _dup_note(result, x_cols + s_cols, fold, lang),
            ),
            order="x",
            max_points=limits.LINE_MAX_POINTS,
            fold_other=fold,
            dropped=dropped,
        )
    axes, dropped = assign_axes(result, metrics)
    plotted = [m.name for m in metrics if m.name in axes]
    kind: ChartKind = "line" if is_line else ("bar" if len(plotted) == 1 else "grouped_bar")
    reason = _t(lang, f"период «{x_label}» по оси X", f"period “{x_label}” on X")
    if not is_line:
        reason += _t(lang, " (не больше 3 периодов: столбцы)", " (3 periods or fewer: bars)")
    if "y2" in axes.values():
        reason += _t(lang, "; другой масштаб на второй оси", "; another scale on the second axis")
    return ChartDecision(
        kind=kind,
        x=x_cols[0],
        x_columns=x_cols,
        y_columns=plotted,
        axes=axes,
        reason=reason,
        cut=_join(
            points_note,
            _dropped_note(metas, dropped, lang),
            _dup_note(result, x_cols, all(is_summable(m) for m in metrics), lang),
        ),
        order="x",
        max_points=limits.LINE_MAX_POINTS,
        dropped=dropped,
    )


def _is_share_of_whole(result: QueryResult, metric: ColumnMeta) -> bool:
    """Percent (or fraction) shares, none negative or missing, adding up to a whole."""
    if metric.fmt is not ValueFormat.PERCENT:
        return False
    values = [to_decimal(v) for v in result.column(metric.name)]
    if any(v is None or v < 0 for v in values):
        return False
    total = float(sum(v for v in values if v is not None))
    lo, hi = limits.PIE_TOTAL_PERCENT
    flo, fhi = limits.PIE_TOTAL_FRACTION
    return lo <= total <= hi or flo <= total <= fhi


def _first_only_note(
    metric: ColumnMeta, dropped: list[str], lang: Lang | str, why_ru: str, why_en: str
) -> str | None:
    """The note when only the first metric is drawn (the others stay in the table)."""
    if not dropped:
        return None
    return _t(
        lang,
        f"показан только «{metric.label(lang)}» ({why_ru})",
        f"only “{metric.label(lang)}” is shown ({why_en})",
    )


def _bar_note(n: int, keep: int, lang: Lang | str) -> str | None:
    if n <= keep:
        return None
    return _t(
        lang,
        f"показаны {keep} крупнейших из {format_count(n, lang)}",
        f"showing the {keep} largest of {format_count(n, lang)}",
    )


def _category_chart(
    result: QueryResult,
    metas: list[ColumnMeta],
    cat: ColumnMeta,
    metrics: list[ColumnMeta],
    lang: Lang | str,
) -> ChartDecision:
    n = _distinct(result, [cat.name])
    dup = _dup_note(result, [cat.name], all(is_summable(m) for m in metrics), lang)
    if len(metrics) == 1:
        metric = metrics[0]
        one = ChartDecision(
            kind="bar",
            x=cat.name,
            x_columns=[cat.name],
            y_columns=[metric.name],
            axes={metric.name: "y"},
            reason=_t(
                lang,
                f"«{metric.label(lang)}» по «{cat.label(lang)}», по убыванию",
                f"“{metric.label(lang)}” by “{cat.label(lang)}”, largest first",
            ),
            cut=_join(_bar_note(n, limits.BAR_MAX_POINTS, lang), dup),
            order="desc",
            max_points=limits.BAR_MAX_POINTS,
        )
        if 2 <= n <= limits.PIE_MAX_SLICES and not dup and _is_share_of_whole(result, metric):
            pie = _t(
                lang,
                f"доли целого по «{cat.label(lang)}» (не больше {limits.PIE_MAX_SLICES})",
                f"shares of a whole by “{cat.label(lang)}” ({limits.PIE_MAX_SLICES} or fewer)",
            )
            pie_only = {"kind": "pie", "cut": None, "max_points": limits.PIE_MAX_SLICES}
            return one.model_copy(update={**pie_only, "reason": pie})
        return one
    axes, dropped = assign_axes(result, metrics)
    plotted = [m.name for m in metrics if m.name in axes]
    keep = max(1, limits.BAR_MAX_POINTS // len(plotted))
    reason = _t(
        lang,
        f"несколько показателей по «{cat.label(lang)}», по убыванию первого",
        f"several metrics by “{cat.label(lang)}”, largest first",
    )
    if "y2" in axes.values():
        reason += _t(lang, "; другой масштаб на второй оси", "; another scale on the second axis")
    return ChartDecision(
        kind="grouped_bar" if len(plotted) > 1 else "bar",
        x=cat.name,
        x_columns=[cat.name],
        y_columns=plotted,
        axes=axes,
        reason=reason,
        cut=_join(_bar_note(n, keep, lang), _dropped_note(metas, dropped, lang), dup),
        order="desc",
        max_points=keep,
        dropped=dropped,
    )


def _two_dim_chart(
    result: QueryResult,
    metas: list[ColumnMeta],
    cats: list[ColumnMeta],
    metrics: list[ColumnMeta],
    lang: Lang | str,
) -> ChartDecision:
    a, b = cats
    x, s = (a, b) if _distinct(result, [a.name]) >= _distinct(result, [b.name]) else (b, a)
    metric = metrics[0]
    summable = is_summable(metric)
    negative = any((d := to_decimal(v)) is not None and d < 0 for v in result.column(metric.name))
    stacked = summable and not negative
    n_x = _distinct(result, [x.name])
    n_series = _distinct(result, [s.name])
    dropped = [m.name for m in metrics[1:]]
    dropped_note = _first_only_note(metric, dropped, lang, "два разреза", "two dimensions")
    return ChartDecision(
        kind="stacked_bar" if stacked else "grouped_bar",
        x=x.name,
        x_columns=[x.name],
        series=s.name,
        series_columns=[s.name],
        y_columns=[metric.name],
        axes={metric.name: "y"},
        reason=_t(
            lang,
            f"«{metric.label(lang)}» по «{x.label(lang)}» и «{s.label(lang)}»"
            + (" (части целого: накопление)" if stacked else ""),
            f"“{metric.label(lang)}” by “{x.label(lang)}” and “{s.label(lang)}”"
            + (" (parts of a whole: stacked)" if stacked else ""),
        ),
        cut=_join(
            _bar_note(n_x, limits.BAR_MAX_POINTS, lang),
            _series_note(n_series, summable, lang),
            dropped_note,
            _dup_note(result, [x.name, s.name], summable, lang),
        ),
        order="desc",
        max_points=limits.BAR_MAX_POINTS,
        fold_other=summable,
        dropped=dropped,
    )
