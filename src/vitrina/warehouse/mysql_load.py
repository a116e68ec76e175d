"""Load data into MariaDB / MySQL as an administrator: the demo warehouse, a SQL script, and
the read-only account Vitrina then connects as (``vitrina demo --load-mysql URL``).

The demo copy goes through CSV, as the PostgreSQL load does: DuckDB writes each table to a
temp file and the server reads it with ``LOAD DATA LOCAL INFILE`` (enabled on this admin
connection only, never on the query path); a server that refuses LOCAL INFILE gets batched
INSERTs of the same rows. MySQL's DDL commits on its own, so the load is not one
transaction: a named lock (``GET_LOCK``) makes two loads into one database wait for each
other, and each table is dropped and rebuilt whole.
"""

from __future__ import annotations

import csv
import re
import secrets
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from vitrina.warehouse.mysql_backend import mysql_connect_kwargs
from vitrina.warehouse.mysql_grants import (
    grant_findings,
    inspect_mysql_account,
    mysql_reader_name,
)
from vitrina.warehouse.pg_load import SOURCE_SCHEMA, _open_source, _source_tables

Progress = Callable[[str, int, int], None]
INSERT_BATCH = 5000
LOCK_WAIT_S = 600
# LOAD DATA LOCAL refused: local_infile off on the server (1148, 3948) or the client (2068)
LOCAL_INFILE_REFUSED = frozenset({1148, 3948, 2068})

_SIMPLE_TYPES = {
    "BOOLEAN": "BOOLEAN",
    "TINYINT": "SMALLINT",
    "SMALLINT": "SMALLINT",
    "INTEGER": "INT",
    "BIGINT": "BIGINT",
    "UTINYINT": "SMALLINT",
    "USMALLINT": "INT",
    "UINTEGER": "BIGINT",
    "UBIGINT": "DECIMAL(20,0)",
    "HUGEINT": "DECIMAL(38,0)",
    "FLOAT": "FLOAT",
    "DOUBLE": "DOUBLE",
    "DATE": "DATE",
    "TIME": "TIME",
    "TIMESTAMP": "DATETIME(6)",
    "TIMESTAMP WITH TIME ZONE": "DATETIME(6)",
    "UUID": "CHAR(36)",
    "VARCHAR": "VARCHAR(255)",
}


def mysql_type(duckdb_type: str) -> str:
    """The MySQL type for a DuckDB column type; anything exotic becomes LONGTEXT.

    >>> mysql_type("DECIMAL(14,2)"), mysql_type("VARCHAR"), mysql_type("STRUCT(a INTEGER)")
    ('DECIMAL(14,2)', 'VARCHAR(255)', 'LONGTEXT')
    """
    upper = duckdb_type.upper().strip()
    if m := re.fullmatch(r"DECIMAL\((\d+),\s*(\d+)\)", upper):
        return f"DECIMAL({m[1]},{m[2]})"
    return _SIMPLE_TYPES.get(upper, "LONGTEXT")


def ident(name: str) -> str:
    """A MySQL identifier, backquoted."""
    return "`" + name.replace("`", "``") + "`"


def admin_connection(url: str, *, database: str | None = None, local_infile: bool = False) -> Any:
    """A plain PyMySQL connection as the URL's account (loads, accounts, tests): not the
    query path, which is :class:`vitrina.warehouse.mysql_backend.MySQLBackend`."""
    import pymysql

    kwargs = mysql_connect_kwargs(url, 600)
    kwargs["local_infile"] = local_infile
    if database is not None:
        kwargs["database"] = database
    return pymysql.connect(**kwargs)


def url_database(url: str, default: str = SOURCE_SCHEMA) -> str:
    """The database a URL names (``mysql://u@h/dwh`` -> ``dwh``), else ``default``."""
    from sqlalchemy.engine import make_url

    return make_url(url).database or default


