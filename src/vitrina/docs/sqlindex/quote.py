"""An expression quoted as the author wrote it: a slice of the statement text by token positions.

sqlglot re-prints expressions in its own form (`DECIMAL` -> `NUMERIC`, `INT` -> `INTEGER`,
`DATEDIFF(a, b)` -> `DATEDIFF(CAST(a AS DATETIME2), ...)`), so documents quote the file
instead. The leaves of the parsed expression (identifiers, literals, function names) carry
their offsets; the slice is widened from them over the statement's tokens to the
expression's own boundaries (a comma of the list, `SELECT`, `=`, `AS alias`, a clause
keyword) and accepted only when it parses back to the same tree.

>>> import sqlglot
>>> text = "SELECT a,\\n  CAST(x AS DECIMAL(9,2)) AS amt FROM t"
>>> tree = sqlglot.parse_one(text, read="tsql")
>>> quote(tree.expressions[1].this, text)
Quote(text='CAST(x AS DECIMAL(9,2))', line=2, exact=True)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlglot import exp

from vitrina.docs.sqlindex.lexer import NUMBER, OP, QUOTED, STRING, WORD, Tok, lex

MAX_SCAN = 20_000  # tokens walked for one expression
MAX_RETRIES = 4  # boundaries passed when a leaf without a position hides the real start

_LEFT_STOPS = frozenset({"SELECT", "DISTINCT", "SET", "VALUES", "THEN", "WITH"})
_RIGHT_STOPS = frozenset(
    {
        "FROM",
        "INTO",
        "WHERE",
        "GROUP",
        "ORDER",
        "HAVING",
        "UNION",
        "EXCEPT",
        "INTERSECT",
        "OPTION",
        "WHEN",
        "OUTPUT",
        "SELECT",
        "INSERT",
        "UPDATE",
        "DELETE",
        "MERGE",
        "AS",
        "FOR",
        "WINDOW",
        "THEN",
        "ELSE",
        "END",
    }
)
# words that continue an expression after an operand (anything else there is an alias)
_CONTINUE = frozenset(
    {
        "OVER",
        "COLLATE",
        "IS",
        "NOT",
        "IN",
        "LIKE",
        "BETWEEN",
        "AND",
        "OR",
        "ESCAPE",
        "AT",
        "WITHIN",
        "NULL",
    }
)


@dataclass(frozen=True, slots=True)
class Quote:
    """`text` as written (exact) or sqlglot's rendering (not exact); `line` is 1-based in the
    quoted statement."""

    text: str
    line: int
    exact: bool


def quote(expression: exp.Expr, text: str) -> Quote:
    """The expression as `text` writes it, else sqlglot's T-SQL rendering marked not exact."""
    found = _slice(expression, text) if text else None
    if found is not None:
        return found
    line = min((n.meta["line"] for n in expression.walk() if "line" in n.meta), default=1)
    return Quote(expression.sql(dialect="tsql"), int(line), False)


def place_quotes(assignments: list[Any], parsed: str, original: str, first_line: int) -> None:
    """Make quote lines file lines. When sqlglot read a repaired text (table hints removed),
    a quote counts as the author's only where the original statement holds it verbatim."""
    for item in [x for a in assignments for x in (a, *a.steps)]:
        if parsed == original:
            item.line = first_line + max(0, item.line - 1)
            continue
        at = original.find(item.expression) if item.exact else -1
        if at < 0:
            item.exact = False
            item.line = first_line
        else:
            item.line = first_line + original.count("\n", 0, at)


@lru_cache(maxsize=64)
def _tokens(text: str) -> tuple[Tok, ...]:
    return tuple(lex(text).tokens)


def _slice(expression: exp.Expr, text: str) -> Quote | None:
    toks = _tokens(text)
    spans = [
        (n.meta["start"], n.meta["end"])
        for n in expression.walk()
        if "start" in n.meta and "end" in n.meta
    ] + _variable_spans(expression, toks)
    if not spans:
        return None
    lo, hi = min(a for a, _ in spans), max(b for _, b in spans)
    first = next((k for k, t in enumerate(toks) if t.end > lo), None)
    last = next((k for k in range(len(toks) - 1, -1, -1) if toks[k].start <= hi), None)
    if first is None or last is None or last < first:
        return None
    nested = sum(1 for _ in expression.find_all(exp.Select))
    for passed in range(MAX_RETRIES):  # leaves without positions: a stop may be inside
        start = _left(toks, first, nested, passed)
        end = _right(toks, start, last)
        candidate = text[toks[start].start : toks[end].end]
        if _same(candidate, expression):
            return Quote(candidate, toks[start].line, True)
        if start == 0:
            break
    return None


