"""Column and value look-ups, and relation paths between two tables (Catalog.join_path)."""

from __future__ import annotations

from vitrina.catalog import Catalog
from vitrina.catalog.model import ColumnRole
from vitrina.language.text import phrase_stems
from vitrina.route.tools.match import phrase_hits, text_stems


def lookup_columns(catalog: Catalog, table: str, words: list[str]) -> list[dict]:
    """Columns of one table the request names (by synonym or label), then its other dimensions
    and measures."""
    found = catalog.tables.get(table)
    if found is None:
        return []
    out = []
    for col in found.columns:
        labels = [
            *col.synonyms,
            " ".join(text_stems(col.label("ru"))),
            " ".join(text_stems(col.label("en"))),
        ]
        named = (
            max((phrase_hits(phrase_stems(s), words) for s in labels if s.strip()), default=0) > 0
        )
        if named or col.role in (ColumnRole.DIMENSION, ColumnRole.MEASURE, ColumnRole.DATE):
            out.append(
                {
                    "table": table,
                    "column": col.name,
                    "role": col.role.value,
                    "label": col.label("ru"),
                    "named": named,
                }
            )
    out.sort(key=lambda c: (not c["named"], c["role"] != "dimension", c["column"]))
    return out


def lookup_values(catalog: Catalog, words: list[str]) -> list[dict]:
    """Dictionary values the request names, with every column that holds them."""
    out = []
    for dic in catalog.dictionaries.values():
        for val in dic.values:
            names = {val.value, *(val.synonyms or [])}
            if any(phrase_hits(phrase_stems(n), words) for n in names if n.strip()):
                out.append({"column": dic.column, "value": val.value})
    return out


def relation_path(catalog: Catalog, start: str, goal: str) -> list[str] | None:
    """The many-to-one join path from `start` to `goal` as 'left = right' strings, or None."""
    path = catalog.join_path(start, goal)
    if path is None:
        return None
    return [f"{r.left} = {r.right}" for r in path]