def _export(tables: list, path: Path, tmp: str, progress: Progress | None) -> None:
    """Each table of the demo file to a CSV file; booleans as 0/1, NULL as \\N."""
    with _open_source(path) as src:
        src.execute("SET enable_progress_bar = false")  # no bar drawn on the user's terminal
        for done, (name, columns, _) in enumerate(tables):
            if progress:
                progress(f"export {name}", done, len(tables) * 2)
            cols = ", ".join(
                f'CAST("{c}" AS INTEGER)' if t.upper() == "BOOLEAN" else f'"{c}"'
                for c, t, _ in columns
            )
            target = Path(tmp) / f"{name}.csv"
            src.execute(
                f"COPY (SELECT {cols} FROM {SOURCE_SCHEMA}.\"{name}\") TO '{target}' "
                "(FORMAT csv, HEADER false, NULLSTR '\\N')"
            )


def _csv_rows(path: Path) -> Iterator[list[str | None]]:
    with path.open(newline="", encoding="utf-8") as handle:
        for row in csv.reader(handle):
            yield [None if v == "\\N" else v for v in row]


def _fill(conn: Any, table: str, columns: list[str], csv_path: Path) -> None:
    """LOAD DATA LOCAL INFILE, or batched INSERTs where the server refuses it."""
    import pymysql

    names = ", ".join(ident(c) for c in columns)
    with conn.cursor() as cur:
        try:
            cur.execute(
                f"LOAD DATA LOCAL INFILE %s INTO TABLE {table} CHARACTER SET utf8mb4 "
                "FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' ESCAPED BY '' "
                f"LINES TERMINATED BY '\\n' ({names})",
                (str(csv_path),),
            )
            return
        except pymysql.err.OperationalError as exc:
            if not exc.args or exc.args[0] not in LOCAL_INFILE_REFUSED:
                raise
        insert = f"INSERT INTO {table} ({names}) VALUES ({', '.join(['%s'] * len(columns))})"
        batch: list[list[str | None]] = []
        for row in _csv_rows(csv_path):
            batch.append(row)
            if len(batch) >= INSERT_BATCH:
                cur.executemany(insert, batch)
                batch = []
        if batch:
            cur.executemany(insert, batch)


def _create(cur: Any, table: str, columns: list, pk: list[str]) -> None:
    defs = [
        f"{ident(c)} {mysql_type(t)}{'' if nullable else ' NOT NULL'}" for c, t, nullable in columns
    ]
    if pk:
        defs.append(f"PRIMARY KEY ({', '.join(ident(c) for c in pk)})")
    cur.execute(f"DROP TABLE IF EXISTS {table}")
    cur.execute(f"CREATE TABLE {table} ({', '.join(defs)}) DEFAULT CHARSET=utf8mb4")


def load_demo_into_mysql(
    duckdb_path: Path, url: str, *, progress: Progress | None = None
) -> dict[str, int]:
    """Replace the demo tables in the URL's database (``dwh`` when it names none, created
    when missing) with those of the demo file; rows per table. Other tables stay."""
    duckdb_path = Path(duckdb_path)
    if not duckdb_path.is_file():
        raise FileNotFoundError(f"demo warehouse not found: {duckdb_path}")
    database = url_database(url)
    with _open_source(duckdb_path) as src:
        tables = _source_tables(src)
    counts: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="vitrina-mysqlload-") as tmp:
        _export(tables, duckdb_path, tmp, progress)
        conn = admin_connection(url, database="", local_infile=True)  # it may not exist yet
        try:
            with conn.cursor() as cur:
                cur.execute(
                    "SELECT GET_LOCK(%s, %s)", (f"vitrina.demo_load.{database}", LOCK_WAIT_S)
                )
                cur.execute(
                    f"CREATE DATABASE IF NOT EXISTS {ident(database)} CHARACTER SET utf8mb4"
                )
                cur.execute(f"USE {ident(database)}")
            for done, (name, columns, pk) in enumerate(tables, start=len(tables)):
                if progress:
                    progress(f"copy {name}", done, len(tables) * 2)
                table = f"{ident(database)}.{ident(name)}"
                with conn.cursor() as cur:
                    _create(cur, table, columns, pk)
                _fill(conn, table, [c for c, _, _ in columns], Path(tmp) / f"{name}.csv")
                with conn.cursor() as cur:
                    cur.execute(f"SELECT COUNT(*) FROM {table}")
                    counts[name] = int(cur.fetchone()[0])
        finally:
            conn.close()  # the named lock goes with the session
    if progress:
        progress("done", len(tables) * 2, len(tables) * 2)
    return counts


