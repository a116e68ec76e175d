"""Draft a catalog from any database by introspection, for a person to edit.

The draft is deliberately plain: one topic per table that has a date column, a row count
and sums of numeric columns as metrics, foreign keys (declared or inferred by name) as
relations, low-cardinality text columns as dimensions with their value lists. What it
cannot know (Russian synonyms, labels, which sums are money) is marked for the editor.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

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


def _words(name: str) -> str:
    return re.sub(r"[_\s]+", " ", name).strip().lower()


def qualified(table: TableInfo) -> str:
    return f"{table.schema_name}.{table.name}".lower()


FREE_TEXT_WORDS = ("comment", "description", "note", "remark", "address", "phone", "fax", "email")
FREE_TEXT_MEAN_LENGTH = 30  # values this long on average are prose, not categories


def _is_key(table: TableInfo, column: ColumnInfo) -> bool:
    """Declared keys, and names that say key: id, x_id, CustomerId, c_custkey."""
    fk_cols = {c for fk in table.foreign_keys for c in fk.columns}
    name = column.name.lower()
    named = name == "id" or name.endswith(("_id", "key")) or column.name.endswith(("Id", "ID"))
    return column.name in table.primary_key or column.name in fk_cols or named


def _free_text(column: ColumnInfo) -> bool:
    """Comments, addresses, phones: text people do not break numbers down by."""
    name = column.name.lower()
    if any(word in name for word in FREE_TEXT_WORDS):
        return True
    values = [str(v) for v in column.low_cardinality_values or []]
    return bool(values) and sum(map(len, values)) / len(values) > FREE_TEXT_MEAN_LENGTH


def column_role(table: TableInfo, column: ColumnInfo) -> str:
    if _is_key(table, column):
        return "key"
    if column.is_date:
        return "date"
    if column.low_cardinality_values is not None and not _free_text(column):
        return "dimension"
    if column.is_numeric:
        return "measure"
    return "attribute"


def _column(table: TableInfo, column: ColumnInfo) -> dict[str, Any]:
    role = column_role(table, column)
    entry: dict[str, Any] = {
        "name": column.name,
        "type": column.data_type,
        "role": role,
        "label_en": _words(column.name).capitalize(),
        "label_ru": None,
        "synonyms": [_words(column.name)] if role == "dimension" else [],
    }
    if role == "dimension":
        entry["dictionary"] = True
    return {k: v for k, v in entry.items() if v not in (None, [])}


def _metrics(table: TableInfo, date_column: str | None) -> list[dict[str, Any]]:
    name = qualified(table)
    words = _words(table.name)
    out = [
        {
            "id": f"{table.name.lower()}_count",
            "name_ru": f"Количество ({words})",
            "name_en": f"Number of {words}",
            "table": name,
            "expression": "COUNT(*)",
            "format": "count",
            "topic": table.name.lower(),
            "synonyms": [words, f"number of {words}", f"how many {words}"],
        }
    ]
    for col in table.columns:
        if column_role(table, col) == "measure":
            money = any(w in col.name.lower() for w in MONEY_WORDS)
            out.append(
                {
                    "id": f"{table.name.lower()}_{col.name.lower()}_sum",
                    "name_ru": f"Сумма {_words(col.name)}",
                    "name_en": f"Total {_words(col.name)}",
                    "table": name,
                    "expression": f"SUM({col.name})",
                    "format": "money" if money else "number",
                    "topic": table.name.lower(),
                    "synonyms": [_words(col.name), f"total {_words(col.name)}"],
                    "non_negative": False,
                }
            )
    for metric in out:
        if date_column:
            metric["date_column"] = date_column
    return out


def draft_catalog(schema: DatabaseSchema, *, name: str = "catalog") -> dict[str, dict[str, Any]]:
    """The draft as {relative file path: YAML document}."""
    files: dict[str, dict[str, Any]] = {}
    readable = [t for t in schema.tables if not t.error]
    by_name = {qualified(t): t for t in readable}
    topics, metrics, relations, dictionaries = [], [], [], []
    for table in readable:
        date_cols = [c.name for c in table.columns if c.is_date]
        doc: dict[str, Any] = {
            "name": qualified(table),
            "description": f"TODO: what one row of {table.name} is.",
            "topics": [],
            "columns": [_column(table, c) for c in table.columns],
        }
        if date_cols:
            doc["default_date"] = date_cols[0]
            doc["topics"] = [table.name.lower()]
            related = [
                f"{(fk.ref_schema or table.schema_name)}.{fk.ref_table}".lower()
                for fk in table.foreign_keys
            ]
            topics.append(
                {
                    "id": table.name.lower(),
                    "name_ru": f"TODO {table.name}",
                    "name_en": _words(table.name).capitalize(),
                    "segment": "any",
                    "keywords": {_words(table.name): 3},
                    "tables": [qualified(table), *[r for r in related if r in by_name]],
                }
            )
            metrics += _metrics(table, date_cols[0])
        files[f"tables/{table.name.lower()}.yaml"] = {"tables": [doc]}
        for fk in table.foreign_keys:
            ref = f"{(fk.ref_schema or table.schema_name)}.{fk.ref_table}".lower()
            if ref in by_name:
                for left, right in zip(fk.columns, fk.ref_columns, strict=False):
                    relations.append(
                        {"left": f"{qualified(table)}.{left}", "right": f"{ref}.{right}"}
                    )
        for col in table.columns:
            if col.low_cardinality_values is not None and column_role(table, col) == "dimension":
                dictionaries.append(
                    {
                        "column": f"{qualified(table)}.{col.name}",
                        "values": [{"value": v} for v in col.low_cardinality_values],
                    }
                )
    files["catalog.yaml"] = {
        "catalog": {"name": name, "description": f"Drafted from a {schema.dialect} database."}
    }
    files["topics.yaml"] = {"topics": topics}
    files["metrics.yaml"] = {"metrics": metrics}
    files["relations.yaml"] = {"relations": relations}
    files["dictionaries.yaml"] = {"dictionaries": dictionaries}
    return files


def write_draft(
    files: dict[str, dict[str, Any]], out: Path, *, overwrite: bool = False
) -> list[Path]:
    """Write the draft; refuses to overwrite an existing file unless asked."""
    written = []
    for rel, doc in files.items():
        path = out / rel
        if path.exists() and not overwrite:
            raise FileExistsError(f"{path} exists: pass --force to overwrite")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            HEADER + yaml.safe_dump(doc, allow_unicode=True, sort_keys=False, width=110),
            encoding="utf-8",
        )
        written.append(path)
    return written
