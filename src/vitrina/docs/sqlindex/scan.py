"""Last-resort token scan: object names after FROM/JOIN/INTO/UPDATE/MERGE/TRUNCATE/DELETE.

Used only where sqlglot could not parse a statement even after it was cut out of its
procedure. The result is marked partial by the caller: a scan can miss names (a table
reached through a synonym, a name built at run time) but never invents clauses.

>>> s = scan_tokens(lex("INSERT INTO #t EXEC dbo.Load @x = 1").tokens)
>>> s.kind, s.targets, s.calls
('insert', ['#t'], ['dbo.load'])
>>> merge = lex(
...     "MERGE dbo.T WITH (HOLDLOCK) AS t USING Stage.S AS s ON 1=1 "
...     "WHEN MATCHED THEN DELETE OUTPUT $action;"
... )
>>> scan_tokens(merge.tokens).targets
['dbo.t']
"""

from __future__ import annotations

import re

from vitrina.docs.sqlindex.extract import Extraction
from vitrina.docs.sqlindex.headers import read_name
from vitrina.docs.sqlindex.lexer import OP, QUOTED, STRING, WORD, Tok, lex
from vitrina.docs.sqlindex.names import from_parts
from vitrina.docs.sqlindex.statements import RESERVED

__all__ = ["lex", "looks_like_sql", "scan_tokens"]

_ROWSET_FUNCTIONS = frozenset(
    {
        "OPENQUERY",
        "OPENROWSET",
        "OPENJSON",
        "OPENXML",
        "OPENDATASOURCE",
        "STRING_SPLIT",
        "GENERATE_SERIES",
        "CHANGETABLE",
        "CONTAINSTABLE",
        "FREETEXTTABLE",
    }
)
_EXTERNAL_ROWSETS = frozenset({"OPENROWSET", "OPENQUERY", "OPENDATASOURCE"})
_LEAD_KIND = {
    "INSERT": "insert",
    "BULK": "insert",
    "UPDATE": "update",
    "DELETE": "delete",
    "MERGE": "merge",
    "TRUNCATE": "truncate",
    "EXEC": "exec",
    "EXECUTE": "exec",
}
_SQL_START = re.compile(
    r"\s*\(?\s*(SELECT|INSERT|UPDATE|DELETE|MERGE|TRUNCATE|EXEC|EXECUTE|CREATE|ALTER|DROP|WITH)\b",
    re.IGNORECASE,
)
_SQL_INSIDE = re.compile(r"\b(FROM|JOIN|INTO)\s", re.IGNORECASE)


def looks_like_sql(text: str) -> bool:
    """A string literal that probably holds SQL: it starts like a statement or names a
    FROM/JOIN/INTO.

    >>> looks_like_sql("INSERT #t (a) SELECT MAX("), looks_like_sql("Unable to load the year")
    (True, False)
    """
    return bool(_SQL_START.match(text) or _SQL_INSIDE.search(text))


