"""The plain-text answer, written by rules from formatted result values and summary figures.

No number is ever typed here: every figure is a value of the result or of the summary,
formatted by :mod:`vitrina.present.numbers`, so :func:`vitrina.present.numbers.allowed_numbers`
accepts every number of the text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from babel import Locale

from vitrina.present.columns import ColumnMeta
from vitrina.present.numbers import (
    DASH,
    format_count,
    format_percent,
    format_value,
    metas_for,
    to_decimal,
)
from vitrina.present.summary import MetricSummary, ResultSummary, row_label
from vitrina.warehouse.result import QueryResult

AnswerLang = Literal["ru", "en"]
_RU = Locale.parse("ru")


def plural_ru(n: int | Decimal, one: str, few: str, many: str) -> str:
    """Russian plural form for n by CLDR's rule (Babel): 1 строка, 2 строки, 5 строк, 1,5 строки.

    >>> [plural_ru(n, "строка", "строки", "строк") for n in (1, 3, 11, 22, 25, Decimal("1.5"))]
    ['строка', 'строки', 'строк', 'строки', 'строк', 'строки']
    """
    form = _RU.plural_form(abs(n))
    return {"one": one, "few": few, "many": many}.get(form, few)  # "other": fractions


def _rows_phrase(n: int, lang: str) -> str:
    if lang == "ru":
        return f"{format_count(n, lang)} {plural_ru(n, 'строка', 'строки', 'строк')}"
    return f"{format_count(n, lang)} {'row' if n == 1 else 'rows'}"


def _sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?…" else text + "."


def _signed_percent(value: Decimal, lang: str) -> str:
    text = format_percent(value, lang)
    return text if text.startswith("-") or text.startswith(DASH) else "+" + text


def write_answer(
    question_lang: AnswerLang | str,
    result: QueryResult,
    metas: Iterable[ColumnMeta],
    summary: ResultSummary,
    *,
    period_label: str | None = None,
    topic_label: str | None = None,
    notes: Sequence[str] = (),
) -> str:
    """A short answer in the question's language, built only from formatted values."""
    lang = "ru" if question_lang == "ru" else "en"
    metas = metas_for(result, metas)
    by_name = {m.name: m for m in metas}
    writer: Callable[[_Ctx], list[str]] = {
        "empty": _empty,
        "single": _single,
        "breakdown": _breakdown,
        "series": _series,
        "series_breakdown": _series_breakdown,
        "table": _table,
    }[summary.shape]
    sentences = writer(_Ctx(result, metas, by_name, summary, lang, period_label, topic_label))
    if period_label and summary.shape not in ("empty", "single"):
        sentences.append(f"Период: {period_label}" if lang == "ru" else f"Period: {period_label}")
    if summary.truncated:
        n = _rows_phrase(summary.row_count, lang)
        sentences.append(
            f"Результат обрезан лимитом строк: итоги посчитаны по первым {n}"
            if lang == "ru"
            else f"The result was cut by the row cap: figures cover the first {n}"
        )
    sentences.extend(notes)
    return " ".join(s for s in (_sentence(x) for x in sentences) if s)


# --- one writer per result shape ----------------------------------------------------------


@dataclass(frozen=True)
class _Ctx:
    result: QueryResult
    metas: list[ColumnMeta]
    by_name: dict[str, ColumnMeta]
    summary: ResultSummary
    lang: str
    period_label: str | None
    topic_label: str | None


def _quote(text: str, lang: str) -> str:
    return f"«{text}»" if lang == "ru" else f"“{text}”"


def _label(meta: ColumnMeta, lang: str) -> str:
    return meta.label(lang)


def _empty(c: _Ctx) -> list[str]:
    lang = c.lang
    where = []
    if c.topic_label:
        where.append(f"по теме «{c.topic_label}»" if lang == "ru" else f"for “{c.topic_label}”")
    if c.period_label:
        where.append(
            f"за период {c.period_label}" if lang == "ru" else f"for the period {c.period_label}"
        )
    tail = (" " + " ".join(where)) if where else ""
    return ["Данных не найдено" + tail if lang == "ru" else "No data found" + tail]


def _single(c: _Ctx) -> list[str]:
    result, metas, by_name, summary, lang = c.result, c.metas, c.by_name, c.summary, c.lang
    row = result.rows[0]
    parts = [
        f"{_label(by_name[c], lang)} — "
        f"{format_value(row[result.columns.index(c)], by_name[c], lang)}"
        for c in summary.metric_columns
    ]
    label_cols = [n for n in summary.label_columns if n not in summary.metric_columns]
    where = row_label(result, metas, 0, lang, label_cols) if label_cols else None
    has_period = bool(summary.period_columns)
    context = [x for x in (where, None if has_period else c.period_label) if x and x != DASH]
    text = "; ".join(parts)
    if context:
        text += f" ({', '.join(dict.fromkeys(context))})"
    return [text]


def _extremes(
    result: QueryResult,
    metas: list[ColumnMeta],
    meta: ColumnMeta,
    ms: MetricSummary,
    lang: str,
    label_cols: list[str],
) -> str | None:
    if ms.max is None or ms.max_row is None or ms.min is None or ms.min_row is None:
        return None
    top = row_label(result, metas, ms.max_row, lang, label_cols)
    bottom = row_label(result, metas, ms.min_row, lang, label_cols)
    hi, lo = format_value(ms.max, meta, lang), format_value(ms.min, meta, lang)
    if ms.max_row == ms.min_row:
        return f"{top} — {hi}"
    if lang == "ru":
        return f"больше всего — {top} ({hi}), меньше всего — {bottom} ({lo})"
    return f"highest: {top} ({hi}); lowest: {bottom} ({lo})"


