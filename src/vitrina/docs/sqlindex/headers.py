"""Reading the head of a definition (CREATE PROC/VIEW/FUNCTION/TABLE/...): kind, name, body.

The head is read from tokens, not by sqlglot, because it must work for every
procedure, including those whose bodies sqlglot cannot parse: the object is indexed
under its name with real line numbers whatever happens to its body later.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vitrina.docs.sqlindex.lexer import OP, QUOTED, WORD, Tok
from vitrina.docs.sqlindex.names import display_from_parts, from_parts
from vitrina.docs.sqlindex.statements import module_kind

DDL_KINDS = {"TABLE": "table", "SEQUENCE": "sequence", "TYPE": "type", "SYNONYM": "other"}
_NOT_COLUMNS = frozenset({"CONSTRAINT", "PRIMARY", "UNIQUE", "FOREIGN", "CHECK", "INDEX", "PERIOD"})


@dataclass(slots=True)
class Header:
    """What the head of a definition says; `body_start` indexes the first body token."""

    kind: str
    name: str
    line: int
    body_start: int | None = None
    parent: str | None = None  # the table a trigger fires on, the target of a synonym
    columns: list[str] = field(default_factory=list)
    problem: str | None = None
    display: str = ""  # the name in its original case, for documents


def read_name(tokens: list[Tok], j: int) -> tuple[list[str], int]:
    """Bare parts of a dotted name starting at tokens[j], and the index after it."""
    parts: list[str] = []
    n = len(tokens)
    while j < n:
        tok = tokens[j]
        if tok.kind == OP and tok.text == "." and (not parts or parts[-1] == "" or j == 0):
            parts.append("")  # `db..name`: an empty schema part
            j += 1
            continue
        if tok.kind not in (WORD, QUOTED):
            break
        parts.append(tok.value)
        j += 1
        if j < n and tokens[j].kind == OP and tokens[j].text == ".":
            j += 1
            while j < n and tokens[j].kind == OP and tokens[j].text == ".":
                parts.append("")
                j += 1
            if j >= n or tokens[j].kind not in (WORD, QUOTED):
                parts.append("")  # `Stage.` + @name: the rest is built at run time
                break
            continue
        break
    return parts, j


def module_header(tokens: list[Tok]) -> Header | None:
    """Head of CREATE [OR ALTER] | ALTER PROCEDURE/FUNCTION/VIEW/TRIGGER; None if not one."""
    found = module_kind(tokens, 0)
    if found is None:
        return None
    kind, k = found
    parts, j = read_name(tokens, k + 1)
    name = from_parts(parts)
    head = Header(kind=kind, name=name, line=tokens[0].line, display=display_from_parts(parts))
    if not name:
        head.problem = "no object name after " + tokens[k].up
        return head
    if tokens[k].up == "TRIGGER" and j < len(tokens) and tokens[j].up == "ON":
        target, _ = read_name(tokens, j + 1)
        head.parent = (
            from_parts(target) if target and target[0].upper() not in ("DATABASE", "ALL") else None
        )
    if kind == "view" and j < len(tokens) and tokens[j].text == "(":
        head.columns = _paren_items(tokens, j)[0]
    depth = 0
    for i in range(j, len(tokens)):
        tok = tokens[i]
        if tok.kind == OP:
            depth += tok.text == "("
            depth -= tok.text == ")"
            continue
        if depth == 0 and tok.up == "AS":
            prev = tokens[i - 1]
            if prev.up in ("EXECUTE", "EXEC") or (prev.kind == WORD and prev.text.startswith("@")):
                continue  # WITH EXECUTE AS OWNER, or `@param AS type`
            head.body_start = i + 1
            break
    if head.body_start is None:
        head.problem = f"no AS before the body of {kind} {name}"
    return head


def ddl_header(tokens: list[Tok]) -> Header | None:
    """Head of CREATE TABLE/SEQUENCE/TYPE/SYNONYM (statements that define a data object)."""
    if len(tokens) < 3 or tokens[0].up != "CREATE":
        return None
    k = 1
    while k < len(tokens) and tokens[k].up in ("EXTERNAL", "FILETABLE"):
        k += 1
    if k >= len(tokens) or tokens[k].up not in DDL_KINDS:
        return None
    kind = DDL_KINDS[tokens[k].up]
    parts, j = read_name(tokens, k + 1)
    name = from_parts(parts)
    if not name:
        return None
    head = Header(kind=kind, name=name, line=tokens[0].line, display=display_from_parts(parts))
    if tokens[k].up == "SYNONYM" and j < len(tokens) and tokens[j].up == "FOR":
        target, _ = read_name(tokens, j + 1)
        head.parent = from_parts(target) or None
    if kind in ("table", "type"):
        while j < len(tokens) and tokens[j].text != "(":
            if tokens[j].up in ("FROM", "EXTERNAL"):  # CREATE TYPE t FROM int
                return head
            j += 1
        if j < len(tokens):
            head.columns = _paren_items(tokens, j)[0]
    return head


def _paren_items(tokens: list[Tok], open_index: int) -> tuple[list[str], int]:
    """Column names of a parenthesised definition list: the first name of each item."""
    columns: list[str] = []
    depth = 0
    expect = True
    i = open_index
    while i < len(tokens):
        tok = tokens[i]
        if tok.kind == OP and tok.text == "(":
            depth += 1
        elif tok.kind == OP and tok.text == ")":
            depth -= 1
            if depth == 0:
                return columns, i
        elif depth == 1 and tok.kind == OP and tok.text == ",":
            expect = True
        elif depth == 1 and expect:
            expect = False
            if tok.kind == QUOTED or (tok.kind == WORD and tok.up not in _NOT_COLUMNS):
                columns.append(tok.value)
        i += 1
    return columns, i
