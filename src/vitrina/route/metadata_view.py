"""What the metadata search found, as a person reads it: each table with what it holds, its
fields and what they mean, the measures on it, and a question to ask about it.

The ranking's scores and reasons ("topic keyword 'платеж'") are how the search decided, not
what the user asked: they stay in the search steps, which the faces show under technical
details only (`vitrina.route.nodes.deliver`).
"""

from __future__ import annotations

from typing import Any

from vitrina.catalog import Catalog
from vitrina.catalog.model import ColumnRole, Table
from vitrina.language.periods.calendar import labels
from vitrina.route.messages import text

MAX_TABLES = 4
MAX_COLUMNS = 8
SHOWN_ROLES = (ColumnRole.DIMENSION, ColumnRole.MEASURE, ColumnRole.DATE)


def _column(col: Any, lang: str) -> str:
    label = col.label(lang)
    named = label if label == col.name else f"{label} ({col.name})"
    return f"{named} — {col.description}" if col.description else named


def _metrics(catalog: Catalog, table: str, lang: str) -> list[Any]:
    return [m for m in catalog.metrics.values() if m.table == table]


def _example(catalog: Catalog, table: Table, lang: str, year: int) -> str | None:
    """A question about the table: one of the catalog's examples that reads it, else its first
    measure by its first breakdown over last year, in the catalog's own words."""
    for example in catalog.examples:
        if table.name in example.sql and (lang == "ru") == _is_ru(example.question):
            return example.question
    metrics = _metrics(catalog, table.name, lang)
    if not metrics:
        return None
    metric = metrics[0]
    name = metric.name_ru if lang == "ru" else metric.name_en
    dims = [c for c in table.columns if c.role is ColumnRole.DIMENSION]
    period_ru, period_en = labels_of_year(year)
    if lang == "ru":
        by = f" по полю «{dims[0].label('ru')}»" if dims else ""
        return f"{name}{by} за {period_ru}"
    by = f" by {dims[0].label('en').lower()}" if dims else ""
    return f"{name}{by} in {period_en}"


def labels_of_year(year: int) -> tuple[str, str]:
    from datetime import date

    return labels(date(year, 1, 1), date(year, 12, 31))


def _is_ru(question: str) -> bool:
    return any("а" <= ch.lower() <= "я" or ch.lower() == "ё" for ch in question)


def table_lines(catalog: Catalog, name: str, lang: str, year: int) -> list[str]:
    """One table: its name and meaning, its fields, its measures, a question to ask."""
    table = catalog.tables.get(name)
    if table is None:
        return []
    about = (table.description_ru if lang == "ru" else "") or table.description
    out = [f"- **{table.name}**" + (f" — {about}" if about else "")]
    cols = [c for c in table.columns if c.role in SHOWN_ROLES][:MAX_COLUMNS]
    if cols:
        out.append(
            f"  - {text('meta_columns', lang)}: " + "; ".join(_column(c, lang) for c in cols)
        )
    metrics = _metrics(catalog, name, lang)
    if metrics:
        names = [m.name_ru if lang == "ru" else m.name_en for m in metrics]
        out.append(f"  - {text('meta_measures', lang)}: " + ", ".join(names))
    example = _example(catalog, table, lang, year)
    if example:
        out.append(
            f"  {text('meta_ask', lang)}: " + (f"«{example}»" if lang == "ru" else f'"{example}"')
        )
    return out


def readable_summary(
    facts: dict[str, Any], catalog: Catalog, lang: str, steps: int, stop: str | None, year: int
) -> str:
    """The answer of the metadata search: tables first (what they hold, fields, measures, how
    to ask), then the dictionary values and the measures of BI models the search found."""
    hits = facts.get("hits", [])
    tables = [h["name"] for h in hits if h["kind"] == "table"][:MAX_TABLES]
    lines: list[str] = []
    if tables or facts.get("measures"):
        lines.append(text("found", lang))
        for name in tables:
            lines += table_lines(catalog, name, lang, year)
        for v in facts.get("values", [])[:5]:
            lines.append(f"- {text('meta_value', lang, column=v['column'], value=v['value'])}")
        for m in facts.get("measures", [])[:5]:
            lines.append(f"- [{m['measure']}]" + (f" ({m['table']})" if m.get("table") else ""))
    else:
        lines.append(text("not_found", lang, steps=steps))
    if stop == "guard":
        lines.append(text("guard", lang, steps=steps))
    return "\n".join(lines)
