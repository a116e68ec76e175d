"""SQL layer: formatting and the safety guard, both built on sqlglot."""

from vitrina.sql.errors import GuardError, SqlError, SqlParseError
from vitrina.sql.format import format_sql
from vitrina.sql.guard import RULES, GuardResult, GuardViolation, guard

__all__ = [
    "RULES",
    "GuardError",
    "GuardResult",
    "GuardViolation",
    "SqlError",
    "SqlParseError",
    "format_sql",
    "guard",
]
