"""The text a SQL generator sees: only the chosen tables, their joins, metrics and rules.

A small local model gets lost in a whole warehouse, so the context is built from the
tables retrieval and selection chose: their columns with types and roles (pruned to keys,
dates, measures, dimensions and the columns of any role the question's words point to, an
age to a birth year, a time of day to a timestamp), the relations
between them, the metrics defined on them, the allowed values of their categorical
columns, the instructions tagged for them, and the most similar examples. The benchmark
(`benchmarks/bench_retrieval.py`) keeps its size under a token budget.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from vitrina.catalog.catalog import Catalog
from vitrina.catalog.model import Column, ColumnRole, Table
from vitrina.catalog.retrieval import RankedTable, rank_examples

MAX_VALUES = 12  # dictionary values listed per column; longer lists are cut with "..."


PRUNED_ROLES = (ColumnRole.KEY, ColumnRole.DATE, ColumnRole.MEASURE, ColumnRole.DIMENSION)
STEM = 5  # a question word and a column word sharing this many first letters are one word
_WORD = re.compile(r"\w+")
# words that point to a column no synonym names: (question stems, column-text stems)
POINTERS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (  # an age: a year or date of birth
        ("старш", "моложе", "младше", "возраст", "лет", "пенсион", "age", "older", "younger"),
        ("birth", "рожд", "возраст", "age"),
    ),
    (  # a time of day: a timestamp
        ("час", "врем", "утр", "вечер", "ноч", "днём", "hour", "time", "morning", "evening"),
        ("_ts", "time", "врем", "hour", "timestamp"),
    ),
)


def question_words(question: str) -> set[str]:
    """The words of a question that may point to a column: content-length words, lower."""
    return {w for w in _WORD.findall(question.lower()) if len(w) > 3 or w in ("лет", "age")}


def _label_words(col: Column) -> list[str]:
    """The words of the column's name (split at "_") and labels."""
    text = f"{col.name.replace('_', ' ')} {col.label_ru or ''} {col.label_en or ''}"
    return _WORD.findall(text.lower())


def shared_label_stems(table: Table) -> set[str]:
    """Name and label words several columns share (payment_id, payment_ts; "ID платежа",
    "Дата платежа"): the table's noun, which points to no column in particular."""
    seen: dict[str, int] = {}
    for col in table.columns:
        for stem in {w[:STEM] for w in _label_words(col)}:
            seen[stem] = seen.get(stem, 0) + 1
    return {stem for stem, n in seen.items() if n > 1}


def _column_text(col: Column, shared: set[str]) -> str:
    labels = " ".join(w for w in _label_words(col) if w[:STEM] not in shared)
    return f"{labels} {' '.join(col.synonyms)} {col.description} {col.type}".lower()


def points_to(col: Column, words: set[str], shared: set[str] = frozenset()) -> bool:  # type: ignore[assignment]
    """Whether the question's `words` point to `col`: a word of its name, synonyms, own label
    words or description (by a common stem), or an age / time-of-day word and a matching
    column (`shared`: the table's label words that name no column in particular)."""
    text = _column_text(col, shared)
    own = set(_WORD.findall(text))
    if any(w in text or any(o[:STEM] == w[:STEM] for o in own if len(o) >= STEM) for w in words):
        return True
    return any(
        any(w.startswith(q) for w in words for q in asked) and any(c in text for c in shown)
        for asked, shown in POINTERS
    )


def _column_line(table: Table, catalog: Catalog, words: set[str] | None = None) -> list[str]:
    """Column lines; with `words`, pruned to keys, dates, measures, dimensions and the
    columns of any role those words point to (a retry after an error gets every column)."""
    lines = []
    shared = shared_label_stems(table) if words is not None else set()
    for col in table.columns:
        if words is not None and col.role not in PRUNED_ROLES and not points_to(col, words, shared):
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
    words = None if full else question_words(question)
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
