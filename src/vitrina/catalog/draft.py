"""Draft a catalog from any database by introspection, for a person to edit.

The draft is deliberately plain: one topic per table that has a date column, a row count
and sums of numeric columns (averages of prices) as metrics, dated by the table's first date
of events (never a birth, hire or validity date); a line table without a date of its own
(order_details) joins its header's topic, its metrics dated by the header's date
(`date_column: orders.order_date`). Foreign keys (declared or inferred by name) are
relations; low-cardinality text columns and the one text column of a lookup table are
dimensions with their value lists; identifiers and contact details never are. What it cannot
know (Russian synonyms, labels, which of several columns a shared synonym means) is marked
for the editor as `# review:` notes (decision 151).
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from vitrina.catalog.draft_roles import (
    column_role,
    is_event_date,
    label_column,
    noun_stem,
    words,
)
from vitrina.language.verbs import draft_verbs
from vitrina.warehouse.introspect import ColumnInfo, DatabaseSchema, TableInfo

MONEY_WORDS = (
    "amount",
    "sum",
    "price",
    "revenue",
    "cost",
    "total",
    "fee",
    "paid",
    "salary",
    "balance",
)
HEADER = (
    "# Drafted by `vitrina catalog init`. Edit before use: add Russian labels and synonyms,\n"
    "# topic keywords, metric names; see docs/catalog.md. Then run `vitrina catalog check`.\n"
)


def qualified(table: TableInfo) -> str:
    return f"{table.schema_name}.{table.name}".lower()


GENERIC_LABELS = ("name", "title", "description", "label", "caption", "наименование", "название")
PER_ROW_WORDS = ("price", "rate", "discount", "percent", "pct", "цен", "скидк")  # averaged
QUANTITY_WORDS = ("quantity", "qty", "количеств")
REVIEW_RULE = (
    "a question reads it as the column on its metric's own table, else the one fewest "
    "many-to-one joins away; equally near, the first in file order. Give each column a "
    "synonym of its own if that is not what people mean"
)


@dataclass
class Draft:
    """The draft files ({relative path: YAML document}) and, per file, what a person should
    review (written as `# review:` comments on top of the file, printed by the command)."""

    files: dict[str, dict[str, Any]]
    notes: dict[str, list[str]] = field(default_factory=dict)

    def note(self, file: str, text: str) -> None:
        if text not in self.notes.setdefault(file, []):
            self.notes[file].append(text)

    def all_notes(self) -> list[str]:
        return list(dict.fromkeys(n for notes in self.notes.values() for n in notes))


@dataclass
class _Shape:
    """What the draft decided about one table before writing it."""

    table: TableInfo
    label: ColumnInfo | None
    date: str | None  # the column (or header.column) its metrics are dated by
    topic: str | None  # the topic its metrics belong to
    header: TableInfo | None = None  # the table its date lives on, when not its own


def _column(table: TableInfo, column: ColumnInfo, label: ColumnInfo | None) -> dict[str, Any]:
    role = column_role(table, column, label)
    entry: dict[str, Any] = {
        "name": column.name,
        "type": column.data_type,
        "role": role,
        "label_en": words(table.name if label is column else column.name).capitalize(),
        "label_ru": None,
        "synonyms": _synonyms(table, column, label) if role == "dimension" else [],
    }
    if role == "dimension" and column.low_cardinality_values is not None:
        entry["dictionary"] = True
    return {k: v for k, v in entry.items() if v not in (None, [])}


CODE = re.compile(r"^[a-z][a-z0-9]*(?:[_-][a-z0-9]+)*$")  # pos, debit, credit_card, in-store


def _value(value: Any) -> dict[str, Any]:
    """One dictionary value; a code (lower-case letters, `debit`, `credit_card`) gets labels
    to edit: English words drafted from the code, the Russian one left empty (answers show
    the code until a person writes it)."""
    entry: dict[str, Any] = {"value": value}
    if isinstance(value, str) and CODE.match(value):
        entry["label_ru"] = None
        entry["label_en"] = words(value)
    return entry


def _synonyms(table: TableInfo, column: ColumnInfo, label: ColumnInfo | None) -> list[str]:
    """A lookup's label is named by its table ("by genre"), the rest by their own words."""
    if label is None or column.name != label.name:
        return [words(column.name)]
    own = words(column.name)
    table_words = noun_stem(table.name)
    return [table_words] if own in GENERIC_LABELS else [table_words, own]


def _named(column: ColumnInfo, stems: tuple[str, ...]) -> bool:
    """A word of the column's name starts with one of `stems` ("unit price", not "corporate")."""
    return any(w.startswith(stems) for w in words(column.name).split())


def _metric(table: TableInfo, topic: str, **fields: Any) -> dict[str, Any]:
    return {"id": fields.pop("id"), "table": qualified(table), "topic": topic, **fields}


