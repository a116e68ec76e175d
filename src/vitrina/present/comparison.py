"""One query's results for two periods side by side, and the sentence that states the change.

The report planner (route) and the task's summary compare the asked period with the one a
comparison phrase names ("к прошлому году"): rows are matched on their dimension values
(period values through `align`, e.g. May 2025 to May 2026), and every metric gets its
previous value, the change and the change in percent. Numbers are only values and sums of
the two results, formatted by :mod:`vitrina.present.numbers`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from vitrina.present.columns import ColumnMeta, ColumnRole, ValueFormat
from vitrina.present.numbers import format_percent, format_value, metas_for, to_decimal
from vitrina.present.summary import is_summable
from vitrina.warehouse.result import QueryResult

PREV, CHANGE, PCT = "_prev", "_change", "_change_pct"
MOVERS = 3  # dimension values named for the largest rise and fall


@dataclass(frozen=True)
class Labels:
    """The two periods' labels in both languages (column headers and sentences)."""

    current_ru: str
    current_en: str
    previous_ru: str
    previous_en: str

    def current(self, lang: str) -> str:
        return self.current_ru if lang == "ru" else self.current_en

    def previous(self, lang: str) -> str:
        return self.previous_ru if lang == "ru" else self.previous_en


def _pct(cur: Decimal | None, prev: Decimal | None) -> Decimal | None:
    if cur is None or prev is None or prev == 0:
        return None
    return ((cur - prev) / abs(prev) * 100).quantize(Decimal("0.01"))


def compare_results(
    current: QueryResult,
    previous: QueryResult,
    metas: Sequence[ColumnMeta],
    labels: Labels,
    *,
    align: Callable[[Any], Any] | None = None,
) -> tuple[QueryResult, list[ColumnMeta]]:
    """Rows keyed on the non-metric columns: each metric, its previous value, change, change %.

    `align` maps a previous row's period value to the current one it is compared with.
    Rows only the previous period has come last, with no current value.
    """
    metas = metas_for(current, metas)
    metric_idx = [i for i, m in enumerate(metas) if m.role is ColumnRole.METRIC]
    key_idx = [i for i in range(len(metas)) if i not in metric_idx]

    def key(row: Sequence[Any], shift: bool) -> tuple[Any, ...]:
        return tuple(
            align(row[i]) if shift and align and metas[i].role is ColumnRole.PERIOD else row[i]
            for i in key_idx
        )

    prev_cols = {name: n for n, name in enumerate(previous.columns)}
    before = {key(r, True): r for r in previous.rows}
    rows, seen = [], set()
    ordered = [(r, before.get(key(r, False))) for r in current.rows]
    asked = {key(c, False) for c in current.rows}
    ordered += [(None, r) for k, r in before.items() if k not in asked]
    for cur, prev in ordered:
        source = cur if cur is not None else prev
        assert source is not None
        k = key(source, cur is None)
        if k in seen:
            continue
        seen.add(k)
        out = list(k)
        for i in metric_idx:
            name = metas[i].name
            a = to_decimal(cur[i]) if cur is not None else None
            b = (
                to_decimal(prev[prev_cols[name]])
                if prev is not None and name in prev_cols
                else None
            )
            out += [a, b, None if a is None or b is None else a - b, _pct(a, b)]
        rows.append(tuple(out))
    out_metas = comparison_metas(
        [metas[i] for i in key_idx], [metas[i] for i in metric_idx], labels
    )
    return QueryResult(columns=[m.name for m in out_metas], rows=rows), out_metas


def comparison_metas(
    keys: Sequence[ColumnMeta], metrics: Sequence[ColumnMeta], labels: Labels
) -> list[ColumnMeta]:
    """The columns of a comparison table: the keys, then per metric its value for the asked
    period, the previous one, the change and the change in percent (NAME, NAME_prev, ...)."""
    out = list(keys)
    for m in metrics:
        out += [
            m.model_copy(
                update={
                    "label_ru": f"{m.label_ru}, {labels.current_ru}",
                    "label_en": f"{m.label_en}, {labels.current_en}",
                }
            ),
            m.model_copy(
                update={
                    "name": m.name + PREV,
                    "label_ru": f"{m.label_ru}, {labels.previous_ru}",
                    "label_en": f"{m.label_en}, {labels.previous_en}",
                }
            ),
            m.model_copy(
                update={
                    "name": m.name + CHANGE,
                    "label_ru": f"Изменение: {m.label_ru}",
                    "label_en": f"Change: {m.label_en}",
                    "non_negative": False,
                }
            ),
            ColumnMeta(
                name=m.name + PCT,
                role=ColumnRole.METRIC,
                label_ru=f"Изменение, %: {m.label_ru}",
                label_en=f"Change, %: {m.label_en}",
                fmt=ValueFormat.PERCENT,
                additive=False,
            ),
        ]
    return out