def run_sql_script(url: str, script: Path, *, database: str | None = None) -> int:
    """Run a SQL script file (``;``-terminated statements, as the mysql client reads it) on
    the server as the URL's account; the number of statements. Used to load Chinook."""
    count = 0
    conn = admin_connection(url, database=database)
    try:
        with conn.cursor() as cur:
            for statement in split_script(script.read_text(encoding="utf-8-sig")):
                cur.execute(statement)
                count += 1
        conn.commit()
    finally:
        conn.close()
    return count


_QUOTES = "'\"`"


def _skip_comment(text: str, i: int) -> int:
    """The index after a comment starting at ``i``, or ``i`` when none starts there."""
    if text.startswith("/*", i):
        end = text.find("*/", i + 2)
        return len(text) if end < 0 else end + 2
    if text.startswith("--", i) or text[i] == "#":
        end = text.find("\n", i)
        return len(text) if end < 0 else end
    return i


def _end_of_quote(text: str, i: int) -> int:
    """The index after the quoted string or identifier that starts at ``i``."""
    quote_char, i = text[i], i + 1
    while i < len(text):
        if text[i] == "\\" and quote_char != "`":
            i += 2
            continue
        if text[i] == quote_char:
            return i + 1
        i += 1
    return len(text)


def split_script(text: str) -> Iterator[str]:
    """The statements of a script: split at ``;`` outside quotes and comments (dropped)."""
    buf: list[str] = []
    i = 0
    while i < len(text):
        after = _skip_comment(text, i)
        if after != i:
            i = after
        elif text[i] in _QUOTES:
            end = _end_of_quote(text, i)
            buf.append(text[i:end])
            i = end
        elif text[i] == ";":
            if "".join(buf).strip():
                yield "".join(buf).strip()
            buf, i = [], i + 1
        else:
            buf.append(text[i])
            i += 1
    if "".join(buf).strip():
        yield "".join(buf).strip()


@dataclass(frozen=True)
class MySQLReader:
    """The read-only account, whether its password was set here, and the URL to use."""

    user: str
    status: str  # created, kept, reset
    url: str
    problems: tuple[str, ...] = ()


def ensure_mysql_reader(
    admin_url: str,
    database: str,
    *,
    user: str | None = None,
    reset_password: bool = False,
) -> MySQLReader:
    """Make ``user`` (default ``<database>_reader``) an account that can only SELECT from
    ``database``: SELECT and SHOW VIEW on it, every other right it had revoked. An existing
    account keeps its password unless ``reset_password``; the URL then says ``<password>``."""
    name = user or mysql_reader_name(database)
    password: str | None = secrets.token_urlsafe(18)
    conn = admin_connection(admin_url)
    account = f"{conn.escape(name)}@'%'"
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT COUNT(*) FROM mysql.user WHERE User = %s AND Host = '%%'", (name,))
            exists = bool(cur.fetchone()[0])
            _refuse_unless_plain(cur, name, account, exists)
            status = "reset" if exists and reset_password else "kept" if exists else "created"
            if status == "created":
                cur.execute(f"CREATE USER {account} IDENTIFIED BY {conn.escape(password)}")
            elif status == "reset":
                cur.execute(f"ALTER USER {account} IDENTIFIED BY {conn.escape(password)}")
            else:
                password = None
            cur.execute(f"REVOKE ALL PRIVILEGES, GRANT OPTION FROM {account}")
            cur.execute(f"GRANT SELECT, SHOW VIEW ON {ident(database)}.* TO {account}")
        conn.close()
        problems = _inspect_as(admin_url, name, password, database)
    finally:
        if conn.open:
            conn.close()
    url = reader_url(admin_url, name, password or "PASSWORD", database)
    if password is None:
        url = url.replace(":PASSWORD@", ":<password>@", 1)
    return MySQLReader(user=name, status=status, url=url, problems=problems)


class MySQLReaderError(ValueError):
    """The named account cannot be made the reader: it is the administrator or can do more."""


