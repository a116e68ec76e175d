"""Small rewrites that let sqlglot parse common T-SQL it rejects, before falling back to a scan.

Only meaning-free text is removed: table hints such as `WITH (TABLOCK)` change locking,
never which tables are read or written.

>>> toks = lex("INSERT Fact.Sale WITH (TABLOCK) (a) SELECT a FROM s WITH (NOLOCK)").tokens
>>> strip_table_hints(toks, "INSERT Fact.Sale WITH (TABLOCK) (a) SELECT a FROM s WITH (NOLOCK)")
'INSERT Fact.Sale (a) SELECT a FROM s'
"""

from __future__ import annotations

from vitrina.docs.sqlindex.lexer import Tok, lex

__all__ = ["TABLE_HINTS", "lex", "strip_table_hints"]

TABLE_HINTS = frozenset(
    {
        "NOLOCK",
        "TABLOCK",
        "TABLOCKX",
        "HOLDLOCK",
        "UPDLOCK",
        "ROWLOCK",
        "PAGLOCK",
        "READPAST",
        "READUNCOMMITTED",
        "READCOMMITTED",
        "READCOMMITTEDLOCK",
        "REPEATABLEREAD",
        "SERIALIZABLE",
        "XLOCK",
        "NOWAIT",
        "INDEX",
        "FORCESEEK",
        "FORCESCAN",
        "KEEPIDENTITY",
        "KEEPDEFAULTS",
        "IGNORE_CONSTRAINTS",
        "IGNORE_TRIGGERS",
        "SNAPSHOT",
        "NOEXPAND",
        "SPATIAL_WINDOW_MAX_CELLS",
    }
)


def strip_table_hints(tokens: list[Tok], text: str) -> str | None:
    """`text` (the statement spanning `tokens`) without WITH (hint, ...) groups; None if none."""
    spans: list[tuple[int, int]] = []
    n = len(tokens)
    i = 0
    while i < n - 2:
        if tokens[i].up == "WITH" and tokens[i + 1].text == "(" and tokens[i + 2].up in TABLE_HINTS:
            j, depth = i + 1, 0
            while j < n:
                depth += tokens[j].text == "("
                depth -= tokens[j].text == ")"
                if depth == 0:
                    break
                j += 1
            spans.append((tokens[i].start, tokens[min(j, n - 1)].end))
            i = j + 1
            continue
        i += 1
    if not spans:
        return None
    base = tokens[0].start
    pieces: list[str] = []
    pos = base
    for start, end in spans:
        pieces.append(text[pos - base : start - base])
        pos = end
    pieces.append(text[pos - base :])
    return " ".join(p.strip() for p in pieces if p.strip())
