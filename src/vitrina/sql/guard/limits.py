"""Size and depth limits, checked on the tokens before sqlglot's recursive parser sees them.

sqlglot parses, qualifies and prints SQL recursively: about 25 Python frames per nesting
level, so a few dozen nested parentheses, calls or CASEs reach Python's recursion limit
and 3,000 of them took minutes to fail. The guard counts nesting on the token stream
(an iterative pass) and refuses what is too big or too deep before parsing; whatever
still recurses too far is caught by :func:`vitrina.sql.guard.guard` and refused too.

>>> check_limits("SELECT " + "(" * 100 + "1" + ")" * 100, "duckdb")[0].rule
'too_complex'
>>> check_limits("SELECT lower(status) FROM t", "duckdb")
[]
"""

from __future__ import annotations

from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import SqlglotError
from sqlglot.tokens import Token, TokenType

from vitrina.sql.guard.messages import violation
from vitrina.sql.guard.models import GuardViolation

MAX_SQL_CHARS = 30_000  # an analytical query is a few KB; tokenizing 30,000 chars takes < 1.5 s
MAX_TOKENS = 20_000
MAX_NESTING = 24  # parentheses, brackets, braces and CASE ... END, together
MAX_UNARY_RUN = 12  # NOT NOT NOT ..., - - - ...

OPENING = frozenset({TokenType.L_PAREN, TokenType.L_BRACKET, TokenType.L_BRACE, TokenType.CASE})
CLOSING = frozenset({TokenType.R_PAREN, TokenType.R_BRACKET, TokenType.R_BRACE, TokenType.END})
UNARY = frozenset({TokenType.NOT, TokenType.DASH, TokenType.PLUS, TokenType.TILDE})


def check_limits(sql: str, dialect: str) -> list[GuardViolation]:
    """Violations for a text that is too long, has too many tokens or nests too deep.

    A text that does not tokenize is left to the parser, which reports where it broke.
    """
    return limits_and_tokens(sql, dialect)[0]


def limits_and_tokens(sql: str, dialect: str) -> tuple[list[GuardViolation], list[Token] | None]:
    """`check_limits`, and the tokens when the text was tokenized within the limits: the
    parser takes them instead of tokenizing the text a second time."""
    if len(sql) > MAX_SQL_CHARS:
        return [_too_complex("characters", "символов", len(sql), MAX_SQL_CHARS)], None
    if (depth := bracket_depth(sql)) > MAX_NESTING:  # cheap: before the tokenizer
        return [_too_complex("nesting levels", "уровней вложенности", depth, MAX_NESTING)], None
    try:
        tokens = Dialect.get_or_raise(dialect).tokenize(sql)
    except SqlglotError:
        return [], None
    return _token_limits(tokens), tokens


def _token_limits(tokens: list[Token]) -> list[GuardViolation]:
    if len(tokens) > MAX_TOKENS:
        return [_too_complex("tokens", "лексем", len(tokens), MAX_TOKENS)]
    depth = deepest = run = longest = 0
    for token in tokens:
        kind = token.token_type
        if kind in OPENING:
            depth += 1
            deepest = max(deepest, depth)
        elif kind in CLOSING:
            depth = max(depth - 1, 0)
        run = run + 1 if kind in UNARY else 0
        longest = max(longest, run)
    if deepest > MAX_NESTING:
        return [_too_complex("nesting levels", "уровней вложенности", deepest, MAX_NESTING)]
    if longest > MAX_UNARY_RUN:
        return [
            _too_complex(
                "unary operators in a row", "унарных операторов подряд", longest, MAX_UNARY_RUN
            )
        ]
    return []


def bracket_depth(sql: str) -> int:
    """Deepest (, [ or { outside quotes and comments: one pass over the characters.

    >>> bracket_depth("SELECT f('(((', [1]) /* ((( */ -- (((")
    2
    """
    depth = deepest = 0
    i, n = 0, len(sql)
    while i < n:
        char = sql[i]
        if char in "'\"":
            end = sql.find(char, i + 1)
            i = n if end < 0 else end + 1  # a doubled quote is two strings: same depth
            continue
        if sql.startswith("--", i):
            end = sql.find("\n", i)
            i = n if end < 0 else end + 1
            continue
        if sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        if char in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]}":
            depth = max(depth - 1, 0)
        i += 1
    return deepest


def recursion_violation() -> GuardViolation:
    """What the guard says when sqlglot still recursed too deep on a text within the limits."""
    return _too_complex("nesting levels", "уровней вложенности", f">{MAX_NESTING}", MAX_NESTING)


def _too_complex(what_en: str, what_ru: str, found: int | str, limit: int) -> GuardViolation:
    return violation(
        "too_complex", None, what_en=what_en, what_ru=what_ru, found=found, limit=limit
    )