def _metrics(shape: _Shape) -> list[dict[str, Any]]:
    table, name, topic = shape.table, shape.table.name.lower(), shape.topic or ""
    label = words(table.name)
    out = [
        _metric(
            table, topic, id=f"{name}_count", name_ru=f"Количество ({label})",
            name_en=f"Number of {label}", expression="COUNT(*)", format="count",
            synonyms=[label, f"number of {label}", f"how many {label}"],
        )
    ]  # fmt: skip
    verbs = draft_verbs(label.split())  # "how many orders were placed": the table's event
    if verbs:
        out[0]["verbs"] = verbs
    measures = [c for c in table.columns if column_role(table, c, shape.label) == "measure"]
    price = next((c for c in measures if _named(c, ("price", "цен"))), None)
    quantity = next((c for c in measures if _named(c, QUANTITY_WORDS)), None)
    if price is not None and quantity is not None:
        out.append(
            _metric(
                table, topic, id=f"{name}_amount", name_ru=f"Сумма ({label})",
                name_en=f"{label.capitalize()} amount",
                expression=f"SUM({price.name} * {quantity.name})", format="money",
                synonyms=[f"{label} amount", f"total {label} amount"],
            )
        )  # fmt: skip
    for col in measures:
        col_words = words(col.name)
        if _named(col, PER_ROW_WORDS):  # a price is averaged, never summed
            out.append(
                _metric(
                    table, topic, id=f"{name}_{col.name.lower()}_avg",
                    name_ru=f"Среднее {col_words}", name_en=f"Average {col_words}",
                    expression=f"AVG({col.name})",
                    format="money" if any(w in col_words for w in MONEY_WORDS) else "number",
                    additive=False, synonyms=[f"average {col_words}"],
                )
            )  # fmt: skip
            continue
        out.append(
            _metric(
                table, topic, id=f"{name}_{col.name.lower()}_sum",
                name_ru=f"Сумма {col_words}", name_en=f"Total {col_words}",
                expression=f"SUM({col.name})",
                format="money" if any(w in col_words for w in MONEY_WORDS) else "number",
                synonyms=[col_words, f"total {col_words}"], non_negative=False,
            )
        )  # fmt: skip
    if shape.date:
        for metric in out:
            metric["date_column"] = shape.date
    return out


def _ref(table: TableInfo, fk: Any) -> str:
    return f"{(fk.ref_schema or table.schema_name)}.{fk.ref_table}".lower()


def _header(table: TableInfo, by_name: dict[str, TableInfo]) -> TableInfo | None:
    """The table a line table's date lives on: the one it references many-to-one that has
    a date of events (its name inside the line table's: order_details -> orders), else None."""
    dated = [
        by_name[_ref(table, fk)]
        for fk in table.foreign_keys
        if _ref(table, fk) in by_name
        and _ref(table, fk) != qualified(table)
        and _event_date(by_name[_ref(table, fk)])
    ]
    dated = list({qualified(t): t for t in dated}.values())
    if len(dated) > 1:
        own = words(table.name).replace(" ", "")
        dated = [t for t in dated if noun_stem(t.name).replace(" ", "") in own]
    return dated[0] if len(dated) == 1 else None


def _event_date(table: TableInfo) -> str | None:
    return next((c.name for c in table.columns if is_event_date(c)), None)


def _shapes(readable: list[TableInfo], by_name: dict[str, TableInfo]) -> list[_Shape]:
    referenced = {
        _ref(t, fk) for t in readable for fk in t.foreign_keys if _ref(t, fk) != qualified(t)
    }
    shapes = []
    for table in readable:
        label = label_column(table, qualified(table) in referenced)
        date = _event_date(table)
        shape = _Shape(table, label, date, table.name.lower() if date else None)
        has_measures = any(column_role(table, c, label) == "measure" for c in table.columns)
        if date is None and any(c.is_date for c in table.columns):
            shape.topic = table.name.lower()  # a head count: counted, never dated by birth
        elif date is None and has_measures:
            header = _header(table, by_name)
            if header is not None:
                shape.header, shape.topic = header, header.name.lower()
                shape.date = f"{header.name.lower()}.{_event_date(header)}"
        shapes.append(shape)
    return shapes


