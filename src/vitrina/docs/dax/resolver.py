"""Resolve the objects a DAX expression uses, following Tabular Editor's rules.

- `'Table'[Name]` and `Table[Name]`: a column of that table, else a measure of it.
- `[Name]` alone: a column of the host table first, then a measure anywhere in the model,
  then a column of a table the expression iterates (row context); else unresolved.
- A name declared with `VAR` is a variable, never a table, even when a table has that name.
- A bare identifier equal to a table name (`COUNTROWS(Sales)`) is a table reference.
Function calls are collected too: relationship use, time intelligence and filter changes.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from vitrina.docs.dax.format import flat_text
from vitrina.docs.dax.lexer import Token, TokenKind, code_tokens, tokenize
from vitrina.docs.model.types import Model

MAX_ARG_TOKENS = 200  # an argument longer than this is quoted by its first half, then "…"

RELATIONSHIP_FUNCTIONS = frozenset(
    {"USERELATIONSHIP", "RELATED", "RELATEDTABLE", "CROSSFILTER", "TREATAS"}
)
TIME_INTELLIGENCE = frozenset(
    {
        "DATEADD",
        "DATESYTD",
        "DATESQTD",
        "DATESMTD",
        "TOTALYTD",
        "TOTALQTD",
        "TOTALMTD",
        "SAMEPERIODLASTYEAR",
        "PARALLELPERIOD",
        "PREVIOUSYEAR",
        "PREVIOUSQUARTER",
        "PREVIOUSMONTH",
        "PREVIOUSDAY",
        "NEXTYEAR",
        "NEXTQUARTER",
        "NEXTMONTH",
        "NEXTDAY",
        "DATESINPERIOD",
        "DATESBETWEEN",
        "OPENINGBALANCEYEAR",
        "OPENINGBALANCEQUARTER",
        "OPENINGBALANCEMONTH",
        "CLOSINGBALANCEYEAR",
        "CLOSINGBALANCEQUARTER",
        "CLOSINGBALANCEMONTH",
        "STARTOFYEAR",
        "STARTOFQUARTER",
        "STARTOFMONTH",
        "ENDOFYEAR",
        "ENDOFQUARTER",
        "ENDOFMONTH",
        "FIRSTDATE",
        "LASTDATE",
        "FIRSTNONBLANK",
        "LASTNONBLANK",
    }
)
FILTER_FUNCTIONS = frozenset(
    {
        "CALCULATE",
        "CALCULATETABLE",
        "ALL",
        "ALLEXCEPT",
        "ALLSELECTED",
        "ALLNOBLANKROW",
        "REMOVEFILTERS",
        "KEEPFILTERS",
        "FILTER",
    }
)
# words that are never an unquoted table name: `RETURN [x]` is the measure or column [x]
RESERVED = frozenset({"RETURN", "IN", "NOT", "AND", "OR", "VAR"})
KEYWORDS = frozenset(
    {
        "VAR",
        "RETURN",
        "DEFINE",
        "EVALUATE",
        "MEASURE",
        "ORDER",
        "BY",
        "ASC",
        "DESC",
        "IN",
        "NOT",
        "TRUE",
        "FALSE",
        "AND",
        "OR",
        "TABLE",
        "COLUMN",
        "START",
        "AT",
        "YEAR",
        "QUARTER",
        "MONTH",
        "DAY",
        "HOUR",
        "MINUTE",
        "SECOND",
        "WEEK",
        "BLANK",
        "INTEGER",
        "STRING",
        "DOUBLE",
        "CURRENCY",
        "DATETIME",
        "BOOLEAN",
        "BOTH",
        "ONEWAY",
        "NONE",
        "SKIP",
        "DENSE",
        "ABS",
        "REL",
    }
)


@dataclass(frozen=True)
class FunctionUse:
    """A notable function call and its arguments as written (for the document)."""

    function: str
    args: tuple[str, ...]
    line: int

    def text(self) -> str:
        return f"{self.function}({', '.join(self.args)})"


@dataclass
class DaxDeps:
    """What one expression uses. Names are as in the model (original case)."""

    measures: set[str] = field(default_factory=set)
    columns: set[tuple[str, str]] = field(default_factory=set)
    tables: set[str] = field(default_factory=set)
    variables: list[str] = field(default_factory=list)
    functions: set[str] = field(default_factory=set)
    relationships: list[FunctionUse] = field(default_factory=list)
    time_intelligence: list[FunctionUse] = field(default_factory=list)
    filters: list[FunctionUse] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)
    row_context_columns: set[tuple[str, str]] = field(default_factory=set)


class ModelNames:
    """Case-insensitive lookups over a model, built once per model."""

    def __init__(self, model: Model) -> None:
        self.tables: dict[str, str] = {t.name.lower(): t.name for t in model.tables}
        self.columns: dict[str, dict[str, str]] = {
            t.name.lower(): {c.name.lower(): c.name for c in t.columns} for t in model.tables
        }
        self.measures: dict[str, str] = {}
        self.measure_table: dict[str, str] = {}
        for t in model.tables:
            for m in t.measures:
                self.measures.setdefault(m.name.lower(), m.name)
                self.measure_table.setdefault(m.name.lower(), t.name)

    def column(self, table: str, name: str) -> tuple[str, str] | None:
        cols = self.columns.get(table.lower())
        if cols and name.lower() in cols:
            return self.tables[table.lower()], cols[name.lower()]
        return None


def _call_args(tokens: list[Token], open_idx: int) -> tuple[list[tuple[int, int]], int]:
    """Argument spans [start, end) of the call whose '(' is at open_idx, and the ')' index."""
    depth = 0
    spans: list[tuple[int, int]] = []
    start = open_idx + 1
    for i in range(open_idx, len(tokens)):
        kind = tokens[i].kind
        if kind in (TokenKind.LPAREN, TokenKind.LBRACE):
            depth += 1
        elif kind in (TokenKind.RPAREN, TokenKind.RBRACE):
            depth -= 1
            if depth == 0:
                if i > start or spans:
                    spans.append((start, i))
                return spans, i
        elif kind is TokenKind.COMMA and depth == 1:
            spans.append((start, i))
            start = i + 1
    spans.append((start, len(tokens)))
    return spans, len(tokens)


def _all_call_args(tokens: list[Token]) -> dict[int, tuple[list[tuple[int, int]], int]]:
    """`_call_args` for every '(' and '{' at once, in one pass (nesting of any depth).

    >>> _all_call_args(code_tokens(tokenize("F(a, G(b), )")))[1]
    ([(2, 3), (4, 8), (9, 9)], 9)
    """
    found: dict[int, tuple[list[tuple[int, int]], int]] = {}
    stack: list[tuple[int, list[int]]] = []  # (open index, its top-level commas)
    for i, t in enumerate(tokens):
        if t.kind in (TokenKind.LPAREN, TokenKind.LBRACE):
            stack.append((i, []))
        elif t.kind in (TokenKind.RPAREN, TokenKind.RBRACE) and stack:
            start, commas = stack.pop()
            found[start] = (_spans(start, commas, i, closed=True), i)
        elif t.kind is TokenKind.COMMA and stack:
            stack[-1][1].append(i)
    for start, commas in stack:  # never closed: the last argument runs to the end
        found[start] = (_spans(start, commas, len(tokens), closed=False), len(tokens))
    return found


def _spans(open_idx: int, commas: list[int], end: int, *, closed: bool) -> list[tuple[int, int]]:
    bounds = [open_idx, *commas, end]
    spans = [(a + 1, b) for a, b in itertools.pairwise(bounds)]
    if closed and not commas and end == open_idx + 1:
        return []  # F(): no argument
    return spans


def _span_text(tokens: list[Token], start: int, end: int) -> str:
    """An argument as written; a long one is cut (nested calls would repeat it n^2 times)."""
    if end - start > MAX_ARG_TOKENS:
        return flat_text(tokens[start : start + MAX_ARG_TOKENS // 2]) + " …"
    return flat_text(tokens[start:end])


def resolve(expression: str, host_table: str | None, names: ModelNames) -> DaxDeps:
    """Dependencies of one DAX expression evaluated on `host_table`."""
    toks = code_tokens(tokenize(expression))
    deps = DaxDeps()
    # Pass 1: variables and extension columns ("Name" in ADDCOLUMNS etc.) are local names.
    variables: set[str] = set()
    local_columns: set[str] = set()
    for i, t in enumerate(toks):
        if t.kind is TokenKind.IDENT and t.text.upper() == "VAR" and i + 1 < len(toks):
            nxt = toks[i + 1]
            if nxt.kind is TokenKind.IDENT:
                variables.add(nxt.text.lower())
                deps.variables.append(nxt.text)
        elif (
            t.kind is TokenKind.STRING and i + 1 < len(toks) and toks[i + 1].kind is TokenKind.COMMA
        ):
            local_columns.add(t.value.lower())
    iterated: list[str] = []
    pending_unqualified: list[Token] = []
    calls = _all_call_args(toks)
    n = len(toks)
    for i, t in enumerate(toks):
        prev = toks[i - 1] if i > 0 else None
        nxt = toks[i + 1] if i + 1 < n else None
        if t.kind is TokenKind.TABLE:
            table_name = t.value
            real = names.tables.get(table_name.lower())
            if nxt is not None and nxt.kind is TokenKind.BRACKET:
                continue  # handled with the bracket
            if real:
                deps.tables.add(real)
                iterated.append(real)
            else:
                deps.unresolved.append(f"'{table_name}'")
        elif t.kind is TokenKind.IDENT:
            up = t.text.upper()
            if nxt is not None and nxt.kind is TokenKind.LPAREN:
                deps.functions.add(up)
                _note_function(up, toks, i, deps, calls)
                continue
            low = t.text.lower()
            if low in variables or up in KEYWORDS:
                continue
            if nxt is not None and nxt.kind is TokenKind.BRACKET:
                continue  # Table[Column]: handled with the bracket
            if prev is not None and prev.kind is TokenKind.IDENT and prev.text.upper() == "VAR":
                continue
            real = names.tables.get(low)
            if real:
                deps.tables.add(real)
                iterated.append(real)
        elif t.kind is TokenKind.BRACKET:
            name = t.value
            if (
                prev is not None
                and prev.kind in (TokenKind.TABLE, TokenKind.IDENT)
                and not (
                    prev.kind is TokenKind.IDENT
                    and (prev.text.lower() in variables or prev.text.upper() in RESERVED)
                )
            ):
                table_name = prev.value if prev.kind is TokenKind.TABLE else prev.text
                _qualified(table_name, name, names, deps)
                real = names.tables.get(table_name.lower())
                if real:
                    iterated.append(real)
            else:
                pending_unqualified.append(t)
    for t in pending_unqualified:
        name = t.value
        low = name.lower()
        hit = names.column(host_table, name) if host_table else None
        if hit:
            deps.columns.add(hit)
        elif low in names.measures:
            deps.measures.add(names.measures[low])
        elif low in local_columns or low.lstrip("@") in local_columns:
            continue
        else:
            found = next(
                (names.column(tb, name) for tb in iterated if names.column(tb, name)), None
            )
            if found:
                deps.columns.add(found)
                deps.row_context_columns.add(found)
            else:
                deps.unresolved.append(f"[{name}]")
    return deps


def _qualified(table_name: str, name: str, names: ModelNames, deps: DaxDeps) -> None:
    real_table = names.tables.get(table_name.lower())
    if real_table is None:
        deps.unresolved.append(f"'{table_name}'[{name}]")
        return
    hit = names.column(real_table, name)
    if hit:
        deps.columns.add(hit)
        return
    low = name.lower()
    if low in names.measures:
        deps.measures.add(names.measures[low])
        return
    deps.unresolved.append(f"'{real_table}'[{name}]")
    deps.tables.add(real_table)


def _note_function(
    up: str,
    toks: list[Token],
    i: int,
    deps: DaxDeps,
    calls: dict[int, tuple[list[tuple[int, int]], int]],
) -> None:
    if (
        up not in RELATIONSHIP_FUNCTIONS
        and up not in TIME_INTELLIGENCE
        and up not in FILTER_FUNCTIONS
    ):
        return
    spans, _ = calls[i + 1]
    args = tuple(_span_text(toks, s, e) for s, e in spans)
    use = FunctionUse(up, args, toks[i].line)
    if up in RELATIONSHIP_FUNCTIONS:
        deps.relationships.append(use)
    if up in TIME_INTELLIGENCE:
        deps.time_intelligence.append(use)
    if up in FILTER_FUNCTIONS:
        deps.filters.append(use)