def _leaders(
    result: QueryResult,
    metas: list[ColumnMeta],
    meta: ColumnMeta,
    ms: MetricSummary,
    lang: str,
    label_cols: list[str],
) -> str | None:
    """The three largest rows, when there are more than three (the summary found them: no
    pass over every row here, which at a million rows formatted every value)."""
    if ms.count <= 3:
        return None
    col = result.columns.index(meta.name)
    items = [
        f"{row_label(result, metas, r, lang, label_cols)} "
        f"({format_value(to_decimal(result.rows[r][col]), meta, lang)})"
        for r in ms.top_rows[:3]
    ]
    return ("лидеры: " if lang == "ru" else "top: ") + ", ".join(items)


def _breakdown(c: _Ctx) -> list[str]:
    result, metas, by_name, summary, lang = c.result, c.metas, c.by_name, c.summary, c.lang
    dims = summary.dimension_columns
    meta = by_name[summary.metric_columns[0]]
    ms = summary.metrics[meta.name]
    dim_labels = ", ".join(_quote(_label(by_name[d], lang), lang) for d in dims)
    rows = _rows_phrase(summary.row_count, lang)
    if lang == "ru":
        out = [f"{_label(meta, lang)} в разрезе {dim_labels}: {rows}"]
        if ms.total is not None:
            out.append(f"Всего — {format_value(ms.total, meta, lang)}")
    else:
        out = [f"{_label(meta, lang)} by {dim_labels}: {rows}"]
        if ms.total is not None:
            out.append(f"Total: {format_value(ms.total, meta, lang)}")
    extremes = _extremes(result, metas, meta, ms, lang, dims)
    if extremes:
        out.append(extremes)
    leaders = _leaders(result, metas, meta, ms, lang, dims)
    if leaders:
        out.append(leaders)
    for name in summary.metric_columns[1:3]:
        other, oms = by_name[name], summary.metrics[name]
        if oms.total is not None:
            word = "всего" if lang == "ru" else "total"
            out.append(f"{_label(other, lang)}: {word} {format_value(oms.total, other, lang)}")
    return out


def _series(c: _Ctx) -> list[str]:
    result, metas, by_name, summary, lang = c.result, c.metas, c.by_name, c.summary, c.lang
    periods = summary.period_columns
    out: list[str] = []
    for name in summary.metric_columns[:2]:
        meta, ms = by_name[name], summary.metrics[name]
        label = _label(meta, lang)
        if (
            ms.first is not None
            and ms.first_row is not None
            and ms.last is not None
            and ms.last_row is not None
        ):
            p0 = row_label(result, metas, ms.first_row, lang, periods)
            p1 = row_label(result, metas, ms.last_row, lang, periods)
            text = (
                f"{label}: {p0} — {format_value(ms.first, meta, lang)}, "
                f"{p1} — {format_value(ms.last, meta, lang)}"
            )
            if ms.change_pct is not None:
                word = "изменение" if lang == "ru" else "change"
                text += f" ({word} {_signed_percent(ms.change_pct, lang)})"
            out.append(text)
        else:
            out.append(f"{label}")
        if ms.max is not None and ms.max_row is not None and ms.min_row is not None:
            top = row_label(result, metas, ms.max_row, lang, periods)
            bottom = row_label(result, metas, ms.min_row, lang, periods)
            hi, lo = format_value(ms.max, meta, lang), format_value(ms.min, meta, lang)
            if lang == "ru":
                out.append(f"Максимум — {hi} ({top}), минимум — {lo} ({bottom})")
            else:
                out.append(f"Maximum: {hi} ({top}); minimum: {lo} ({bottom})")
    n = (
        summary.distinct.get(periods[0], summary.row_count)
        if len(periods) == 1
        else summary.row_count
    )
    if lang == "ru":
        out.append(f"Периодов в результате: {format_count(n, lang)}")
    else:
        out.append(f"Periods in the result: {format_count(n, lang)}")
    return out


def _series_breakdown(c: _Ctx) -> list[str]:
    result, metas, by_name, summary, lang = c.result, c.metas, c.by_name, c.summary, c.lang
    meta = by_name[summary.metric_columns[0]]
    ms = summary.metrics[meta.name]
    dims = summary.dimension_columns
    dim_labels = ", ".join(_quote(_label(by_name[d], lang), lang) for d in dims)
    n_dim = summary.distinct.get(dims[0], 0)
    n_per = summary.distinct.get(summary.period_columns[0], 0)
    if lang == "ru":
        out = [
            f"{_label(meta, lang)} по периодам и {dim_labels}: "
            f"периодов — {format_count(n_per, lang)}, "
            f"значений разреза — {format_count(n_dim, lang)}"
        ]
    else:
        out = [
            f"{_label(meta, lang)} by period and {dim_labels}: "
            f"{format_count(n_per, lang)} periods, "
            f"{format_count(n_dim, lang)} values of the dimension"
        ]
    label_cols = summary.period_columns + dims
    extremes = _extremes(result, metas, meta, ms, lang, label_cols)
    if extremes:
        out.append(extremes)
    return out


def _table(c: _Ctx) -> list[str]:
    result, metas, summary, lang = c.result, c.metas, c.summary, c.lang
    rows = _rows_phrase(summary.row_count, lang)
    about = ""
    if c.topic_label:
        about = f" по теме «{c.topic_label}»" if lang == "ru" else f" for “{c.topic_label}”"
    out = [f"Найдено {rows}{about}" if lang == "ru" else f"Found {rows}{about}"]
    if summary.row_count == 1:
        row = result.rows[0]
        parts = [
            f"{_label(m, lang)}: {format_value(v, m, lang)}"
            for m, v in zip(metas, row, strict=False)
        ][:8]
        out.append("; ".join(parts))
    return out
