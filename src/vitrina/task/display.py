"""The task as a person reads it on the page: every step's question in words and its table
preview formatted like an answer (column labels from the catalog, numbers, dates and coded
values as answers write them), never raw column names and ISO dates.

The task's state keeps plain values (`tables.preview`); formatting happens here, when the
page asks, in the task's language, so a language switch or a catalog edit shows at once.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from vitrina.present.columns import ColumnMeta
from vitrina.present.infer_meta import infer_metas
from vitrina.present.numbers import metas_for
from vitrina.present.table import render_table
from vitrina.query.compiler import GRAIN_LABELS
from vitrina.warehouse.result import QueryResult

ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _cell(value: Any) -> Any:
    """A preview cell back to its type where the state stored it as text (dates)."""
    if isinstance(value, str) and ISO_DATE.match(value):
        try:
            return date.fromisoformat(value)
        except ValueError:
            return value
    return value


def _tables(catalog: Any, columns: list[str], sql: str | None) -> list[str]:
    """The catalog tables a result came from: those its SQL names, else those holding one of
    its columns (a label or dictionary is looked up there)."""
    low = (sql or "").lower()
    named = [t for t in catalog.tables if t.lower() in low] if low else []
    if named:
        return named
    return [n for n, t in catalog.tables.items() if any(t.column(c) for c in columns)]


# columns the analysis tools add (task/sandbox/analyses.py): NAME_SUFFIX -> words around NAME
DERIVED = (
    ("_change_pct", "Изменение, %: {}", "Change, %: {}"),
    ("_change", "Изменение: {}", "Change: {}"),
    ("_prev", "{}, прошлый период", "{}, previous period"),
    ("_forecast", "Прогноз: {}", "Forecast: {}"),
)
PLAIN = {
    "change": ("Изменение", "Change"),
    "change_pct": ("Изменение, %", "Change, %"),
    "share_pct": ("Доля, %", "Share, %"),
    "deviation": ("Отклонение", "Deviation"),
    "z_score": ("z-оценка", "z-score"),
    "forecast": ("Прогноз", "Forecast"),
}


def _word(catalog: Any, name: str, lang: str) -> str | None:
    """A column or metric name as the catalog names it, or None."""
    if catalog is None:
        return None
    metric = catalog.metrics.get(name.lower())
    if metric is not None:
        return str(metric.name_ru if lang == "ru" else metric.name_en)
    for table in catalog.tables.values():
        column = table.column(name)
        if column is not None:
            return str(column.label(lang))
    return None


def column_label(catalog: Any, name: str, lang: str) -> str | None:
    """A label for a column the catalog does not name itself: a period bucket (month), an
    analysis column (change_pct) or a derived one (amount_change: "Изменение: Сумма")."""
    ru = lang == "ru"
    if name in GRAIN_LABELS:
        return GRAIN_LABELS[name][0 if ru else 1]
    if name in PLAIN:
        return PLAIN[name][0 if ru else 1]
    for suffix, word_ru, word_en in DERIVED:
        if name.endswith(suffix) and len(name) > len(suffix):
            base = name[: -len(suffix)]
            return (word_ru if ru else word_en).format(_word(catalog, base, lang) or base)
    return None


def _named(metas: list[ColumnMeta], catalog: Any, lang: str) -> list[ColumnMeta]:
    """Metas whose label is still the raw column name, named by `column_label` where it can."""
    out = []
    for meta in metas:
        label = column_label(catalog, meta.name, lang) if meta.label(lang) == meta.name else None
        out.append(meta.model_copy(update={f"label_{lang}": label}) if label else meta)
    return out


def preview_table(output: dict[str, Any], catalog: Any, lang: str) -> dict[str, Any] | None:
    """One tool output's preview as the page shows it: labels, formatted cells, which
    columns are numbers (right-aligned), and how many rows the whole table has."""
    columns = [str(c) for c in output.get("columns") or []]
    if not columns:
        return None
    rows = [tuple(_cell(v) for v in row) for row in output.get("preview") or []]
    result = QueryResult(columns=columns, rows=rows)
    meta = output.get("meta") or {}
    # a bucket column named by its grain ("month") is that grain, even when its few preview
    # rows all fall on January 1st
    grain = next((c for c in columns if c in GRAIN_LABELS), None)
    metas = (
        infer_metas(result, catalog, _tables(catalog, columns, meta.get("sql")), grain)
        if catalog is not None
        else metas_for(result, [])
    )
    view = render_table(result, _named(list(metas), catalog, lang), lang, limit=None)
    return {
        "columns": view.columns,
        "rows": view.rows,
        "numeric": view.numeric,
        "total": int(output.get("row_count") or len(rows)),
    }


def step_question(step: dict[str, Any]) -> str | None:
    """The question a step asks, in words: its own argument, else the one its last run asked
    (a derived question: the same for the year before, a monthly series)."""
    asked = (step.get("args") or {}).get("question")
    if asked:
        return str(asked)
    for output in reversed(step.get("outputs") or []):
        found = (output.get("meta") or {}).get("question")
        if found:
            return str(found)
    return None


def readable_step(step: dict[str, Any], catalog: Any, lang: str) -> dict[str, Any]:
    """The step with `question` and each output's `table` added (the dump is not changed)."""
    outputs = [{**o, "table": preview_table(o, catalog, lang)} for o in step.get("outputs") or []]
    return {**step, "question": step_question(step), "outputs": outputs}


def readable(data: dict[str, Any], catalog: Any) -> dict[str, Any]:
    """The task view with every step (the plan's and the pending one) made readable."""
    lang = data.get("lang") or "ru"
    data["plan"] = [readable_step(s, catalog, lang) for s in data.get("plan") or []]
    pending = data.get("pending")
    if isinstance(pending, dict) and isinstance(pending.get("step"), dict):
        data["pending"] = {**pending, "step": readable_step(pending["step"], catalog, lang)}
    return data
