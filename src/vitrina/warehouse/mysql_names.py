"""Table and database names in the case MySQL stores them.

The catalog keeps table names lower-case (``chinook.invoice``), which PostgreSQL and DuckDB
read back unchanged; MySQL on Linux (``lower_case_table_names = 0``) compares database and
table names, and table names used as qualifiers, case-sensitively, so ``chinook.invoice``
is not ``Chinook.Invoice``. The backend reads the names it may see once per connection
and, when any differs from its lower case, puts the stored case back into each guarded
query before it runs (decision 164). Nothing else in the query changes.
"""

from __future__ import annotations

from typing import Any

import sqlglot
from sqlglot import exp

Names = dict[str, str]  # lower-case name -> stored name, for databases and for tables


def stored_names(conn: Any) -> tuple[Names, Names]:
    """(databases, ``db.table``) whose stored name is not lower-case, as the account sees them."""
    with conn.cursor() as cur:
        cur.execute(
            "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA "
            "NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys')"
        )
        rows = cur.fetchall()
    databases = {db.lower(): db for db, _ in rows if db != db.lower()}
    tables = {
        f"{db}.{t}".lower(): f"{db}.{t}" for db, t in rows if f"{db}.{t}" != f"{db}.{t}".lower()
    }
    return databases, tables


def restore_case(sql: str, databases: Names, tables: Names, current: str | None) -> str:
    """``sql`` with every table reference (and table-name qualifier) in its stored case.

    >>> restore_case("SELECT i.Total FROM chinook.invoice AS i", {"chinook": "Chinook"},
    ...              {"chinook.invoice": "Chinook.Invoice"}, None)
    'SELECT i.Total FROM Chinook.Invoice AS i'
    """
    if not databases and not tables:
        return sql
    tree = sqlglot.parse_one(sql, read="mysql")
    renamed: dict[str, str] = {}  # a table's written name -> stored name, for qualifiers
    for table in tree.find_all(exp.Table):
        db = table.db or current or ""
        stored = tables.get(f"{db}.{table.name}".lower())
        if stored:
            stored_db, _, stored_table = stored.partition(".")
            if not table.alias:
                renamed[table.name] = stored_table
            table.set("this", exp.to_identifier(stored_table, quoted=table.this.quoted))
            if table.db:
                table.set("db", exp.to_identifier(stored_db, quoted=table.args["db"].quoted))
        elif table.db and table.db.lower() in databases:
            table.set("db", exp.to_identifier(databases[table.db.lower()]))
    for column in tree.find_all(exp.Column):
        if column.table in renamed:
            column.set("table", exp.to_identifier(renamed[column.table]))
    return tree.sql(dialect="mysql")
