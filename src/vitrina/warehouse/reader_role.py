"""Create (or refresh) the read-only PostgreSQL role Vitrina connects as.

An administrator connection runs :func:`vitrina.warehouse.privileges.reader_role_sql`'s
statements; the result is the URL to give Vitrina. Used by ``vitrina demo
--load-postgres`` and by the tests that connect "as the reader role".
"""

from __future__ import annotations

import contextlib
import secrets
from urllib.parse import quote, urlsplit, urlunsplit

import psycopg
from psycopg import errors, sql

from vitrina.warehouse.pg_load import pg_conninfo
from vitrina.warehouse.privileges import READER_ROLE


def create_reader_role(admin_url: str, schemas: list[str], *, role: str = READER_ROLE) -> str:
    """Make ``role`` a login role that can only SELECT from ``schemas``; return its URL.

    The password is new on every call (the role may exist from an earlier load; roles
    are shared by every database on the server). Idempotent otherwise.
    """
    password = secrets.token_urlsafe(18)
    ident = sql.Identifier(role)
    with psycopg.connect(pg_conninfo(admin_url), autocommit=True) as admin:
        # created earlier, or by a concurrent load: then only refreshed below
        with contextlib.suppress(errors.DuplicateObject, errors.UniqueViolation):
            admin.execute(sql.SQL("CREATE ROLE {} LOGIN").format(ident))
        admin.execute(
            sql.SQL(
                "ALTER ROLE {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION "
                "NOBYPASSRLS PASSWORD {}"
            ).format(ident, sql.Literal(password))
        )
        database = admin.execute("SELECT current_database()").fetchone()[0]
        admin.execute(
            sql.SQL("ALTER ROLE {} IN DATABASE {} SET default_transaction_read_only = on").format(
                ident, sql.Identifier(database)
            )
        )
        admin.execute(sql.SQL("REVOKE CREATE ON SCHEMA public FROM PUBLIC"))
        for schema in schemas:
            name = sql.Identifier(schema)
            admin.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(name, ident))
            admin.execute(
                sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA {} TO {}").format(name, ident)
            )
            admin.execute(
                sql.SQL(
                    "ALTER DEFAULT PRIVILEGES IN SCHEMA {} GRANT SELECT ON TABLES TO {}"
                ).format(name, ident)
            )
    return reader_url(admin_url, role, password)


def reader_url(admin_url: str, role: str, password: str) -> str:
    """``admin_url`` with its user and password replaced by the reader's (scheme kept)."""
    parts = urlsplit(admin_url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{quote(role, safe='')}:{quote(password, safe='')}@{host}"
    if parts.port:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
