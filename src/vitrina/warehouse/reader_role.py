"""Create (or refresh) the read-only PostgreSQL role Vitrina connects as.

An administrator connection runs :func:`vitrina.warehouse.privileges.reader_role_sql`'s
statements; the result is the role and, when its password was set here, the URL to give
Vitrina. The role is ``<database>_reader`` unless named: roles belong to the whole server,
and one per database keeps two warehouses on a server (or two test runs) apart. An existing
role keeps its password unless a reset is asked for, so a URL printed earlier keeps
working. Used by ``vitrina demo --load-postgres`` and by the tests that connect "as the
reader role".
"""

from __future__ import annotations

import contextlib
import secrets
from dataclasses import dataclass
from typing import Literal
from urllib.parse import quote, urlsplit, urlunsplit

import psycopg
from psycopg import errors, sql

from vitrina.warehouse.pg_load import pg_conninfo
from vitrina.warehouse.privileges import inspect_postgres_role, reader_role_name

Status = Literal["created", "kept", "reset", "set"]
ROLE_FLAGS = ("rolsuper", "rolcreaterole", "rolcreatedb", "rolreplication", "rolbypassrls")


class ReaderRoleError(ValueError):
    """The named role cannot be made the reader: it is the administrator or can do more."""


@dataclass(frozen=True)
class ReaderRole:
    """The role, what happened to its password and the URL to connect with.

    ``url`` has the password only when it was set here (created, reset, or set because the
    role had none); when it was kept it has ``<password>`` in its place: the password is
    not stored anywhere by Vitrina. ``problems`` is what the role could still do beyond
    reading (an existing role granted more elsewhere), as the inspection on connect sees it.
    """

    role: str
    status: Status
    url: str
    problems: tuple[str, ...] = ()


def ensure_reader_role(
    admin_url: str,
    schemas: list[str],
    *,
    role: str | None = None,
    reset_password: bool = False,
) -> ReaderRole:
    """Make ``role`` (default ``<database>_reader``) a login role that can only SELECT from
    ``schemas``; a new password only when the role is new, has none or ``reset_password``.

    Idempotent: grants, attributes and the read-only default are (re)applied every time.
    Refuses (:class:`ReaderRoleError`) a role that is the administrator itself or has a
    role attribute: making it the reader would strip an administrator of its rights.
    """
    with psycopg.connect(pg_conninfo(admin_url), autocommit=True) as admin:
        database, admin_role = admin.execute("SELECT current_database(), current_user").fetchone()  # type: ignore[misc]
        name = role or reader_role_name(database)
        if len(name.encode("utf-8")) > 63:
            raise ReaderRoleError(
                f"role name {name!r} is longer than PostgreSQL's 63 bytes: name a shorter "
                f"one.\nимя роли {name!r} длиннее 63 байт, предела PostgreSQL: укажите короче."
            )
        ident = sql.Identifier(name)
        password: str | None = secrets.token_urlsafe(18)
        status: Status = "created"
        try:
            admin.execute(
                sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(ident, sql.Literal(password))
            )
        except (errors.DuplicateObject, errors.UniqueViolation):  # made earlier, or just now
            _refuse_unless_plain(admin, name, admin_role)
            status = "reset" if reset_password else "kept"
            if not reset_password and _has_no_password(admin, name):
                status = "set"
            if status == "kept":
                password = None
            else:
                admin.execute(
                    sql.SQL("ALTER ROLE {} PASSWORD {}").format(ident, sql.Literal(password))
                )
        admin.execute(
            sql.SQL(
                "ALTER ROLE {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS"
            ).format(ident)
        )
        admin.execute(
            sql.SQL("ALTER ROLE {} IN DATABASE {} SET default_transaction_read_only = on").format(
                ident, sql.Identifier(database)
            )
        )
        admin.execute(sql.SQL("REVOKE CREATE ON SCHEMA public FROM PUBLIC"))
        for schema in schemas:
            target = sql.Identifier(schema)
            admin.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(target, ident))
            admin.execute(
                sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA {} TO {}").format(target, ident)
            )
            admin.execute(
                sql.SQL(
                    "ALTER DEFAULT PRIVILEGES IN SCHEMA {} GRANT SELECT ON TABLES TO {}"
                ).format(target, ident)
            )
        problems = _inspect_as(admin, name)
    url = reader_url(admin_url, name, password or "PASSWORD")
    if password is None:  # kept: the user has it from when it was set
        url = url.replace(":PASSWORD@", ":<password>@", 1)
    return ReaderRole(role=name, status=status, url=url, problems=problems)


def create_reader_role(admin_url: str, schemas: list[str], *, role: str | None = None) -> str:
    """:func:`ensure_reader_role` with a fresh password every time; the URL to use.

    For callers that need a working URL now (tests, benchmarks); a URL an earlier call
    returned for the same role stops working.
    """
    return ensure_reader_role(admin_url, schemas, role=role, reset_password=True).url


def _refuse_unless_plain(admin: psycopg.Connection, name: str, admin_role: str) -> None:
    row = admin.execute(
        f"SELECT {', '.join(ROLE_FLAGS)} FROM pg_roles WHERE rolname = %s", (name,)
    ).fetchone()
    flags = [flag[3:].upper() for flag, on in zip(ROLE_FLAGS, row or (), strict=False) if on]
    if name == admin_role or flags:
        what = "the role this URL connects as" if name == admin_role else ", ".join(flags)
        what_ru = "роль, которой подключается этот URL" if name == admin_role else ", ".join(flags)
        raise ReaderRoleError(
            f"role {name!r} exists and is not a reader ({what}): making it read-only would "
            "take its rights away. Name another role (--reader-role NAME).\n"
            f"роль {name!r} уже есть и это не читатель ({what_ru}): сделать её ролью только "
            "для чтения значило бы отнять её права. Укажите другую роль (--reader-role NAME)."
        )


def _has_no_password(admin: psycopg.Connection, name: str) -> bool:
    """True when the role has no password; False when it has one or it cannot be told (only a
    superuser reads pg_authid)."""
    try:
        with admin.transaction():
            row = admin.execute(
                "SELECT rolpassword IS NULL FROM pg_authid WHERE rolname = %s", (name,)
            ).fetchone()
    except errors.InsufficientPrivilege:
        return False
    return bool(row and row[0])


def _inspect_as(admin: psycopg.Connection, name: str) -> tuple[str, ...]:
    """What the role can do beyond reading, inspected as the role (SET ROLE) in a
    transaction that is rolled back; empty when the administrator cannot become it."""
    with contextlib.suppress(psycopg.Error), admin.transaction(force_rollback=True):
        admin.execute(sql.SQL("SET LOCAL ROLE {}").format(sql.Identifier(name)))
        return inspect_postgres_role(admin).problems
    return ()


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
