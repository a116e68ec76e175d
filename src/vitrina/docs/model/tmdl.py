"""Read a TMDL `definition/` folder (Power BI project) into the internal model.

TMDL is indentation based: an object line (`measure 'Name' = expr`), properties one level
deeper (`formatString: 0`), multi-line expressions two levels deeper or inside backtick
fences, and `///` lines describing the object that follows. The reader first builds a
generic tree of nodes, then maps the tree to the internal model.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from vitrina.docs.errors import ModelReadError
from vitrina.docs.model.bim import read_text
from vitrina.docs.model.types import (
    CalculationItem,
    Column,
    DataSource,
    Expression,
    Measure,
    Model,
    Partition,
    Relationship,
    Table,
)

_PARAM_RE = re.compile(r"\bmeta\s*\[[^\]]*IsParameterQuery\s*=\s*true", re.IGNORECASE)
_PROP_RE = re.compile(r"^([A-Za-z_][\w]*)\s*:\s?(.*)$")
_EXPR_PROP_RE = re.compile(r"^([A-Za-z_][\w]*)\s*=\s*(.*)$")
_OBJ_RE = re.compile(r"^([A-Za-z_][\w]*)\s+(.+)$")


@dataclass
class Node:
    """One TMDL line with what hangs under it."""

    keyword: str
    name: str | None = None
    value: str | None = None  # text after `=` or `:` (expression, possibly multi-line)
    line: int = 0
    description: str | None = None
    children: list[Node] = field(default_factory=list)
    is_property: bool = False

    def child(self, keyword: str) -> Node | None:
        for c in self.children:
            if c.keyword == keyword:
                return c
        return None

    def prop(self, keyword: str) -> str | None:
        c = self.child(keyword)
        return c.value if c is not None else None

    def flag(self, keyword: str) -> bool:
        c = self.child(keyword)
        if c is None:
            return False
        return c.value is None or c.value.strip().lower() != "false"


def _indent(line: str) -> int:
    """Indentation in levels: a tab is one level, four spaces are one level."""
    tabs = spaces = 0
    for ch in line:
        if ch == "\t":
            tabs += 1
        elif ch == " ":
            spaces += 1
        else:
            break
    return tabs + spaces // 4


def _dedent(lines: list[str]) -> str:
    """Strip the common leading whitespace of an expression block and its trailing blanks."""
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        return ""
    widths = [len(s) - len(s.lstrip("\t ")) for s in lines if s.strip()]
    cut = min(widths) if widths else 0
    return "\n".join(s[cut:] if len(s) >= cut else s.lstrip("\t ") for s in lines)


def _split_name(rest: str) -> tuple[str, str | None]:
    """Split `'Name' = value` or `Name = value` into the unquoted name and the value."""
    rest = rest.strip()
    if rest.startswith("'"):
        i, out = 1, []
        while i < len(rest):
            ch = rest[i]
            if ch == "'":
                if i + 1 < len(rest) and rest[i + 1] == "'":
                    out.append("'")
                    i += 2
                    continue
                break
            out.append(ch)
            i += 1
        name = "".join(out)
        tail = rest[i + 1 :].strip()
        if tail.startswith("="):
            return name, tail[1:].strip()
        return name, None
    m = re.match(r"^(.*?)\s*=\s*(.*)$", rest)
    if m:
        return m.group(1).strip(), m.group(2)
    return rest, None


class _Reader:
    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.lines = text.splitlines()
        self.i = 0

    def error(self, message: str, line: int) -> ModelReadError:
        return ModelReadError(message, path=self.path, line=line)

    def block(self, parent_indent: int) -> list[Node]:
        nodes: list[Node] = []
        desc: list[str] = []
        while self.i < len(self.lines):
            raw = self.lines[self.i]
            if not raw.strip():
                self.i += 1
                continue
            ind = _indent(raw)
            if ind <= parent_indent:
                break
            text = raw.strip()
            lineno = self.i + 1
            self.i += 1
            if text.startswith("///"):
                desc.append(text[3:].strip())
                continue
            node = self._header(text, lineno)
            if desc:
                node.description = "\n".join(desc).strip() or None
                desc = []
            if node.value is not None and not node.is_property:
                node.value = self._expression(node.value, ind, lineno)
            node.children = self.block(ind)
            nodes.append(node)
        return nodes

    def _header(self, text: str, lineno: int) -> Node:
        m = _PROP_RE.match(text)
        if m and not text.startswith(("measure ", "column ", "table ")):
            return Node(keyword=m.group(1), value=m.group(2).strip(), line=lineno, is_property=True)
        m = _EXPR_PROP_RE.match(text)
        if m:
            return Node(keyword=m.group(1), value=m.group(2), line=lineno)
        m = _OBJ_RE.match(text)
        if m:
            name, value = _split_name(m.group(2))
            return Node(keyword=m.group(1), name=name, value=value, line=lineno)
        return Node(keyword=text, line=lineno)

    def _expression(self, first: str, ind: int, lineno: int) -> str:
        first = first.rstrip()
        fence = re.match(r"^(`{3,})\s*(.*)$", first)
        if fence:
            marker = fence.group(1)
            body: list[str] = [fence.group(2)] if fence.group(2) else []
            while self.i < len(self.lines):
                raw = self.lines[self.i]
                self.i += 1
                if raw.strip() == marker:
                    return _dedent(body)
                body.append(raw)
            raise self.error(f"unterminated {marker} fence opened here", lineno)
        body = []
        while self.i < len(self.lines):
            raw = self.lines[self.i]
            if raw.strip() and _indent(raw) <= ind + 1:
                break
            body.append(raw)
            self.i += 1
        if not first:
            return _dedent(body)
        rest = _dedent(body)
        return first + ("\n" + rest if rest else "")


def parse_tmdl(text: str, path: Path | str = "<tmdl>") -> list[Node]:
    """Parse one TMDL document into a tree of nodes."""
    reader = _Reader(Path(path), text)
    return reader.block(-1)


def find_definition_dir(path: Path) -> Path | None:
    """Accept the `definition/` folder itself or a folder (PBIP semantic model) holding it."""
    if (path / "model.tmdl").is_file() or (
        (path / "tables").is_dir() and any(path.glob("tables/*.tmdl"))
    ):
        return path
    if (path / "definition").is_dir():
        return path / "definition"
    return None


def read_tmdl(folder: Path | str) -> Model:
    """Read every .tmdl file of a definition folder (model, tables, expressions, relationships)."""
    folder = Path(folder)
    files = sorted(folder.rglob("*.tmdl"))
    if not files:
        raise ModelReadError("no .tmdl files found", path=folder)
    model = Model(
        name=folder.parent.name.removesuffix(".SemanticModel") or "Model",
        path=str(folder),
        format="tmdl",
    )
    for file in files:
        rel = file.relative_to(folder).parts
        if rel[0] in ("cultures", "roles", "perspectives"):
            continue
        nodes = parse_tmdl(read_text(file), file)
        for node in nodes:
            _apply(model, node, file)
    return model


def _apply(model: Model, node: Node, file: Path) -> None:
    kw = node.keyword
    if kw == "table" and node.name:
        model.tables.append(_table(node, file))
    elif kw == "expression" and node.name:
        text = node.value or ""
        model.expressions.append(
            Expression(
                name=node.name,
                kind=node.prop("kind") or "m",
                expression=text,
                description=node.description,
                is_parameter=bool(_PARAM_RE.search(text)),
            )
        )
    elif kw == "relationship":
        from_col = node.prop("fromColumn") or ""
        to_col = node.prop("toColumn") or ""
        ft, fc = _split_column_ref(from_col)
        tt, tc = _split_column_ref(to_col)
        if ft and tt:
            model.relationships.append(
                Relationship(
                    name=node.name,
                    from_table=ft,
                    from_column=fc,
                    to_table=tt,
                    to_column=tc,
                    is_active=(node.prop("isActive") or "true").lower() != "false",
                    cross_filter=node.prop("crossFilteringBehavior"),
                )
            )
    elif kw == "dataSource" and node.name:
        model.data_sources.append(
            DataSource(
                name=node.name, kind="legacy", connection_string=node.prop("connectionString")
            )
        )
    elif kw in ("model", "database"):
        if kw == "database" and node.prop("compatibilityLevel"):
            with contextlib.suppress(ValueError):
                model.compatibility_level = int(node.prop("compatibilityLevel") or 0)
        for child in node.children:
            if child.keyword in ("table", "expression", "relationship", "dataSource"):
                _apply(model, child, file)


def _split_column_ref(ref: str) -> tuple[str, str]:
    """`'Fact Sale'.'Customer Key'` or `Sales.CustomerKey` -> (table, column)."""
    parts: list[str] = []
    buf: list[str] = []
    quoted = False
    i = 0
    while i < len(ref):
        ch = ref[i]
        if ch == "'":
            if quoted and i + 1 < len(ref) and ref[i + 1] == "'":
                buf.append("'")
                i += 2
                continue
            quoted = not quoted
        elif ch == "." and not quoted:
            parts.append("".join(buf).strip())
            buf = []
        else:
            buf.append(ch)
        i += 1
    parts.append("".join(buf).strip())
    if len(parts) >= 2:
        return ".".join(parts[:-1]), parts[-1]
    return "", parts[0]


def _table(node: Node, file: Path) -> Table:
    name = node.name or ""
    table = Table(name=name, description=node.description, is_hidden=node.flag("isHidden"))
    for child in node.children:
        kw = child.keyword
        if kw == "measure" and child.name:
            table.measures.append(
                Measure(
                    name=child.name,
                    table=name,
                    expression=child.value or "",
                    description=child.description,
                    display_folder=child.prop("displayFolder"),
                    format_string=child.prop("formatString"),
                    is_hidden=child.flag("isHidden"),
                    file=str(file),
                    line=child.line,
                )
            )
        elif kw == "column" and child.name:
            expr = child.value
            table.columns.append(
                Column(
                    name=child.name,
                    kind="calculated" if expr else "data",
                    data_type=child.prop("dataType"),
                    source_column=child.prop("sourceColumn"),
                    expression=expr or None,
                    description=child.description,
                    display_folder=child.prop("displayFolder"),
                    is_hidden=child.flag("isHidden"),
                )
            )
        elif kw == "partition" and child.name:
            kind = (child.value or "unknown").strip()
            known = ("query", "m", "calculated", "calculationGroup", "entity", "policyRange")
            table.partitions.append(
                Partition(
                    name=child.name,
                    kind=kind if kind in known else "unknown",  # type: ignore[arg-type]
                    expression=child.prop("source") or child.prop("query"),
                    data_source=child.prop("dataSource"),
                    mode=child.prop("mode"),
                )
            )
        elif kw == "calculationGroup":
            for item in child.children:
                if item.keyword == "calculationItem" and item.name:
                    table.calculation_items.append(
                        CalculationItem(name=item.name, expression=item.value or "")
                    )
            if not table.partitions:
                table.partitions.append(Partition(name=name, kind="calculationGroup"))
    return table
