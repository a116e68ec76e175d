"""Load the Chinook PostgreSQL script into a schema of its own, with a read-only role on it.

Why: the new-user trial on PostgreSQL needs Chinook's own script (snake_case names,
TIMESTAMP and NUMERIC types) loaded where tests and benchmarks can share it, without psql.
The script starts with DROP DATABASE / CREATE DATABASE / ``\\c chinook;``: those are skipped
and the rest runs with ``search_path`` set to the schema. Vitrina refuses privileged roles,
so the load also creates a login role with USAGE + SELECT on that schema only, and the
catalog (written for schema ``chinook``, see suites/chinook_pg/) is rendered for the
run's schema name.

    python benchmarks/unseen/chinook_pg.py [--admin-url URL] [--schema NAME]
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import shutil
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
from psycopg import sql

from vitrina.warehouse.pg_load import pg_conninfo
from vitrina.warehouse.reader_role import reader_url

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT.parent / "shared" / "fixtures" / "warehouses" / "chinook" / "Chinook_PostgreSql.sql"
CATALOG = ROOT / "suites" / "chinook_pg"
CATALOG_SCHEMA = "chinook"  # the schema name suites/chinook_pg/ is written for
ADMIN_URL = os.environ.get("VITRINA_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
# statements of the script that act on the database, not on a schema: skipped
SKIPPED = re.compile(r"^\s*(DROP\s+DATABASE|CREATE\s+DATABASE|\\)", re.IGNORECASE)
MAX_STATEMENTS = 100_000  # the 1.4.5 script has about 70


@dataclass(frozen=True)
class Loaded:
    """A loaded schema: the reader role's URL (what Vitrina connects with, a libpq URL) and
    the names to drop."""

    admin_url: str
    schema: str
    role: str
    reader_url: str


def statements(text: str) -> Iterator[str]:
    """The script's statements, split on ``;`` outside quotes and comments; psql meta-commands
    (``\\c``) end at the line's end."""
    buf: list[str] = []
    i, n, count = 0, len(text), 0
    while i < n:
        ch = text[i]
        if ch == "'":  # a string literal, '' is an escaped quote
            end = i + 1
            while end < n:
                if text[end] == "'" and text[end + 1 : end + 2] != "'":
                    break
                end += 2 if text[end] == "'" else 1
            buf.append(text[i : end + 1])
            i = end + 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif text.startswith("--", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif ch == "\\" and not "".join(buf).strip():  # meta-command: to the end of the line
            end = text.find("\n", i)
            i = n if end < 0 else end
            buf = []
        elif ch == ";":
            stmt = "".join(buf).strip()
            buf = []
            i += 1
            if stmt:
                count += 1
                if count > MAX_STATEMENTS:
                    raise ValueError(f"more than {MAX_STATEMENTS} statements in the script")
                yield stmt
        else:
            buf.append(ch)
            i += 1
    tail = "".join(buf).strip()
    if tail:
        yield tail


def load(admin_url: str = ADMIN_URL, *, schema: str | None = None, script: Path = SCRIPT) -> Loaded:
    """Drop and recreate ``schema`` (default: a new unique name), run the script into it and
    create a reader role that may only read it."""
    admin_url = pg_conninfo(admin_url)
    schema = schema or f"chpg_chinook_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    role = f"{schema}_reader"
    password = secrets.token_urlsafe(18)
    text = script.read_text(encoding="utf-8")
    with psycopg.connect(admin_url) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
        conn.execute(sql.SQL("SET LOCAL search_path TO {}").format(sql.Identifier(schema)))
        for stmt in statements(text):
            if not SKIPPED.match(stmt):
                conn.execute(stmt.encode("utf-8"))
        create_reader_role(conn, schema, role, password)
    return Loaded(admin_url, schema, role, reader_url(admin_url, role, password))


def create_reader_role(conn: psycopg.Connection, schema: str, role: str, password: str) -> None:
    """A login role with USAGE on the schema and SELECT on its tables, nothing more; the schema
    is its search_path."""
    ident, name = sql.Identifier(role), sql.Identifier(schema)
    exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone()
    if exists:
        conn.execute(sql.SQL("DROP OWNED BY {}").format(ident))
        conn.execute(sql.SQL("DROP ROLE {}").format(ident))
    conn.execute(
        sql.SQL(
            "CREATE ROLE {} LOGIN PASSWORD {} NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION"
        ).format(ident, sql.Literal(password))
    )
    # before PostgreSQL 15 everyone may create in public, which Vitrina refuses (as
    # reader_role.create_reader_role does; a no-op on 15+)
    conn.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
    conn.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(name, ident))
    # the suite's reference SQL names tables unqualified, as the SQLite suite does
    conn.execute(sql.SQL("ALTER ROLE {} SET search_path TO {}").format(ident, name))
    conn.execute(sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA {} TO {}").format(name, ident))


def drop(loaded: Loaded) -> None:
    """Drop the schema and the role (the end of a test or a benchmark run)."""
    with psycopg.connect(loaded.admin_url, autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(loaded.schema))
        )
        if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (loaded.role,)).fetchone():
            conn.execute(sql.SQL("DROP OWNED BY {}").format(sql.Identifier(loaded.role)))
            conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(loaded.role)))


def render_catalog(schema: str, out: Path, source: Path = CATALOG) -> Path:
    """A copy of the catalog with its schema ``chinook`` renamed to ``schema`` (one run's name)."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    qualified = re.compile(rf"\b{CATALOG_SCHEMA}\.(?=[a-z_]+\b)")
    for path in sorted(source.glob("*.yaml")):
        (out / path.name).write_text(
            qualified.sub(f"{schema}.", path.read_text(encoding="utf-8")), encoding="utf-8"
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--admin-url", default=ADMIN_URL)
    parser.add_argument("--schema", default=CATALOG_SCHEMA)
    args = parser.parse_args()
    loaded = load(args.admin_url, schema=args.schema)
    print(f"loaded schema {loaded.schema}; read-only role {loaded.role}:\n{loaded.reader_url}")


if __name__ == "__main__":
    main()