def _variable_spans(expression: exp.Expr, toks: tuple[Tok, ...]) -> list[tuple[int, int]]:
    """`@v` carries no position in sqlglot: a variable written once in the statement (or
    once between the neighbouring items of the same list) has one."""
    lo, hi = _between_siblings(expression)
    out: list[tuple[int, int]] = []
    for node in expression.find_all(exp.Parameter):
        name = "@" + node.name.upper()
        hits = [t for t in toks if t.up == name]
        if len(hits) > 1:
            hits = [t for t in hits if lo < t.start and t.end <= hi]
        if len(hits) == 1:
            out.append((hits[0].start, hits[0].end - 1))
    return out


def _between_siblings(expression: exp.Expr) -> tuple[int, int]:
    """Offsets the item must lie between: the end of the list item before it and the start of
    the one after it (projections, SET items, VALUES), where those carry positions."""
    item: exp.Expr = expression
    while item.parent is not None and isinstance(item.parent, (exp.Alias, exp.EQ)):
        item = item.parent
    siblings = item.parent.expressions if item.parent is not None else []
    if item not in siblings:
        return -1, 1 << 62
    k = next(i for i, x in enumerate(siblings) if x is item)
    before = [_ends(x)[1] for x in siblings[:k] if _ends(x)[1] >= 0]
    after = [_ends(x)[0] for x in siblings[k + 1 :] if _ends(x)[0] >= 0]
    return (max(before) if before else -1), (min(after) if after else 1 << 62)


def _ends(node: exp.Expr) -> tuple[int, int]:
    spans = [(n.meta["start"], n.meta["end"]) for n in node.walk() if "start" in n.meta]
    if not spans:
        return -1, -1
    return min(a for a, _ in spans), max(b for _, b in spans)


def _left(toks: tuple[Tok, ...], k: int, nested: int, passed: int) -> int:
    """The first token of the expression, walking left from its leftmost leaf over `passed`
    boundaries (a comma inside `CONVERT(INT, @v)` looks like one)."""
    depth = 0
    selects = nested  # SELECT keywords of subqueries inside the expression
    steps = 0
    while k > 0 and steps < MAX_SCAN:
        steps += 1
        prev = toks[k - 1]
        if prev.kind == OP and prev.text == ")":
            depth += 1
        elif prev.kind == OP and prev.text == "(":
            if depth == 0 and k >= 2 and toks[k - 2].up == "VALUES":
                return k
            depth = max(0, depth - 1)
        elif depth == 0 and _left_stop(prev):
            if prev.up == "SELECT" and selects > 0:
                selects -= 1
            elif passed > 0:
                passed -= 1
            else:
                return _skip_top(toks, k)
        k -= 1
    return k


def _left_stop(tok: Tok) -> bool:
    if tok.kind == OP:
        return tok.text in (",", "=", ";")
    return tok.kind == WORD and tok.up in _LEFT_STOPS


def _skip_top(toks: tuple[Tok, ...], k: int) -> int:
    """`SELECT TOP (10) x`: the TOP clause belongs to the SELECT, not to the expression."""
    if toks[k].up != "TOP":
        return k
    k += 1
    if k < len(toks) and toks[k].text == "(":
        depth = 0
        while k < len(toks):
            depth += {"(": 1, ")": -1}.get(toks[k].text, 0)
            k += 1
            if depth == 0:
                break
    elif k < len(toks):
        k += 1
    while k < len(toks) and toks[k].up in ("PERCENT", "WITH", "TIES"):
        k += 1
    return k


def _right(toks: tuple[Tok, ...], start: int, last: int) -> int:
    """The last token of the expression: past its rightmost leaf to its own boundary."""
    depth = case = 0
    k = start
    end = start
    while k < len(toks) and k - start < MAX_SCAN:
        tok = toks[k]
        if k > last and depth == 0 and case == 0 and _right_stop(tok, toks[k - 1]):
            return end
        if tok.kind == OP and tok.text in ("(", ")"):
            depth += 1 if tok.text == "(" else -1
            if depth < 0:
                return end
        elif tok.up == "CASE":
            case += 1
        elif tok.up == "END" and case > 0:
            case -= 1
        end = k
        k += 1
    return end


def _right_stop(tok: Tok, prev: Tok) -> bool:
    if tok.kind == OP:
        return tok.text in (",", ";", "=")
    if tok.kind == WORD and tok.up in _RIGHT_STOPS:
        return True
    if tok.kind in (WORD, QUOTED) and tok.up not in _CONTINUE:
        return prev.kind in (WORD, QUOTED, NUMBER, STRING) or prev.text == ")"
    return False


def _same(candidate: str, expression: exp.Expr) -> bool:
    import sqlglot

    try:
        parsed = sqlglot.parse_one(f"SELECT {candidate}", read="tsql")
    except Exception:  # not an expression on its own
        return False
    if not isinstance(parsed, exp.Select) or len(parsed.expressions) != 1:
        return False
    got = parsed.expressions[0]
    return got.sql(dialect="tsql") == expression.sql(dialect="tsql")
