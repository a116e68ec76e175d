"""Parse step: SQL text -> exactly one sqlglot expression, or the violations why not.

Statements are split by sqlglot's tokenizer, never by a regex on the raw text, so a
semicolon inside a comment or a string cannot hide or invent a statement.
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ParseError, SqlglotError
from sqlglot.tokens import Token, TokenType

from vitrina.sql.errors import SqlParseError
from vitrina.sql.guard.messages import sql_fragment, violation
from vitrina.sql.guard.models import GuardViolation

# Tokens a query can start with; a statement that fails to parse and starts with anything
# else (EXPORT DATABASE, IMPORT DATABASE, ...) is reported as "not a SELECT", not as a typo.
QUERY_START = frozenset(
    {TokenType.SELECT, TokenType.WITH, TokenType.FROM, TokenType.VALUES, TokenType.TABLE}
    | {TokenType.L_PAREN}
)


def parse_statement(
    sql: str, dialect: str, tokens: list[Token] | None = None
) -> tuple[exp.Expr | None, list[GuardViolation]]:
    """Parse ``sql`` into one statement; empty or stacked input is a ``single_statement`` violation.
    ``tokens``: the text's tokens in this dialect, when the caller has them.

    >>> parse_statement("SELECT 1; DROP TABLE t", "duckdb")[1][0].rule
    'single_statement'
    """
    try:
        parsed = (
            sqlglot.parse(sql, read=dialect)
            if tokens is None
            else Dialect.get_or_raise(dialect).parser().parse(tokens, sql)
        )
    except SqlglotError as error:
        first = _first_token(sql, dialect) if isinstance(error, ParseError) else None
        if first is not None and first.token_type not in QUERY_START:
            kind = first.text.upper()
            return None, [violation("select_only", kind, kind=kind)]
        return None, [parse_violation(SqlParseError.from_sqlglot(error, sql), dialect)]
    # A trailing semicolon yields None; a comment after it yields a bare Semicolon.
    statements = [s for s in parsed if s is not None and not isinstance(s, exp.Semicolon)]
    if len(statements) != 1:
        fragment = sql_fragment(statements[1], dialect) if len(statements) > 1 else None
        return None, [violation("single_statement", fragment, count=len(statements))]
    return statements[0], []


def _first_token(sql: str, dialect: str) -> Token | None:
    tokens = Dialect.get_or_raise(dialect).tokenize(sql)
    return tokens[0] if tokens else None


def parse_violation(error: SqlParseError, dialect: str) -> GuardViolation:
    """A ``parse_error`` violation that names line and column when sqlglot gave them."""
    if error.line is not None and error.col is not None:
        where_en = f"at line {error.line}, column {error.col}"
        where_ru = f"в строке {error.line}, столбце {error.col}"
    else:
        where_en, where_ru = "(position unknown)", "(позиция неизвестна)"
    return violation(
        "parse_error",
        error.fragment,
        dialect=dialect,
        where_en=where_en,
        where_ru=where_ru,
        description=error.description,
    )
