"""Least privilege at the connection: what the warehouse role may do, checked on connect.

The guard decides what SQL may run; the role decides what SQL *can* do. A superuser or a
member of ``pg_read_server_files`` turns any guard gap into a file read, so Vitrina
inspects its PostgreSQL role when it connects (every way it could write or read more:
:mod:`vitrina.warehouse.role_findings`) and refuses a privileged one unless the
operator sets ``VITRINA_ALLOW_PRIVILEGED_WAREHOUSE=1`` (then it logs the risk, loudly, on
every connect). DuckDB gets the same effect from its settings (:data:`DUCKDB_HARDENING`).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from vitrina.warehouse.role_findings import PER_KIND, Finding, finding, inspection_sql

log = logging.getLogger("vitrina.warehouse.privileges")

READER_ROLE = "vitrina_reader"  # the recipe's name when the database is not known

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
    """What the connected role can do beyond reading; empty ``problems`` means least privilege.

    ``problems`` are the findings in English (log lines, older callers); ``findings`` carry
    both languages and the statement that removes each.
    """

    role: str
    problems: tuple[str, ...]
    database: str = ""
    findings: tuple[Finding, ...] = ()

    @property
    def privileged(self) -> bool:
        return bool(self.problems)


def inspect_postgres_role(conn: Any) -> RoleReport:
    """Everything the role (and every role it may become) can do beyond reading; one query.

    What is looked for, and why TEMP is not: :mod:`vitrina.warehouse.role_findings`.
    """
    with conn.cursor() as cur:
        cur.execute(inspection_sql(conn.info.server_version))
        rows = cur.fetchall()
    _, role, database, _, _ = rows[0]  # the 'whoami' row comes first
    found = tuple(finding(row, role) for row in rows[1:])
    if any(f.kind == "attribute" and f.object == "SUPERUSER" for f in found):
        found = tuple(f for f in found if f.object == "SUPERUSER")[:1]  # everything else follows
    return RoleReport(
        role=role, problems=tuple(f.en for f in found), database=database, findings=found
    )


def reader_role_name(database: str) -> str:
    """``<database>_reader``, cut to PostgreSQL's 63-byte identifier limit."""
    suffix = "_reader"
    head = database.encode("utf-8")[: 63 - len(suffix)].decode("utf-8", "ignore")
    return head + suffix


def quoted_identifier(name: str) -> str:
    """A role name as SQL: bare when PostgreSQL would read it back unchanged, else quoted
    (a database named ``sales-2024`` gives the role ``"sales-2024_reader"``)."""
    if re.fullmatch(r"[a-z_][a-z0-9_$]*", name):
        return name
    return '"' + name.replace('"', '""') + '"'


def reader_role_sql(
    schemas: list[str], *, role: str = READER_ROLE, password: str = "change-me"
) -> str:
    """The SQL an administrator runs once to create the read-only role Vitrina connects as."""
    role = quoted_identifier(role)
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
    """Why Vitrina will not run as this role (English, then Russian): each finding with the
    statement that removes it, and the SQL that creates a role it will run as."""
    role = reader_role_name(report.database) if report.database else READER_ROLE
    findings = report.findings or tuple(
        Finding("", p, p, p, "") for p in report.problems
    )  # a report built by hand
    en = "\n".join(f"  - {f.en}" + (f"; fix: {f.fix}" if f.fix else "") for f in findings)
    ru = "\n".join(f"  - {f.ru}" + (f"; исправить: {f.fix}" if f.fix else "") for f in findings)
    more_en = more_ru = ""
    if len(findings) >= PER_KIND:
        more_en = f"\n  (at most {PER_KIND} findings of each kind are listed)"
        more_ru = f"\n  (показано не больше {PER_KIND} находок каждого вида)"
    return (
        f"refusing to query the warehouse as PostgreSQL role {report.role!r}: it can do "
        f"more than read:\n{en}{more_en}\n"
        "Remove these rights (an administrator runs the statements above), or connect as a "
        "read-only role; an administrator creates one with:\n\n"
        f"{reader_role_sql(schemas, role=role)}"
        f"\n\nthen set VITRINA_DB_URL=postgresql+psycopg://{role}:<password>@<host>/<database>. "
        "To run as this role anyway (not recommended), set "
        "VITRINA_ALLOW_PRIVILEGED_WAREHOUSE=1.\n\n"
        f"Запросы к хранилищу от имени роли PostgreSQL {report.role!r} не выполняются: она "
        f"может больше, чем читать:\n{ru}{more_ru}\n"
        "Отзовите эти права (администратор выполняет инструкции выше) или подключайтесь ролью "
        "только для чтения: SQL для её создания — выше, затем задайте VITRINA_DB_URL. "
        "Чтобы всё же работать от этой роли (не рекомендуется), задайте "
        "VITRINA_ALLOW_PRIVILEGED_WAREHOUSE=1."
    )


def warn_privileged(report: RoleReport) -> None:
    """The loud log line of the override: on every connect, at CRITICAL."""
    log.critical(
        "VITRINA_ALLOW_PRIVILEGED_WAREHOUSE is set: querying the warehouse as privileged "
        "role %r (%s). Any SQL that gets past the guard runs with these rights.",
        report.role,
        "; ".join(report.problems),
    )
