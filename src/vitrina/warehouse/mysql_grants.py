"""Least privilege on MariaDB / MySQL: what the connected account may do beyond SELECT.

The same contract as PostgreSQL's :mod:`vitrina.warehouse.role_findings`: on every connect
Vitrina reads the account's grants and refuses an account that can write or reach past
the tables (unless ``VITRINA_ALLOW_PRIVILEGED_WAREHOUSE=1``), naming each right and the
``REVOKE`` that removes it. The grants are read with ``SHOW GRANTS`` (the account's own and,
on MariaDB, its current role's) plus ``SHOW GRANTS FOR`` each role it may ``SET ROLE`` to:
``information_schema.*_PRIVILEGES`` leave out what comes through a role.

Reading means SELECT, SHOW VIEW and USAGE (no rights at all). Everything else is a
finding: FILE reads and writes server files (``LOAD_FILE``, ``INTO OUTFILE``), SUPER and
PROCESS see or end other sessions, any write or DDL right changes data, ``WITH GRANT
OPTION`` hands rights on (decision 163).
"""

from __future__ import annotations

import re
from typing import Any

from vitrina.warehouse.privileges import RoleReport
from vitrina.warehouse.role_findings import PER_KIND, Finding

READING = frozenset({"SELECT", "SHOW VIEW", "USAGE"})
WHY = {
    "FILE": ("reads and writes server files (LOAD_FILE, INTO OUTFILE)",
             "читает и пишет файлы сервера"),
    "SUPER": ("administers the server, ends other sessions",
              "администрирует сервер, прерывает чужие сеансы"),
    "PROCESS": ("sees other sessions' queries", "видит запросы других сеансов"),
    "ALL PRIVILEGES": ("may do anything on it", "может всё"),
    "GRANT OPTION": ("may hand its rights to others", "может передавать свои права"),
}  # fmt: skip
_GRANT = re.compile(r"^GRANT (?P<privs>.+?) ON (?P<object>.+?) TO (?P<to>.+)$", re.S)
_ROLE_GRANT = re.compile(r"^GRANT (?P<roles>.+?) TO (?P<to>\S+)(?P<admin> WITH ADMIN OPTION)?$")


def split_privileges(text: str) -> list[str]:
    """``SELECT, UPDATE (`a`, `b`), INSERT`` -> the privileges, column lists kept whole."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    out.append(text[start:].strip())
    return [p for p in out if p]


def _finding(privilege: str, obj: str, grantee: str, via: str) -> Finding:
    name = privilege.split(" (", 1)[0].upper()
    en, ru = WHY.get(name, ("may change data or the schema", "может менять данные или схему"))
    through_en = f" (through role {via})" if via else ""
    through_ru = f" (через роль {via})" if via else ""
    if name == "GRANT OPTION":
        fix = f"REVOKE GRANT OPTION ON {obj} FROM {grantee};"
    else:
        fix = f"REVOKE {privilege} ON {obj} FROM {grantee};"
    return Finding(
        "grant",
        f"{privilege} ON {obj}",
        f"{privilege} on {obj}: {en}{through_en}",
        f"{privilege} на {obj}: {ru}{through_ru}",
        fix,
    )


def _grantee(to: str) -> str:
    """`` `u`@`%` IDENTIFIED BY PASSWORD '..' WITH GRANT OPTION`` -> `` `u`@`%` ``."""
    return re.split(r"\s+(?:IDENTIFIED|WITH|REQUIRE)\b", to.strip(), maxsplit=1)[0]


def grant_findings(line: str, account: str = "", via: str = "") -> list[Finding]:
    """The rights one ``SHOW GRANTS`` line gives beyond reading (none for role lines).

    The fix revokes from the line's own grantee; a grantee other than ``account`` (a role's
    line in the account's listing) is named as the way the right comes."""
    match = _GRANT.match(line.strip())
    if not match or match["privs"].upper().startswith("PROXY"):
        return []
    obj = match["object"].strip()
    grantee = _grantee(match["to"])
    if not via and account and grantee.replace("`", "").replace("'", "") != account:
        via = grantee
    found = [
        _finding(p, obj, grantee, via)
        for p in split_privileges(match["privs"])
        if p.split(" (", 1)[0].upper() not in READING
    ]
    if match["to"].rstrip().upper().endswith("WITH GRANT OPTION"):
        found.append(_finding("GRANT OPTION", obj, grantee, via))
    return found


