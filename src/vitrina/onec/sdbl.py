"""Syntax check of 1C query texts with the SDBL grammar shipped in `tree-sitter-hbk`.

The package has two grammars: `Language()` for BSL modules and `SDBLLanguage()` for
standalone query texts; queries are checked with the second. Version 0.1.11 rejects some
valid 1C syntax; each such known false alarm is a small named rule below, applied only
to error nodes of exactly that shape, and every error it forgives is a trace event.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from vitrina.trace import Trace

PARSER_PACKAGE = "tree-sitter-hbk"


@dataclass
class SyntaxIssue:
    line: int  # 1-based
    column: int  # 1-based
    text: str
    rule: str = ""  # the false-alarm rule that forgave it, if any

    def __str__(self) -> str:
        return f"line {self.line}, column {self.column}: unexpected {self.text!r}"


@dataclass
class QueryCheck:
    checked: bool  # False when the parser is not installed
    ok: bool
    errors: list[SyntaxIssue] = field(default_factory=list)
    forgiven: list[SyntaxIssue] = field(default_factory=list)
    virtual_tables: list[str] = field(default_factory=list)  # 'РегистрНакопления.Продажи.Обороты', from the tree
    parser: str = ""


def _text(node: Any, source: bytes) -> str:
    return source[node.start_byte:node.end_byte].decode("utf-8", errors="replace")


def _inside(node: Any, kind: str) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type == kind:
            return True
        parent = parent.parent
    return False


def empty_virtual_table_parameter(node: Any, source: bytes) -> bool:
    """1C lets any virtual-table parameter be omitted: `Обороты(&Н, &К, , Склад = &С)` and a
    trailing `Обороты(&Н, &К, Месяц, )` are valid (the Query Designer writes them). Grammar
    0.1.11 accepts an empty slot only in some positions and reports the bare commas."""
    return _inside(node, "virtual_table_parameters") and not _text(node, source).replace(",", "").strip()


def comma_after_overall(node: Any, source: bytes) -> bool:
    """`ИТОГИ СУММА(X) ПО ОБЩИЕ, Номенклатура` is valid 1C (the Query Designer puts ОБЩИЕ
    first), but grammar 0.1.11 accepts ОБЩИЕ only as the last grouping and reports the comma."""
    prev = node.prev_sibling
    return (_text(node, source).strip() == "," and prev is not None and prev.type == "GENERAL_KEYWORD"
            and node.parent is not None and node.parent.type == "totals_clause")


FALSE_ALARMS: tuple[Callable[[Any, bytes], bool], ...] = (empty_virtual_table_parameter, comma_after_overall)


def _errors(node: Any, out: list[Any]) -> list[Any]:
    if node.is_error or node.is_missing:
        out.append(node)
        return out
    for child in node.children:
        _errors(child, out)
    return out


def _virtual_tables(node: Any, source: bytes, out: list[str]) -> list[str]:
    if node.type == "virtual_table_source":
        name = node.child_by_field_name("name")
        out.append(_text(name if name is not None else node, source).strip())
    for child in node.children:
        _virtual_tables(child, source, out)
    return out


def _parser() -> tuple[Any, str] | None:
    try:
        from importlib.metadata import version

        import tree_sitter
        import tree_sitter_hbk
    except ImportError:
        return None
    return tree_sitter.Parser(tree_sitter_hbk.SDBLLanguage()), f"{PARSER_PACKAGE} {version(PARSER_PACKAGE)}"


def check_query(text: str, *, trace: Trace | None = None) -> QueryCheck:
    """Parse a query text; errors are real syntax errors, `forgiven` the known false alarms."""
    trace = trace or Trace("onec_query_check")
    found = _parser()
    if found is None:
        trace.suppressed(f"{PARSER_PACKAGE} is not installed: the 1C query was not syntax-checked")
        return QueryCheck(checked=False, ok=True)
    parser, name = found
    source = text.encode("utf-8")
    tree = parser.parse(source)
    result = QueryCheck(checked=True, ok=True, parser=name,
                        virtual_tables=_virtual_tables(tree.root_node, source, []))
    for node in _errors(tree.root_node, []):
        issue = SyntaxIssue(line=node.start_point[0] + 1, column=node.start_point[1] + 1,
                            text=_text(node, source) or node.type)
        rule = next((r.__name__ for r in FALSE_ALARMS if not node.is_missing and r(node, source)), None)
        if rule:
            issue.rule = rule
            result.forgiven.append(issue)
            trace.suppressed("known parser false alarm forgiven", rule=rule, where=str(issue))
        else:
            result.errors.append(issue)
    result.ok = not result.errors
    if result.errors:
        trace.rejected("1C query has syntax errors", errors=[str(e) for e in result.errors])
    return result
