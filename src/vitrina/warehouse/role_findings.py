"""Every way a PostgreSQL role can do more than read, found by one catalog query.

Used by :func:`vitrina.warehouse.privileges.inspect_postgres_role` on every new warehouse
connection, so the query is one round trip and bounded: each kind of finding stops at
:data:`PER_KIND` rows. "The role" is the connected role together with every role it may
``SET ROLE`` to or inherits from (``pg_has_role(..., 'MEMBER')``, nested memberships
included), because anything those roles may do, the connection may do too.

What counts as more than reading (decision 148): role attributes; membership in any
predefined ``pg_*`` role; ADMIN OPTION on any role; CREATE on a database or a schema;
INSERT/UPDATE/DELETE/TRUNCATE/REFERENCES/TRIGGER (MAINTAIN on 17+) or a grant option on a
table, view or foreign table (column grants included); USAGE or UPDATE on a sequence
(``nextval``/``setval`` change it); owning anything in any database; default privileges
that will grant it more than SELECT (or EXECUTE, USAGE) on future objects; EXECUTE granted
to it, and not to PUBLIC, on a built-in, extension or SECURITY DEFINER function; a
parameter privilege (SET, ALTER SYSTEM); UPDATE on a large object. TEMP on the database is
accepted: PostgreSQL grants it to PUBLIC by default, and a temporary table is private to
the session and gone with it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

PER_KIND = 10

# What each predefined role adds (PostgreSQL 14-17); any other pg_* role is refused too.
PREDEFINED = {
    "pg_read_all_data": (
        "reads every table, past the catalog",
        "читает все таблицы в обход каталога",
    ),
    "pg_write_all_data": ("writes every table", "пишет в любую таблицу"),
    "pg_read_server_files": ("reads server files", "читает файлы сервера"),
    "pg_write_server_files": ("writes server files", "пишет файлы сервера"),
    "pg_execute_server_program": ("runs programs on the server", "запускает программы на сервере"),
    "pg_signal_backend": ("cancels or ends other sessions", "прерывает чужие сеансы"),
    "pg_read_all_settings": ("reads every server setting", "читает все настройки сервера"),
    "pg_read_all_stats": ("sees other sessions' queries", "видит запросы других сеансов"),
    "pg_stat_scan_tables": ("locks tables for statistics", "блокирует таблицы ради статистики"),
    "pg_monitor": ("reads settings and other sessions", "читает настройки и чужие сеансы"),
    "pg_checkpoint": ("forces checkpoints", "запускает контрольные точки"),
    "pg_maintain": ("vacuums, reindexes, locks any table", "обслуживает и блокирует любые таблицы"),
    "pg_create_subscription": ("creates subscriptions", "создаёт подписки"),
    "pg_use_reserved_connections": ("uses reserved connections", "занимает резервные подключения"),
}
ATTRIBUTES = {
    "SUPERUSER": (
        "may read server files and run programs",
        "читает файлы сервера и запускает программы",
    ),
    "CREATEROLE": (
        "may create roles and grant itself theirs",
        "создаёт роли и выдаёт себе их права",
    ),
    "CREATEDB": ("may create databases", "создаёт базы данных"),
    "REPLICATION": ("may stream the whole server", "может снимать копию всего сервера"),
    "BYPASSRLS": ("reads past row-level security", "читает в обход политик строк"),
}
_DEFAULT_OBJECTS = {"r": "TABLES", "S": "SEQUENCES", "f": "FUNCTIONS", "T": "TYPES", "n": "SCHEMAS"}


@dataclass(frozen=True)
class Finding:
    """One way to do more than read: what, on which object, in both languages, and the fix."""

    kind: str
    object: str
    en: str
    ru: str
    fix: str


def _who(grantee: str) -> str:
    """A grantee oid of aclexplode as a name (0 is PUBLIC)."""
    return f"CASE WHEN {grantee} = 0 THEN 'PUBLIC' ELSE pg_get_userbyid({grantee}) END"


def _holders(acl: str, privs: list[str]) -> str:
    """Who of the role's roles (or PUBLIC) holds one of ``privs`` (or any grant option) in
    ``acl``: the grantee the fix revokes from; NULL when the right comes another way."""
    listed = ", ".join(f"'{p}'" for p in privs)
    return (
        f"(SELECT string_agg(DISTINCT {_who('h.grantee')}, ', ') FROM aclexplode({acl}) h "
        "WHERE (h.grantee = 0 OR h.grantee IN (SELECT oid FROM r)) "
        f"AND (h.privilege_type IN ({listed}) OR h.is_grantable))"
    )


def _any_role(check: str) -> str:
    return f"EXISTS (SELECT 1 FROM r WHERE {check})"


_NOT_MINE = "NOT IN (SELECT oid FROM r)"
_MINE_OR_PUBLIC = "(a.grantee = 0 OR a.grantee IN (SELECT oid FROM r))"
_MORE_THAN_SELECT = f"{_MINE_OR_PUBLIC} AND (a.privilege_type <> 'SELECT' OR a.is_grantable)"
# tables, views, foreign tables and sequences of others (UPDATE on pg_settings is SET, PUBLIC's)
_RELATION = (
    "c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S') AND c.relpersistence <> 't' "
    f"AND c.oid <> 'pg_catalog.pg_settings'::regclass AND c.relowner {_NOT_MINE}"
)


@functools.lru_cache(maxsize=8)
def inspection_sql(server_version: int) -> str:
    """The one query for this server version; rows: kind, object, privileges, holder, extra.

    Every section but the attributes is skipped (a one-time filter) for a superuser: it
    can do everything, and saying so once is enough.
    """
    sections = [
        "SELECT 'whoami', current_user::text, current_database()::text, NULL, NULL",
        # role attributes, of the role and of every role it may become
        """SELECT 'attribute', a.name, NULL, r.rolname, NULL
  FROM r, LATERAL (VALUES ('SUPERUSER', r.rolsuper), ('CREATEROLE', r.rolcreaterole),
    ('CREATEDB', r.rolcreatedb), ('REPLICATION', r.rolreplication),
    ('BYPASSRLS', r.rolbypassrls)) a(name, on_)
  WHERE a.on_ ORDER BY r.rolname <> current_user, 2""",
        # predefined roles, directly or through others (holder: who is the direct member)
        """SELECT 'member', r.rolname, NULL, (SELECT string_agg(m.rolname, ', ' ORDER BY
    m.rolname) FROM pg_auth_members am JOIN r m ON m.oid = am.member WHERE am.roleid = r.oid),
    NULL
  FROM r WHERE r.rolname LIKE 'pg\\_%' AND r.rolname <> 'pg_database_owner' ORDER BY 2""",
        """SELECT 'admin', g.rolname, NULL, m.rolname, NULL
  FROM pg_auth_members am JOIN r m ON m.oid = am.member JOIN pg_roles g ON g.oid = am.roleid
  WHERE am.admin_option ORDER BY 2, 4""",
        f"""SELECT 'database', quote_ident(d.datname), 'CREATE',
    {_holders("d.datacl", ["CREATE"])}, NULL
  FROM pg_database d WHERE d.datallowconn AND d.datdba {_NOT_MINE}
    AND {_any_role("has_database_privilege(r.oid, d.oid, 'CREATE')")} ORDER BY 2""",
        f"""SELECT 'schema', quote_ident(n.nspname), 'CREATE',
    {_holders("n.nspacl", ["CREATE"])}, NULL
  FROM pg_namespace n WHERE n.nspname !~ '^pg_(toast_)?temp_' AND n.nspowner {_NOT_MINE}
    AND {_any_role("has_schema_privilege(r.oid, n.oid, 'CREATE')")} ORDER BY 2""",
        # tables, views and sequences from their ACLs (and their columns'), not has_*(),
        # which looks every relation and column up: 2-5x slower on a new connection. The
        # ACLs of every role the role may become are read, so inheritance is covered;
        # rights through pg_write_all_data are its membership's finding
        f"""SELECT CASE WHEN c.relkind = 'S' THEN 'sequence' ELSE 'table' END,
    format('%I.%I', n.nspname, c.relname),
    string_agg(DISTINCT c.privilege_type || CASE WHEN c.is_grantable
      THEN ' WITH GRANT OPTION' ELSE '' END, ', '),
    string_agg(DISTINCT {_who("c.grantee")}, ', '), c.relkind::text
  FROM (SELECT c.oid, c.relname, c.relnamespace, c.relkind, a.*
        FROM pg_class c, aclexplode(c.relacl) a
        WHERE c.relacl IS NOT NULL AND {_RELATION} AND {_MORE_THAN_SELECT}
        UNION ALL  -- column grants, on the few columns with any (OFFSET 0: their
        -- relations looked up by index, not pg_class scanned twice)
        SELECT c.oid, c.relname, c.relnamespace, c.relkind, a.*
        FROM pg_attribute t, aclexplode(t.attacl) a,
          LATERAL (SELECT * FROM pg_class c WHERE c.oid = t.attrelid OFFSET 0) c
        WHERE t.attacl IS NOT NULL AND {_RELATION} AND {_MORE_THAN_SELECT}) c
  JOIN pg_namespace n ON n.oid = c.relnamespace
  GROUP BY c.oid, c.relname, c.relkind, n.nspname ORDER BY 2""",
        # ownership, as DROP OWNED sees it: every object of every database
        """SELECT 'owner', pg_describe_object(s.classid, s.objid, s.objsubid), NULL,
    pg_get_userbyid(s.refobjid), NULL
  FROM pg_shdepend s WHERE s.refclassid = 'pg_authid'::regclass AND s.deptype = 'o'
    AND s.refobjid IN (SELECT oid FROM r) AND (s.dbid = 0 OR s.dbid = (SELECT oid FROM db))
  ORDER BY 2""",
        """SELECT 'owner_elsewhere', quote_ident(d.datname), count(*)::text,
    pg_get_userbyid(s.refobjid), NULL
  FROM pg_shdepend s JOIN pg_database d ON d.oid = s.dbid
  WHERE s.refclassid = 'pg_authid'::regclass AND s.deptype = 'o'
    AND s.refobjid IN (SELECT oid FROM r) AND s.dbid <> (SELECT oid FROM db)
  GROUP BY d.datname, s.refobjid ORDER BY 2""",
        f"""SELECT 'default', d.defaclobjtype::text, string_agg(DISTINCT a.privilege_type ||
    CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END, ', '),
    {_who("a.grantee")}, quote_ident(pg_get_userbyid(d.defaclrole)) || ' ' ||
    coalesce(quote_ident(n.nspname), '')
  FROM pg_default_acl d LEFT JOIN pg_namespace n ON n.oid = d.defaclnamespace,
    aclexplode(d.defaclacl) a
  WHERE {_MINE_OR_PUBLIC} AND a.grantee <> d.defaclrole
    AND (a.is_grantable OR (d.defaclobjtype::text, a.privilege_type) NOT IN
      (('r', 'SELECT'), ('S', 'SELECT'), ('f', 'EXECUTE'), ('T', 'USAGE'), ('n', 'USAGE')))
  GROUP BY d.defaclobjtype, d.defaclrole, n.nspname, a.grantee ORDER BY 2, 5""",
        f"""SELECT 'function', p.oid::regprocedure::text, 'EXECUTE',
    string_agg(DISTINCT {_who("a.grantee")}, ', '), NULL
  FROM pg_proc p, aclexplode(p.proacl) a
  WHERE p.proacl IS NOT NULL AND a.privilege_type = 'EXECUTE' AND p.proowner {_NOT_MINE}
    AND a.grantee IN (SELECT oid FROM r WHERE rolname NOT LIKE 'pg\\_%')
    AND NOT EXISTS (SELECT 1 FROM aclexplode(p.proacl) b WHERE b.grantee = 0
      AND b.privilege_type = 'EXECUTE')
    AND (p.pronamespace = 'pg_catalog'::regnamespace OR p.prosecdef OR EXISTS (
      SELECT 1 FROM pg_depend e WHERE e.classid = 'pg_proc'::regclass AND e.objid = p.oid
        AND e.deptype = 'e'))
  GROUP BY p.oid ORDER BY 2""",
        f"""SELECT 'large_object', l.oid::text, 'UPDATE',
    string_agg(DISTINCT {_who("a.grantee")}, ', '), NULL
  FROM pg_largeobject_metadata l, aclexplode(l.lomacl) a
  WHERE a.privilege_type = 'UPDATE' AND l.lomowner {_NOT_MINE} AND {_MINE_OR_PUBLIC}
  GROUP BY l.oid ORDER BY 2""",
    ]
    if server_version >= 150000:
        sections.append(
            f"""SELECT 'parameter', p.parname::text, string_agg(a.privilege_type, ', '),
    string_agg(DISTINCT {_who("a.grantee")}, ', '), NULL
  FROM pg_parameter_acl p, aclexplode(p.paracl) a WHERE {_MINE_OR_PUBLIC}
  GROUP BY p.parname ORDER BY 2"""
        )
    body = "\nUNION ALL ".join(
        f"(SELECT * FROM ({s}) x{'' if i < 2 else ' WHERE NOT (SELECT on_ FROM su)'} "
        f"LIMIT {PER_KIND})"
        for i, s in enumerate(sections)
    )
    return f"""WITH me AS (SELECT rolsuper FROM pg_roles WHERE rolname = current_user),