def granted_roles(lines: list[str]) -> list[str]:
    """The roles a ``SHOW GRANTS`` listing grants (``GRANT `r1`, `r2` TO ...``)."""
    roles: list[str] = []
    for line in lines:
        if " ON " in line.upper():
            continue
        match = _ROLE_GRANT.match(line.strip())
        if match:
            roles += [r.strip() for r in match["roles"].split(",")]
    return roles


def _show(cur: Any, statement: str) -> list[str]:
    cur.execute(statement)
    return [row[0] for row in cur.fetchall()]


def _role_lines(cur: Any, role: str) -> list[str] | None:
    """A role's grants: ``SHOW GRANTS FOR`` it, or (MariaDB lets an account read only its
    enabled roles) ``SET ROLE`` it for one ``SHOW GRANTS``; None when neither works."""
    try:
        return _show(cur, f"SHOW GRANTS FOR {role}")
    except Exception:  # not allowed to look: try as the role
        pass
    try:
        cur.execute("SELECT CURRENT_ROLE()")
        current = cur.fetchone()[0]
        cur.execute(f"SET ROLE {role}")
        try:
            lines = _show(cur, "SHOW GRANTS")
        finally:
            cur.execute(
                f"SET ROLE {current}" if current and "," not in current else "SET ROLE NONE"
            )
        return lines
    except Exception:  # neither: the grant of the role is the finding
        return None


def _unreadable_role(role: str, account: str) -> Finding:
    user, _, host = account.rpartition("@")
    return Finding(
        "role",
        role,
        f"may SET ROLE {role}, whose rights cannot be read",
        f"может включить роль {role}, права которой не прочитать",
        f"REVOKE {role} FROM '{user}'@'{host}';",
    )


def inspect_mysql_account(conn: Any) -> RoleReport:
    """Everything the account (and every role granted to it) can do beyond reading."""
    with conn.cursor() as cur:
        cur.execute("SELECT CURRENT_USER(), DATABASE()")
        account, database = cur.fetchone()
        lines = _show(cur, "SHOW GRANTS")
        found = [f for line in lines for f in grant_findings(line, account)]
        for role in granted_roles(lines)[:PER_KIND]:
            role_lines = _role_lines(cur, role)
            if role_lines is None:
                found.append(_unreadable_role(role, account))
                continue
            bare = role.strip("`'")
            found += [
                f
                for line in role_lines
                if _grantee(line.rpartition(" TO ")[2]).strip("`'") == bare
                for f in grant_findings(line, via=role)
            ]
    unique = tuple(dict.fromkeys(found))[: PER_KIND * 3]
    return RoleReport(
        role=account, problems=tuple(f.en for f in unique), database=database or "", findings=unique
    )


def mysql_reader_name(database: str) -> str:
    """``<database>_reader``, cut to MySQL's 32-character user names."""
    return (database or "vitrina")[: 32 - len("_reader")] + "_reader"


def mysql_reader_sql(database: str, *, user: str, password: str = "change-me") -> str:
    """What an administrator runs once to create the account Vitrina connects as."""
    db = "`" + database.replace("`", "``") + "`"
    return (
        f"CREATE USER '{user}'@'%' IDENTIFIED BY '{password}';\n"
        f"GRANT SELECT, SHOW VIEW ON {db}.* TO '{user}'@'%';"
    )


def mysql_refusal_message(report: RoleReport) -> str:
    """Why Vitrina will not run as this account (English, then Russian), with the fixes."""
    user = mysql_reader_name(report.database)
    en = "\n".join(f"  - {f.en}; fix: {f.fix}" for f in report.findings)
    ru = "\n".join(f"  - {f.ru}; исправить: {f.fix}" for f in report.findings)
    return (
        f"refusing to query the warehouse as MySQL account {report.role!r}: it can do more "
        f"than read:\n{en}\nRemove these rights (an administrator runs the statements above), "
        "or connect as a read-only account; an administrator creates one with:\n\n"
        f"{mysql_reader_sql(report.database or '<database>', user=user)}\n\n"
        f"then set VITRINA_DB_URL=mysql://{user}:<password>@<host>/{report.database}. To run "
        "as this account anyway (not recommended), set VITRINA_ALLOW_PRIVILEGED_WAREHOUSE=1.\n\n"
        f"Запросы к хранилищу от имени учётной записи MySQL {report.role!r} не выполняются: "
        f"она может больше, чем читать:\n{ru}\nОтзовите эти права или подключайтесь учётной "
        "записью только для чтения (SQL для её создания — выше), затем задайте VITRINA_DB_URL."
    )
