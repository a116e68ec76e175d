"""Least privilege at the connection: what the warehouse role may do, checked on connect.

The guard decides what SQL may run; the role decides what SQL *can* do. A superuser or a
member of ``pg_read_server_files`` turns any guard gap into a file read, so Vitrina
inspects its PostgreSQL role when it connects and refuses a privileged one unless the
operator sets ``VITRINA_ALLOW_PRIVILEGED_WAREHOUSE=1`` (then it logs the risk, loudly, on
every connect). DuckDB gets the same effect from its settings (:data:`DUCKDB_HARDENING`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("vitrina.warehouse.privileges")

READER_ROLE = "vitrina_reader"
# Predefined roles that reach outside the warehouse tables: server files, programs,
# settings, other sessions, writes to every table.
DANGEROUS_ROLES = (
    "pg_read_server_files",
    "pg_write_server_files",
    "pg_execute_server_program",
    "pg_read_all_settings",
    "pg_read_all_stats",
    "pg_write_all_data",
    "pg_signal_backend",
)
ROLE_FLAGS = ("rolsuper", "rolcreaterole", "rolcreatedb", "rolreplication", "rolbypassrls")
# System schemas: their ownership and privileges are the server's business.
SYSTEM_SCHEMA_SQL = (
    "n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'"
)

# DuckDB: no files, no extensions, no configuration changes, bounded memory; the file is
# opened read-only. lock_configuration goes last: after it nothing can be changed.
DUCKDB_HARDENING: tuple[tuple[str, Any], ...] = (
    ("enable_external_access", False),
    ("allow_community_extensions", False),
    ("allow_unsigned_extensions", False),
    ("autoinstall_known_extensions", False),
    ("autoload_known_extensions", False),
    ("memory_limit", "2GB"),
    ("lock_configuration", True),
)


@dataclass(frozen=True)
class RoleReport:
    """What the connected role can do beyond reading; empty ``problems`` means least privilege."""

    role: str
    problems: tuple[str, ...]

    @property
    def privileged(self) -> bool:
        return bool(self.problems)


def inspect_postgres_role(conn: Any) -> RoleReport:
    """Flags, dangerous memberships, writable tables, owned or creatable schemas of the role."""
    problems: list[str] = []
    with conn.cursor() as cur:
        cur.execute(
            f"SELECT current_user, {', '.join(ROLE_FLAGS)} FROM pg_roles WHERE rolname = "
            "current_user"
        )
        role, *flags = cur.fetchone()
        if flags[0]:  # rolsuper: everything below is implied
            return RoleReport(
                role=role, problems=("SUPERUSER (may read server files and run programs)",)
            )
        problems += [
            f"role attribute {name[3:].upper()}"
            for name, on in zip(ROLE_FLAGS, flags, strict=True)
            if on
        ]
        cur.execute(
            "SELECT rolname FROM pg_roles WHERE rolname = ANY(%s) AND "
            "pg_has_role(current_user, oid, 'USAGE') ORDER BY rolname",
            (list(DANGEROUS_ROLES),),
        )
        problems += [f"member of {name}" for (name,) in cur.fetchall()]
        cur.execute(
            "SELECT n.nspname || '.' || c.relname FROM pg_class c JOIN pg_namespace n ON "
            "n.oid = c.relnamespace "
            f"WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND {SYSTEM_SCHEMA_SQL} AND ("
            "has_table_privilege(c.oid, 'INSERT') OR has_table_privilege(c.oid, 'UPDATE') OR "
            "has_table_privilege(c.oid, 'DELETE') OR has_table_privilege(c.oid, 'TRUNCATE')) "
            "ORDER BY 1 LIMIT 5"
        )
        problems += [f"can write table {name}" for (name,) in cur.fetchall()]
        cur.execute(
            "SELECT n.nspname, pg_has_role(current_user, n.nspowner, 'USAGE') FROM "
            f"pg_namespace n WHERE {SYSTEM_SCHEMA_SQL} "
            "AND (pg_has_role(current_user, n.nspowner, 'USAGE') OR "
            "has_schema_privilege(n.oid, 'CREATE')) ORDER BY 1 LIMIT 5"
        )
        problems += [
            f"owns schema {name}" if owner else f"can create objects in schema {name}"
            for name, owner in cur.fetchall()
        ]
    return RoleReport(role=role, problems=tuple(problems))


def reader_role_sql(
    schemas: list[str], *, role: str = READER_ROLE, password: str = "change-me"
) -> str:
    """The SQL an administrator runs once to create the read-only role Vitrina connects as."""
    lines = [
        f"CREATE ROLE {role} LOGIN PASSWORD '{password}' NOSUPERUSER NOCREATEDB "
        "NOCREATEROLE NOREPLICATION;",
        f"ALTER ROLE {role} SET default_transaction_read_only = on;",
        "REVOKE CREATE ON SCHEMA public FROM PUBLIC;",
    ]
    for schema in schemas:
        lines += [
            f"GRANT USAGE ON SCHEMA {schema} TO {role};",
            f"GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {role};",
            f"ALTER DEFAULT PRIVILEGES IN SCHEMA {schema} GRANT SELECT ON TABLES TO {role};",
        ]
    return "\n".join(lines)


def refusal_message(report: RoleReport, schemas: list[str]) -> str:
    """Why Vitrina will not run as this role, and the SQL that creates one it will run as."""
    return (
        f"refusing to query the warehouse as PostgreSQL role {report.role!r}: it can do "
        "more than read "
        f"({'; '.join(report.problems)}). Connect as a read-only role instead; an "
        "administrator creates "
        f"one with:\n\n{reader_role_sql(schemas)}\n\nthen set VITRINA_DB_URL=postgresql+psycopg://"
        f"{READER_ROLE}:<password>@<host>/<database>. To run as this role anyway (not "
        "recommended), set VITRINA_ALLOW_PRIVILEGED_WAREHOUSE=1."
    )


def warn_privileged(report: RoleReport) -> None:
    """The loud log line of the override: on every connect, at CRITICAL."""
    log.critical(
        "VITRINA_ALLOW_PRIVILEGED_WAREHOUSE is set: querying the warehouse as privileged "
        "role %r (%s). Any SQL that gets past the guard runs with these rights.",
        report.role,
        "; ".join(report.problems),
    )
