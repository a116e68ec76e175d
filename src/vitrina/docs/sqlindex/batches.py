"""Splitting a script into batches at `GO`, the way sqlcmd and SSMS do.

`GO` is a client command, not SQL: it counts only alone on its line (case-insensitive,
optionally followed by a repeat count), never inside a string or a comment. SQLCMD
directives (`:setvar`, `:r`, `:on error`) are dropped. Batches keep the tokens of the
whole-file lexer, so every later line number is a line of the original file.

>>> tokens = lex("SELECT 1\\ngo 3\\nSELECT 'GO'\\n").tokens
>>> [(b.line, b.count, len(b.tokens)) for b in split_batches(tokens)]
[(1, 3, 2), (3, 1, 2)]
"""

from __future__ import annotations

from dataclasses import dataclass

from vitrina.docs.sqlindex.lexer import NUMBER, OP, WORD, Tok, lex

__all__ = ["Batch", "lex", "split_batches"]


@dataclass(slots=True)
class Batch:
    """Tokens between two GO lines; `count` is the GO repeat count that closed it."""

    tokens: list[Tok]
    line: int
    count: int = 1


def split_batches(tokens: list[Tok]) -> list[Batch]:
    """Batches of a whole file's tokens; empty batches are left out."""
    batches: list[Batch] = []
    current: list[Tok] = []
    i, n = 0, len(tokens)
    while i < n:
        tok = tokens[i]
        first_on_line = i == 0 or tokens[i - 1].end_line < tok.line
        if first_on_line and tok.kind == OP and tok.text == ":" and _is_sqlcmd(tokens, i):
            i = _skip_line(tokens, i)
            continue
        if first_on_line and tok.kind == WORD and tok.up == "GO":
            count, after = _go_line(tokens, i)
            if after:
                if current:
                    batches.append(Batch(current, current[0].line, count))
                current = []
                i = after
                continue
        current.append(tok)
        i += 1
    if current:
        batches.append(Batch(current, current[0].line, 1))
    return batches


def _go_line(tokens: list[Tok], i: int) -> tuple[int, int]:
    """(count, index after the GO line) when tokens[i] is a GO line, else (1, 0)."""
    n = len(tokens)
    line = tokens[i].line
    j = i + 1
    count = 1
    if j < n and tokens[j].line == line and tokens[j].kind == NUMBER and tokens[j].text.isdigit():
        count = max(int(tokens[j].text), 1)
        j += 1
    if j < n and tokens[j].line == line:
        return 1, 0  # something else follows GO on the same line: an identifier named go
    return count, j


def _is_sqlcmd(tokens: list[Tok], i: int) -> bool:
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    return (
        nxt is not None
        and nxt.kind == WORD
        and nxt.line == tokens[i].line
        and nxt.up
        in {
            "SETVAR",
            "R",
            "ON",
            "CONNECT",
            "OUT",
            "ERROR",
            "EXIT",
            "QUIT",
            "RESET",
            "LIST",
            "SERVERLIST",
            "HELP",
            "XML",
            "PERFTRACE",
            "LISTVAR",
            "ED",
        }
    )


def _skip_line(tokens: list[Tok], i: int) -> int:
    line = tokens[i].line
    while i < len(tokens) and tokens[i].line == line:
        i += 1
    return i
