"""The text a SQL generator sees: only the chosen tables, their joins, metrics and rules.

A small local model gets lost in a whole warehouse, so the context is built from the
tables retrieval and selection chose: their columns with types and roles, the relations
between them, the metrics defined on them, the allowed values of their categorical
columns, the instructions tagged for them, and the most similar examples. The benchmark
(`benchmarks/bench_retrieval.py`) keeps its size under a token budget.
"""

from __future__ import annotations

from collections.abc import Sequence

from vitrina.catalog.catalog import Catalog
from vitrina.catalog.model import ColumnRole, Table
from vitrina.catalog.retrieval import RankedTable, rank_examples

MAX_VALUES = 12  # dictionary values listed per column; longer lists are cut with "..."


PRUNED_ROLES = (ColumnRole.KEY, ColumnRole.DATE, ColumnRole.MEASURE, ColumnRole.DIMENSION)


def _column_line(table: Table, catalog: Catalog, words: set[str] | None = None) -> list[str]:
    """Column lines; with `words`, pruned to keys, dates, measures, dimensions and the
    columns those words touch (a retry after an error gets every column)."""
    lines = []
    for col in table.columns:
        if (
            words is not None
            and col.role not in PRUNED_ROLES
            and not any(
                w in f"{col.name} {' '.join(col.synonyms)} {col.description}".lower() for w in words
            )
        ):
            continue
        notes = [col.role.value] if col.role is not ColumnRole.ATTRIBUTE else []
        if col.label_en or col.label_ru:
            notes.append(col.label_en or col.label_ru or "")
        if col.description:
            notes.append(col.description)
        dic = catalog.dictionary_for(table.name, col.name)
        if dic is not None:
            values = [v.value for v in dic.values[:MAX_VALUES]]
            notes.append(
                "values: " + ", ".join(values) + (", ..." if len(dic.values) > MAX_VALUES else "")
            )
        lines.append(f"  - {col.name} {col.type}" + (f" ({'; '.join(notes)})" if notes else ""))
    return lines


def schema_text(catalog: Catalog, names: Sequence[str], *, words: set[str] | None = None) -> str:
    """Tables with descriptions and columns (pruned when `words` is given), then the joins."""
    out = []
    for name in names:
        table = catalog.tables[name]
        description = table.description or table.description_ru
        out.append(f"{table.name}: {description}" if description else table.name)
        out += _column_line(table, catalog, words)
    chosen = set(names)
    joins = [
        f"- {r.left} = {r.right}"
        for r in catalog.relations
        if r.left_table in chosen and r.right_table in chosen
    ]
    if joins:
        out += ["Joins (many-to-one):", *joins]
    return "\n".join(out)


def build_sql_context(
    question: str,
    catalog: Catalog,
    tables: Sequence[str | RankedTable],
    *,
    period_label: str | None,
    topic: str | None,
    full: bool = True,
    instructions: bool = True,
    examples: bool = True,
) -> str:
    """The SQL-generation context for one question over the given (already chosen) tables.

    `tables` are names or `RankedTable`s; unknown names are skipped. `topic` is a topic id.
    `full=False` prunes columns to keys, dates, measures, dimensions and the columns the
    question's words touch; `instructions` / `examples` can be switched off per run.
    """
    names = list(dict.fromkeys(t.name if isinstance(t, RankedTable) else t.lower() for t in tables))
    names = [n for n in names if n in catalog.tables]
    topic_obj = catalog.topics.get(topic or "")
    metrics = [m for m in catalog.metrics.values() if m.table in names]
    parts = [f"Question: {question}"]
    if topic_obj is not None:
        parts.append(f"Topic: {topic_obj.name_en} ({topic_obj.id})")
        parts += [f"Check: {c}" for c in topic_obj.checklist]
    parts.append(f"Period: {period_label}" if period_label else "Period: none given")
    words = None if full else {w for w in question.lower().split() if len(w) > 3}
    parts += ["", "Tables:", schema_text(catalog, names, words=words)]
    if metrics:
        parts += ["", "Metrics:"]
        parts += [
            f"- {m.id} ({m.name_en}) = {m.expression} FROM {m.table}"
            + (f" WHERE {m.filter}" if m.filter else "")
            for m in metrics
        ]
    tags = {t for t in (topic, *names, *(m.id for m in metrics)) if t}
    rules = catalog.instructions_for(tags) if instructions else []
    if rules:
        parts += ["", "Rules:", *(f"- {i.text}" for i in rules)]
    similar = rank_examples(question, catalog, k=3) if examples else []
    if similar:
        parts += ["", "Examples:"]
        for ex in similar:
            parts += [f"Q: {ex.question}", "SQL:", ex.sql.strip()]
    return "\n".join(parts)