r AS (
  SELECT g.oid, g.rolname, g.rolsuper, g.rolcreaterole, g.rolcreatedb, g.rolreplication,
    g.rolbypassrls
  FROM pg_roles g, me
  WHERE g.rolname = current_user OR (NOT me.rolsuper AND pg_has_role(current_user, g.oid,
    'MEMBER'))
),
su AS (SELECT coalesce(bool_or(rolsuper), false) AS on_ FROM r),
db AS (SELECT oid FROM pg_database WHERE datname = current_database())
{body}"""


def _ident(name: str) -> str:
    """A role name as SQL (PUBLIC stays a keyword)."""
    return name if name == "PUBLIC" else '"' + name.replace('"', '""') + '"'


def _from(holder: str | None, role: str) -> str:
    return ", ".join(_ident(h) for h in (holder or role).split(", "))


def _via(holder: str | None, role: str) -> tuple[str, str]:
    if not holder or holder == role:
        return "", ""
    return f" (through {holder})", f" (через {holder})"


def finding(row: tuple, role: str) -> Finding:
    """One query row as a finding: the words in English and Russian, the statement to fix it."""
    kind, obj, privs, holder, extra = row
    via_en, via_ru = _via(holder, role)
    if kind == "attribute":
        en, ru = ATTRIBUTES.get(obj, ("", ""))
        name = obj if obj == "SUPERUSER" else f"role attribute {obj}"
        return Finding(
            kind,
            obj,
            f"{name} ({en}){via_en}",
            f"атрибут роли {obj} ({ru}){via_ru}",
            f"ALTER ROLE {_ident(holder or role)} NO{obj};",
        )
    if kind == "member":
        en, ru = PREDEFINED.get(obj, ("a predefined role", "встроенная роль"))
        return Finding(
            kind,
            obj,
            f"member of {obj}: {en}{via_en}",
            f"член роли {obj}: {ru}{via_ru}",
            f"REVOKE {obj} FROM {_from(holder, role)};",
        )
    if kind == "admin":
        return Finding(
            kind,
            obj,
            f"ADMIN OPTION on role {obj} (may grant it to anyone){via_en}",
            f"ADMIN OPTION на роль {obj} (может выдать её кому угодно){via_ru}",
            f"REVOKE ADMIN OPTION FOR {_ident(obj)} FROM {_from(holder, role)};",
        )
    if kind in ("database", "schema"):
        what_ru = "базу данных" if kind == "database" else "схему"
        made_en = "schemas" if kind == "database" else "objects"
        made_ru = "схемы" if kind == "database" else "объекты"
        return Finding(
            kind,
            obj,
            f"can create {made_en} in {kind} {obj} (CREATE)",
            f"может создавать {made_ru}: CREATE на {what_ru} {obj}",
            f"REVOKE CREATE ON {kind.upper()} {obj} FROM {_from(holder, role)};",
        )
    if kind in ("table", "sequence"):
        what = {"v": "view", "m": "materialized view", "f": "foreign table"}.get(extra or "", kind)
        what_ru = {
            "table": "таблицу",
            "view": "представление",
            "sequence": "последовательность",
            "materialized view": "материализованное представление",
            "foreign table": "внешнюю таблицу",
        }[what]
        listed = privs.split(", ")
        plain = list(  # REVOKE X also takes X's grant option and X on every column
            dict.fromkeys(
                p.removesuffix(" WITH GRANT OPTION")
                for p in listed
                if p != "SELECT WITH GRANT OPTION"
            )
        )
        fixes = []
        if plain:
            target = "SEQUENCE" if kind == "sequence" else "TABLE"
            fixes.append(f"REVOKE {', '.join(plain)} ON {target} {obj} FROM {_from(holder, role)};")
        if "SELECT WITH GRANT OPTION" in listed:
            fixes.append(
                f"REVOKE GRANT OPTION FOR SELECT ON TABLE {obj} FROM {_from(holder, role)};"
            )
        effect_en = "nextval/setval change it" if kind == "sequence" else "may change it"
        effect_ru = "nextval/setval её меняют" if kind == "sequence" else "может её менять"
        return Finding(
            kind,
            obj,
            f"has {privs} on {what} {obj} ({effect_en})",
            f"есть {privs} на {what_ru} {obj} ({effect_ru})",
            " ".join(fixes),
        )
    if kind == "owner":
        return Finding(
            kind,
            obj,
            f"owns {obj} (may ALTER or DROP it){via_en}",
            f"владеет объектом {obj} (может изменить или удалить его){via_ru}",
            f"REASSIGN OWNED BY {_ident(holder or role)} TO <administrator>;",
        )
    if kind == "owner_elsewhere":
        return Finding(
            kind,
            obj,
            f"owns {privs} object(s) in database {obj}{via_en}",
            f"владеет объектами ({privs}) в базе данных {obj}{via_ru}",
            f"REASSIGN OWNED BY {_ident(holder or role)} TO <administrator>; "
            f"(connected to database {obj})",
        )
    if kind == "default":
        owner, _, schema = (extra or "").partition(" ")
        objects = _DEFAULT_OBJECTS.get(obj, obj)
        where = f" IN SCHEMA {schema}" if schema else ""
        plain = privs.replace(" WITH GRANT OPTION", "")
        return Finding(
            kind,
            f"{owner}{where} {objects}",
            f"default privileges of role {owner}{where} give {holder} {privs} on new "
            f"{objects.lower()}",
            f"права по умолчанию роли {owner}{where} дают {holder} {privs} на новые "
            f"объекты ({objects})",
            f"ALTER DEFAULT PRIVILEGES FOR ROLE {owner}{where} REVOKE {plain} ON {objects} "
            f"FROM {_from(holder, role)};",
        )
    if kind == "function":
        return Finding(
            kind,
            obj,
            f"may EXECUTE function {obj} (granted to it, not to PUBLIC){via_en}",
            f"может выполнять функцию {obj} (выдано ей, а не PUBLIC){via_ru}",
            f"REVOKE EXECUTE ON FUNCTION {obj} FROM {_from(holder, role)};",
        )
    if kind == "large_object":
        return Finding(
            kind,
            obj,
            f"has UPDATE on large object {obj}",
            f"есть UPDATE на большой объект {obj}",
            f"REVOKE UPDATE ON LARGE OBJECT {obj} FROM {_from(holder, role)};",
        )
    if kind == "parameter":
        return Finding(
            kind,
            obj,
            f"has {privs} on parameter {obj} (may change server settings)",
            f"есть {privs} на параметр {obj} (может менять настройки сервера)",
            f"REVOKE {privs} ON PARAMETER {obj} FROM {_from(holder, role)};",
        )
    return Finding(kind, obj, f"{kind} {obj}", f"{kind} {obj}", "")