def _refuse_unless_plain(cur: Any, name: str, account: str, exists: bool) -> None:
    """Making an account the reader revokes everything else it has: refuse the
    administrator's own user and an existing account that can do more than read."""
    cur.execute("SELECT CURRENT_USER()")
    admin_user = str(cur.fetchone()[0]).rpartition("@")[0]
    rights: list[str] = []
    if exists:
        cur.execute(f"SHOW GRANTS FOR {account}")
        rights = [f.object for (line,) in cur.fetchall() for f in grant_findings(line)]
    if name == admin_user or rights:
        what = "the administrator's own user" if name == admin_user else ", ".join(rights[:3])
        raise MySQLReaderError(
            f"account {name!r} exists and is not a reader ({what}): making it read-only "
            "would take its rights away; name another (--reader-role NAME). / учётная "
            f"запись {name!r} уже есть и это не читатель: укажите другую (--reader-role NAME)."
        )


def _inspect_as(admin_url: str, name: str, password: str | None, database: str) -> tuple[str, ...]:
    """What the account could still do beyond reading (empty when its password is unknown)."""
    if password is None:
        return ()
    import pymysql

    conn = admin_connection(reader_url(admin_url, name, password, database), database=database)
    try:
        return inspect_mysql_account(conn).problems
    except pymysql.Error:
        return ()
    finally:
        conn.close()


def reader_url(admin_url: str, user: str, password: str, database: str) -> str:
    """``admin_url`` with the reader's user, password and database (scheme kept)."""
    parts = urlsplit(admin_url)
    host = parts.hostname or "127.0.0.1"
    netloc = f"{quote(user, safe='')}:{quote(password, safe='')}@{host}"
    if parts.port:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, f"/{database}", parts.query, parts.fragment))


def arrow_mysql_type(kind: Any) -> str:
    """The MySQL column type of an Arrow type (the engine matrix loads Arrow tables)."""
    import pyarrow as pa

    if pa.types.is_decimal(kind):
        return f"DECIMAL({kind.precision},{kind.scale})"
    for test, name in (
        ("is_boolean", "BOOLEAN"),
        ("is_int8", "SMALLINT"),
        ("is_int16", "SMALLINT"),
        ("is_int32", "INT"),
        ("is_int64", "BIGINT"),
        ("is_floating", "DOUBLE"),
        ("is_date", "DATE"),
        ("is_timestamp", "DATETIME(6)"),
        ("is_string", "VARCHAR(255)"),
    ):
        if getattr(pa.types, test)(kind):
            return name
    return "LONGTEXT"


def load_arrow_tables(
    url: str,
    database: str,
    tables: dict[str, Any],
    *,
    indexes: dict[str, set[str]] | None = None,
) -> dict[str, int]:
    """Replace ``database``'s tables of the same names (created when missing) with
    ``tables`` (name -> pyarrow Table) by batched INSERTs; rows per table. ``indexes``
    (table -> columns) get an index each: MariaDB joins unindexed tables by nested loops,
    so a star without keys on its join columns runs past any statement timeout."""
    conn = admin_connection(url, database="")
    counts: dict[str, int] = {}
    try:
        with conn.cursor() as cur:
            cur.execute(f"CREATE DATABASE IF NOT EXISTS {ident(database)} CHARACTER SET utf8mb4")
            for name, table in tables.items():
                target = f"{ident(database)}.{ident(name)}"
                defs = ", ".join(
                    f"{ident(f.name)} {arrow_mysql_type(f.type)}" for f in table.schema
                )
                cur.execute(f"DROP TABLE IF EXISTS {target}")
                cur.execute(f"CREATE TABLE {target} ({defs}) DEFAULT CHARSET=utf8mb4")
                marks = ", ".join(["%s"] * len(table.schema))
                insert = f"INSERT INTO {target} VALUES ({marks})"
                for batch in table.to_batches(max_chunksize=INSERT_BATCH):
                    rows = zip(*(c.to_pylist() for c in batch.columns), strict=True)
                    cur.executemany(insert, list(rows))
                for column in sorted((indexes or {}).get(name, ())):
                    cur.execute(
                        f"CREATE INDEX {ident('ix_' + column)} ON {target} ({ident(column)})"
                    )
                cur.execute(f"SELECT COUNT(*) FROM {target}")
                counts[name] = int(cur.fetchone()[0])
        conn.commit()
    finally:
        conn.close()
    return counts
