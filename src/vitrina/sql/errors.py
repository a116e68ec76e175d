"""Errors of the SQL layer: a small tree, each one saying where the problem is.

Shaped like ``sqlglot.errors``: callers catch :class:`SqlError` for anything from
``vitrina.sql``; a parse failure keeps the line and column sqlglot reported so that
a generator (rules or an LLM) can be told exactly what to fix.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from sqlglot.errors import ParseError, SqlglotError, TokenError

if TYPE_CHECKING:
    from vitrina.sql.guard.models import GuardViolation

_TOKEN_POSITION = re.compile(r"from (\d+):(\d+)$")


class SqlError(Exception):
    """Base class of every error raised by ``vitrina.sql``."""


class SqlParseError(SqlError):
    """SQL that sqlglot could not tokenise or parse, with its position when known.

    >>> err = SqlParseError.from_sqlglot(_parse_failure("SELECT (1"), "SELECT (1")
    >>> (err.line, err.col, err.description)
    (1, 9, 'Expecting )')
    """

    def __init__(
        self,
        description: str,
        *,
        line: int | None = None,
        col: int | None = None,
        fragment: str | None = None,
    ) -> None:
        self.description = description
        self.line = line
        self.col = col
        self.fragment = fragment
        where = f" (line {line}, column {col})" if line is not None and col is not None else ""
        super().__init__(f"{description}{where}")

    @classmethod
    def from_sqlglot(cls, error: SqlglotError, sql: str) -> SqlParseError:
        """Translate a sqlglot error, keeping the first position it names."""
        if isinstance(error, ParseError) and error.errors:
            first = error.errors[0]
            return cls(
                str(first.get("description") or "invalid SQL"),
                line=first.get("line"),
                col=first.get("col"),
                fragment=first.get("highlight") or None,
            )
        if isinstance(error, TokenError):
            return cls._from_token_error(error, sql)
        return cls(str(error).splitlines()[0] if str(error) else type(error).__name__)

    @classmethod
    def _from_token_error(cls, error: TokenError, sql: str) -> SqlParseError:
        # The tokenizer chains the precise cause ("Missing ' from 1:26": line and offset).
        cause = str(error.__cause__ or "")
        match = _TOKEN_POSITION.search(cause)
        if match is None:
            return cls("unterminated string, identifier or comment")
        line, offset = int(match.group(1)), int(match.group(2))
        col = offset - sql.rfind("\n", 0, offset)
        return cls(cause.split(" from ")[0], line=line, col=col, fragment=sql[offset : offset + 20])


class GuardError(SqlError):
    """Raised by :meth:`GuardResult.raise_for_violations` when the guard rejected the SQL."""

    def __init__(self, violations: list[GuardViolation]) -> None:
        self.violations = violations
        super().__init__("; ".join(f"{v.rule}: {v.message_en}" for v in violations))


def _parse_failure(sql: str) -> SqlglotError:
    """The sqlglot error for ``sql`` (used by the doctest above)."""
    import sqlglot

    try:
        sqlglot.parse(sql)
    except SqlglotError as error:
        return error
    raise AssertionError(f"{sql!r} parsed")