def scan_tokens(tokens: list[Tok]) -> Extraction:
    """Names read and written by one statement, found by keywords alone."""
    out = Extraction()
    if not tokens:
        return out
    lead = tokens[0].up
    out.kind = _LEAD_KIND.get(lead, "select" if lead in ("SELECT", "WITH") else "other")
    aliases: dict[str, str] = {}
    alias_targets: list[str] = []
    n = len(tokens)
    i = 0
    while i < n:
        tok = tokens[i]
        w = tok.up if tok.kind == WORD else ""
        nxt = tokens[i + 1] if i + 1 < n else None
        nup = nxt.up if nxt is not None and nxt.kind == WORD else ""
        if w == "FROM" and lead == "BULK" and nxt is not None and nxt.kind == STRING:
            out.external.append(f"file '{nxt.value}' (BULK INSERT)")
            i += 2
            continue
        if w in _EXTERNAL_ROWSETS and nxt is not None and nxt.text == "(":
            end = _after_parens(tokens, i + 1)
            literal = next((t.value for t in tokens[i + 2 : end] if t.kind == STRING), "")
            out.external.append(f"{w}('{literal}')" if literal else f"{w}(...)")
            i = end
            continue
        if w in ("FROM", "JOIN", "USING", "APPLY"):
            i = _take(tokens, i + 1, out.sources, aliases)
            continue
        if w == "INTO":
            # OUTPUT ... INTO @t, SELECT ... INTO #t, INSERT INTO t, MERGE INTO t
            i = _take(tokens, i + 1, out.targets, aliases)
            if out.kind == "select":
                out.kind = "select_into"
            continue
        if w == "TRUNCATE" and nup == "TABLE":
            i = _take(tokens, i + 2, out.targets, aliases)
            continue
        ext = nup == "EXTERNAL" and i + 2 < n and tokens[i + 2].up == "TABLE"
        if w == "CREATE" and (nup == "TABLE" or ext):
            j = i + 3 if ext else i + 2
            i = _take(tokens, j, out.targets, aliases)
            if out.kind == "other":
                out.kind = "create_table"
            continue
        if w in ("INSERT", "MERGE") and nup != "INTO":
            i = _take(tokens, i + 1, out.targets, aliases)
            continue
        if w in ("UPDATE", "DELETE"):
            if nup == "FROM":
                i = _take(tokens, i + 2, out.targets, aliases)
                continue
            before = len(out.targets)
            i = _take(tokens, i + 1, out.targets, aliases)
            alias_targets.extend(out.targets[before:])
            continue
        if w in ("EXEC", "EXECUTE"):
            i = _exec(tokens, i + 1, out)
            continue
        i += 1
    # `UPDATE s ... FROM x AS s`: the written name is an alias of a source
    resolved = []
    for target in out.targets:
        real = aliases.get(target) if target in alias_targets else None
        resolved.append(real or target)
        if real and real in out.sources:
            out.sources.remove(real)
    out.targets = list(dict.fromkeys(resolved))
    out.sources = [
        s for s in dict.fromkeys(out.sources) if s not in alias_targets or s in aliases.values()
    ]
    out.calls = list(dict.fromkeys(out.calls))
    if out.kind == "insert" and out.calls and out.targets:
        out.sources.extend(c for c in out.calls if c not in out.sources)  # INSERT ... EXEC proc
    return out


def _take(tokens: list[Tok], j: int, into: list[str], aliases: dict[str, str]) -> int:
    """Read one object name at tokens[j] into `into` and record its alias; next index."""
    n = len(tokens)
    if j >= n:
        return j
    tok = tokens[j]
    if tok.kind == OP or tok.kind == STRING:
        return j  # a subquery, a value list, a column list
    if tok.kind == WORD and (tok.up in RESERVED or tok.up in _ROWSET_FUNCTIONS):
        return j
    if tok.kind == WORD and tok.text.startswith("@@"):
        return j + 1  # a system function such as @@ROWCOUNT
    parts, k = read_name(tokens, j)
    if not parts:
        return j + 1
    name = from_parts(parts)
    if not name or name.startswith("$"):
        return k  # a name completed at run time (`Stage.` + @t) or a sqlcmd $(var)
    into.append(name)
    # alias: [AS] word, skipping a WITH (hints) group
    m = k
    if m < n and tokens[m].up == "WITH" and m + 1 < n and tokens[m + 1].text == "(":
        m = _after_parens(tokens, m + 1)
    if m < n and tokens[m].up == "AS":
        m += 1
    if m < n and (
        tokens[m].kind == QUOTED or (tokens[m].kind == WORD and tokens[m].up not in RESERVED)
    ):
        aliases[from_parts([tokens[m].value])] = name
        return m + 1
    return k


def _exec(tokens: list[Tok], j: int, out: Extraction) -> int:
    n = len(tokens)
    if j < n and tokens[j].text == "(":
        out.dynamic = True
        out.kind = "dynamic" if out.kind in ("exec", "other") else out.kind
        for tok in tokens[j : _after_parens(tokens, j)]:
            if tok.kind == STRING:
                out.dynamic_literals.append(tok.value)
        return _after_parens(tokens, j)
    if (
        j + 2 < n
        and tokens[j].kind == WORD
        and tokens[j].text.startswith("@")
        and tokens[j + 1].text == "="
    ):
        j += 2  # EXEC @rc = dbo.proc
    parts, k = read_name(tokens, j)
    if not parts:
        return j + 1
    name = from_parts(parts)
    if name.rsplit(".", 1)[-1] == "sp_executesql":
        out.dynamic = True
        out.kind = "dynamic" if out.kind in ("exec", "other") else out.kind
        if k < n and tokens[k].kind == STRING:
            out.dynamic_literals.append(tokens[k].value)
    elif name.startswith("@"):
        out.dynamic = True  # EXEC @proc_name: the procedure is chosen at run time
        out.kind = "dynamic" if out.kind in ("exec", "other") else out.kind
    else:
        out.calls.append(name)
    return k


def _after_parens(tokens: list[Tok], j: int) -> int:
    depth = 0
    while j < len(tokens):
        if tokens[j].text == "(":
            depth += 1
        elif tokens[j].text == ")":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return j