def _signed(text: str) -> str:
    return text if text.startswith(("-", "−", "—")) else f"+{text}"


def comparison_text(
    lang: str, result: QueryResult, metas: Sequence[ColumnMeta], labels: Labels
) -> tuple[str, list[str]]:
    """(the sentences, the figures code computed for them) for a `compare_results` table.

    The figures (totals and their change) are returned so a number check can trust them.
    """
    metas = metas_for(result, metas)
    idx = {m.name: i for i, m in enumerate(metas)}
    keys = [i for i, m in enumerate(metas) if m.role is not ColumnRole.METRIC]
    bases = [m for m in metas if m.role is ColumnRole.METRIC and m.name + PREV in idx]
    sentences: list[str] = []
    figures: list[str] = []
    cur_label, prev_label = labels.current(lang), labels.previous(lang)
    for m in bases:
        cur = [to_decimal(r[idx[m.name]]) for r in result.rows]
        prev = [to_decimal(r[idx[m.name + PREV]]) for r in result.rows]
        name = m.label(lang).split(", ")[0]
        if all(v is None for v in prev):
            sentences.append(
                f"За {prev_label} данных нет: сравнивать не с чем"
                if lang == "ru"
                else f"There is no data for {prev_label}: nothing to compare with"
            )
            continue
        if is_summable(m) or len(result.rows) == 1:
            a, b = (
                sum((v for v in cur if v is not None), Decimal(0)),
                sum((v for v in prev if v is not None), Decimal(0)),
            )
            pct = _pct(a, b)
            change = format_value(a - b, m, lang)
            parts = [
                f"{name}: {cur_label} — {format_value(a, m, lang)}",
                f"{prev_label} — {format_value(b, m, lang)}",
            ]
            tail = f"{_signed(change)}" + (
                f" ({_signed(format_percent(pct, lang))})" if pct is not None else ""
            )
            word = "изменение" if lang == "ru" else "change"
            sentence = f"{parts[0]}, {parts[1]}; {word} {tail}"
            sentences.append(sentence)
            figures.append(sentence)
        if keys and len(result.rows) > 1:
            sentences += _movers(lang, result, metas, keys, idx[m.name + PCT], idx[m.name + CHANGE])
    return " ".join(s if s.endswith(".") else s + "." for s in sentences), figures


def _movers(
    lang: str,
    result: QueryResult,
    metas: list[ColumnMeta],
    keys: list[int],
    pct_i: int,
    change_i: int,
) -> list[str]:
    rows = [r for r in result.rows if r[change_i] is not None]
    down = sorted(
        (r for r in rows if r[change_i] < 0), key=lambda r: (r[pct_i] is None, r[pct_i] or 0)
    )
    up = sorted(
        (r for r in rows if r[change_i] > 0), key=lambda r: (r[pct_i] is None, -(r[pct_i] or 0))
    )

    def label(row: Sequence[Any]) -> str:
        return " · ".join(format_value(row[i], metas[i], lang) for i in keys)

    def named(group: list[Any]) -> str:
        return ", ".join(
            f"{label(r)} ({_signed(format_value(r[pct_i], metas[pct_i], lang))})"
            if r[pct_i] is not None
            else label(r)
            for r in group[:MOVERS]
        )

    out = []
    if lang == "ru":
        out.append(
            f"Снижение в {len(down)} из {len(rows)}: сильнее всего — {named(down)}"
            if down
            else "Снижения нет"
        )
        if up:
            out.append(f"Рост в {len(up)} из {len(rows)}: сильнее всего — {named(up)}")
    else:
        out.append(
            f"Down in {len(down)} of {len(rows)}: most of all {named(down)}"
            if down
            else "Nothing fell"
        )
        if up:
            out.append(f"Up in {len(up)} of {len(rows)}: most of all {named(up)}")
    return out
