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

from vitrina.present.infer_meta import infer_metas
from vitrina.present.numbers import metas_for
from vitrina.present.table import render_table
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


def preview_table(output: dict[str, Any], catalog: Any, lang: str) -> dict[str, Any] | None:
    """One tool output's preview as the page shows it: labels, formatted cells, which
    columns are numbers (right-aligned), and how many rows the whole table has."""
    columns = [str(c) for c in output.get("columns") or []]
    if not columns:
        return None
    rows = [tuple(_cell(v) for v in row) for row in output.get("preview") or []]
    result = QueryResult(columns=columns, rows=rows)
    meta = output.get("meta") or {}
    metas = (
        infer_metas(result, catalog, _tables(catalog, columns, meta.get("sql")), None)
        if catalog is not None
        else metas_for(result, [])
    )
    view = render_table(result, metas, lang, limit=None)
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