def draft_catalog(schema: DatabaseSchema, *, name: str = "catalog") -> Draft:
    """The draft, for a person to edit: see the module docstring and docs/catalog.md."""
    draft = Draft({})
    readable = [t for t in schema.tables if not t.error]
    by_name = {qualified(t): t for t in readable}
    shapes = _shapes(readable, by_name)
    topics: dict[str, dict[str, Any]] = {}
    metrics, relations, dictionaries = [], [], []
    for shape in shapes:
        table, file = shape.table, f"tables/{shape.table.name.lower()}.yaml"
        doc: dict[str, Any] = {
            "name": qualified(table),
            "description": f"TODO: what one row of {table.name} is.",
            "topics": [shape.topic] if shape.topic else [],
            "columns": [_column(table, c, shape.label) for c in table.columns],
        }
        if shape.date and shape.header is None:
            doc["default_date"] = shape.date
        skipped = [c.name for c in table.columns if c.is_date and not is_event_date(c)]
        if skipped:
            draft.note(
                file,
                f"{qualified(table)}: {', '.join(skipped)}: not when a row happened (a birth, "
                "hire or validity date), so no count or sum is dated by it; name one in "
                "default_date if questions should filter by it",
            )
        if shape.label is not None and shape.label.low_cardinality_values is None:
            draft.note(
                file,
                f"{qualified(table)}.{shape.label.name} is the label of a lookup with "
                f"{shape.label.distinct_count} values, more than --sample-values: a breakdown "
                "without a value list, so no question filters by one of its values; "
                "draft again with a higher --sample-values to list them",
            )
        if shape.header is not None:
            draft.note(
                "metrics.yaml",
                f"metrics of {qualified(table)} are dated by {shape.date} (the header its rows "
                "belong to); the planner joins it in",
            )
        draft.files[file] = {"tables": [doc]}
        for fk in table.foreign_keys:
            ref = _ref(table, fk)
            if ref in by_name:
                for left, right in zip(fk.columns, fk.ref_columns, strict=False):
                    relations.append(
                        {"left": f"{qualified(table)}.{left}", "right": f"{ref}.{right}"}
                    )
        for col in table.columns:
            role = column_role(table, col, shape.label)
            if col.low_cardinality_values is not None and role == "dimension":
                dictionaries.append(
                    {
                        "column": f"{qualified(table)}.{col.name}",
                        "values": [_value(v) for v in col.low_cardinality_values],
                    }
                )
    for shape in sorted(shapes, key=lambda s: s.header is not None):  # headers before lines
        if shape.topic:
            _add_to_topic(topics, shape, by_name)
            metrics += _metrics(shape)
    _note_shared_synonyms(draft)
    draft.files["catalog.yaml"] = {
        "catalog": {"name": name, "description": f"Drafted from a {schema.dialect} database."}
    }
    draft.files["topics.yaml"] = {"topics": list(topics.values())}
    draft.files["metrics.yaml"] = {"metrics": metrics}
    draft.files["relations.yaml"] = {"relations": relations}
    draft.files["dictionaries.yaml"] = {"dictionaries": dictionaries}
    return draft


def _add_to_topic(
    topics: dict[str, dict[str, Any]], shape: _Shape, by_name: dict[str, TableInfo]
) -> None:
    """A topic per dated table; a line table joins its header's topic. Each table once."""
    assert shape.topic is not None
    table = shape.table
    topic = topics.setdefault(
        shape.topic,
        {
            "id": shape.topic,
            "name_ru": f"TODO {(shape.header or table).name}",
            "name_en": words((shape.header or table).name).capitalize(),
            "segment": "any",
            "keywords": {},
            "tables": [],
        },
    )
    topic["keywords"][words(table.name)] = 3
    related = [_ref(table, fk) for fk in table.foreign_keys]
    for name in (qualified(table), *related):
        if name in by_name and name not in topic["tables"]:
            topic["tables"].append(name)


def _note_shared_synonyms(draft: Draft) -> None:
    """A synonym that names several columns: which one a question gets, said where to fix it."""
    owners: dict[str, list[tuple[str, str]]] = {}
    for file, doc in draft.files.items():
        for table in doc.get("tables", []):
            for col in table["columns"]:
                for synonym in col.get("synonyms", []):
                    owners.setdefault(synonym, []).append((file, f"{table['name']}.{col['name']}"))
    for synonym, found in owners.items():
        if len(found) > 1:
            columns = ", ".join(q for _, q in found)
            for file, _ in found:
                draft.note(file, f"synonym '{synonym}' names {len(found)} columns ({columns}): "
                           f"{REVIEW_RULE}")  # fmt: skip


def write_draft(draft: Draft, out: Path, *, overwrite: bool = False) -> list[Path]:
    """Write the draft, each file's review notes as comments on top; refuses to overwrite an
    existing file unless asked."""
    written = []
    for rel in draft.files:
        path = out / rel
        if path.exists() and not overwrite:
            raise FileExistsError(f"{path} exists: pass --force to overwrite")
    for rel, doc in draft.files.items():
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        notes = "".join(
            "\n".join(textwrap.wrap(note, 100, initial_indent="# review: ",
                                     subsequent_indent="#   ")) + "\n"
            for note in draft.notes.get(rel, [])
        )  # fmt: skip
        path.write_text(
            HEADER + notes + yaml.safe_dump(doc, allow_unicode=True, sort_keys=False, width=110),
            encoding="utf-8",
        )
        written.append(path)
    return written
