"""Pretty-printing SQL with sqlglot, read and written in the same dialect."""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from vitrina.sql.errors import SqlParseError


def format_sql(sql: str, dialect: str) -> str:
    """Pretty-print ``sql`` in ``dialect``; the result stays valid in that dialect.

    Comments are kept and several statements are kept apart with ``;``. Quoted identifiers
    (``"Выручка"``) and function names are left in their written case.

    >>> print(format_sql("select segment, count(*) as n from dim_client group by 1", "duckdb"))
    SELECT
      segment,
      COUNT(*) AS n
    FROM dim_client
    GROUP BY
      1

    Raises:
        SqlParseError: the SQL does not parse; it names line and column when sqlglot can.
    """
    try:
        statements = sqlglot.parse(sql, read=dialect)
    except SqlglotError as error:
        raise SqlParseError.from_sqlglot(error, sql) from error
    parts = [
        statement.sql(dialect=dialect, pretty=True, normalize_functions=False)
        for statement in statements
        if statement is not None and not isinstance(statement, exp.Semicolon)
    ]
    return ";\n\n".join(parts)
