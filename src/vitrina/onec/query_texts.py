"""Every 1C query text a configuration dump holds: in data composition schemas and in modules.

Schemas: `Ext/Template.xml` (Designer) and `Template.dcs` (EDT), each `DataSetQuery` data set
(also inside a `DataSetUnion`). Modules (`*.bsl`): string literals parsed with the BSL
grammar of `tree-sitter-hbk` whose text starts with a query keyword, continuation lines
(`|`) joined and doubled quotes undone, as the platform reads them. A module literal that
is only a fragment glued on at run time cannot be checked alone, so only a literal that is a
whole statement (it starts with ВЫБРАТЬ/SELECT/УНИЧТОЖИТЬ/DROP) counts.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vitrina.onec.xmlutil import local

STATEMENT = re.compile(r"^\s*(?://[^\n]*\n\s*)*(ВЫБРАТЬ|SELECT|УНИЧТОЖИТЬ|DROP)\b", re.IGNORECASE)
MAX_FILES = 100_000  # a dump larger than this is not a configuration a person can read


@dataclass(frozen=True)
class QueryText:
    file: str
    where: str  # the data set name, or "line N" of a module
    text: str


def schema_queries(path: Path) -> list[QueryText]:
    """Query texts of a data composition schema file (empty texts are skipped)."""
    root = ET.parse(path).getroot()
    out = []
    for node in root.iter():
        if local(node.tag) != "dataSet" and local(node.tag) != "item":
            continue
        query = next((c for c in node if local(c.tag) == "query"), None)
        if query is None or not (query.text or "").strip():
            continue
        name = next((c.text or "" for c in node if local(c.tag) == "name"), "")
        out.append(QueryText(str(path), name, query.text or ""))
    return out


def _literal(raw: str) -> str:
    body = raw[1:-1] if raw.endswith('"') and len(raw) > 1 else raw[1:]
    lines = body.split("\n")
    joined = [lines[0]] + [re.sub(r"^\s*\|", "", line) for line in lines[1:]]
    return "\n".join(joined).replace('""', '"')


def _strings(node: Any, out: list[Any]) -> list[Any]:
    if node.type == "string":
        out.append(node)
        return out
    for child in node.children:
        _strings(child, out)
    return out


def module_queries(path: Path) -> list[QueryText]:
    """Whole query statements written as string literals in a BSL module."""
    import tree_sitter
    import tree_sitter_hbk

    source = path.read_bytes().removeprefix(b"\xef\xbb\xbf")
    tree = tree_sitter.Parser(tree_sitter_hbk.Language()).parse(source)
    out = []
    for node in _strings(tree.root_node, []):
        text = _literal(source[node.start_byte : node.end_byte].decode("utf-8", errors="replace"))
        if STATEMENT.match(text):
            out.append(QueryText(str(path), f"line {node.start_point[0] + 1}", text))
    return out


def _schema_files(root: Path) -> Iterator[Path]:
    for path in root.rglob("Template.*"):
        if path.suffix == ".dcs" or (path.suffix == ".xml" and path.parent.name == "Ext"):
            yield path


def configuration_queries(root: Path | str) -> list[QueryText]:
    """Every query text of a dump: schemas first, then modules, in path order."""
    root = Path(root)
    out: list[QueryText] = []
    schemas = sorted(_schema_files(root))[:MAX_FILES]
    for path in schemas:
        head = path.read_bytes()[:2000]
        if b"DataCompositionSchema" in head:
            out += schema_queries(path)
    for path in sorted(root.rglob("*.bsl"))[:MAX_FILES]:
        out += module_queries(path)
    return out
