"""Least privilege at the connection: a privileged PostgreSQL role is refused, DuckDB is hardened.

Real PostgreSQL (the per-run database of the pg_url fixture) and a real DuckDB file.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb
import psycopg
import pytest

from vitrina.warehouse import Warehouse, WarehouseError
from vitrina.warehouse.privileges import inspect_postgres_role, reader_role_name
from vitrina.warehouse.reader_role import create_reader_role, reader_url


@pytest.fixture(scope="module")
def pg_dwh(pg_url: str) -> str:
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("CREATE SCHEMA IF NOT EXISTS lp; CREATE TABLE IF NOT EXISTS lp.t(a int)")
        admin.execute("TRUNCATE lp.t; INSERT INTO lp.t VALUES (1), (2), (3)")
    return pg_url


@dataclass(frozen=True)
class Role:
    """A fresh login role that can only read, its group, its own schema and its URL."""

    name: str
    group: str
    schema: str
    url: str

    def sql(self, text: str) -> str:
        return text.format(role=self.name, g=self.group, s=self.schema, db=self.database)

    @property
    def database(self) -> str:
        return self.url.rsplit("/", 1)[1]


@pytest.fixture()
def extra_role(pg_dwh: str) -> Iterator[Role]:
    """A login role with SELECT on lp.t and on its own schema's table, sequence and view, an
    EXECUTE grant on a plain function, default SELECT on future tables and TEMP (PUBLIC's);
    the test grants it one thing too many. Everything it made is dropped after."""
    suffix = uuid.uuid4().hex[:8]
    role = Role(f"vt_lp_{suffix}", f"vt_lpg_{suffix}", f"vt_lps_{suffix}", "")
    role = Role(role.name, role.group, role.schema, reader_url(pg_dwh, role.name, "x"))
    setup = """CREATE ROLE {role} LOGIN; CREATE ROLE {g} NOLOGIN;
        GRANT USAGE ON SCHEMA lp TO {role}; GRANT SELECT ON lp.t TO {role};
        CREATE SCHEMA {s}; GRANT USAGE ON SCHEMA {s} TO {role};
        CREATE TABLE {s}.x(a int PRIMARY KEY); CREATE SEQUENCE {s}.q;
        CREATE VIEW {s}.v AS SELECT a FROM {s}.x;
        GRANT SELECT ON {s}.x, {s}.q, {s}.v TO {role};
        CREATE FUNCTION {s}.twice(a int) RETURNS int LANGUAGE sql AS 'SELECT 2 * a';
        REVOKE EXECUTE ON FUNCTION {s}.twice(int) FROM PUBLIC;
        GRANT EXECUTE ON FUNCTION {s}.twice(int) TO {role};
        ALTER DEFAULT PRIVILEGES IN SCHEMA {s} GRANT SELECT ON TABLES TO {role}"""
    with psycopg.connect(pg_dwh, autocommit=True) as admin:
        admin.execute(role.sql(setup))
    yield role
    with psycopg.connect(pg_dwh, autocommit=True) as admin:
        admin.execute(
            role.sql(
                "SELECT lo_unlink(oid) FROM pg_largeobject_metadata WHERE lomowner = "
                "'{role}'::regrole OR lomacl::text LIKE '%{role}=%'"
            )
        )
        admin.execute(role.sql("DROP DATABASE IF EXISTS {role}_db"))
        admin.execute(role.sql("DROP SCHEMA {s} CASCADE"))
        for name in (role.name, role.group):
            admin.execute(f"DROP OWNED BY {name}; DROP ROLE {name}")


def test_a_superuser_is_refused_with_the_reader_role_recipe(pg_dwh: str) -> None:
    with pytest.raises(WarehouseError) as caught:
        Warehouse(pg_dwh).execute("SELECT 1")
    message = str(caught.value)
    assert caught.value.kind == "privileged"
    reader = reader_role_name(pg_dwh.rsplit("/", 1)[1])
    assert "SUPERUSER" in message and f"CREATE ROLE {reader}" in message
    assert f"GRANT SELECT ON ALL TABLES IN SCHEMA lp TO {reader}" in message
    assert "VITRINA_ALLOW_PRIVILEGED_WAREHOUSE=1" in message
    assert 'ALTER ROLE "postgres" NOSUPERUSER;' in message  # the fix, in both halves
    assert "Запросы к хранилищу от имени роли PostgreSQL 'postgres' не выполняются" in message


def test_the_override_runs_and_logs_loudly(pg_dwh: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.CRITICAL, logger="vitrina.warehouse.privileges"):
        warehouse = Warehouse(pg_dwh, allow_privileged=True)
        assert warehouse.execute("SELECT count(*) FROM lp.t").rows == [(3,)]
        warehouse.close()
    assert any(
        "VITRINA_ALLOW_PRIVILEGED_WAREHOUSE" in r.message and r.levelno == logging.CRITICAL
        for r in caplog.records
    )


def test_a_role_that_can_only_read_is_accepted(pg_dwh: str, extra_role: Role) -> None:
    """SELECT, USAGE on schemas, EXECUTE on a plain function, default SELECT and TEMP."""
    with psycopg.connect(pg_dwh) as admin:
        temp = admin.execute(
            extra_role.sql("SELECT has_database_privilege('{role}', '{db}', 'TEMP')")
        ).fetchone()
    assert temp == (True,)  # PUBLIC's TEMP is accepted: decision 148
    warehouse = Warehouse(extra_role.url)
    try:
        assert warehouse.execute("SELECT count(*) FROM lp.t").rows == [(3,)]
        assert warehouse.execute(extra_role.sql("SELECT {s}.twice(21)")).rows == [(42,)]
    finally:
        warehouse.close()


# (statement an administrator runs, what the refusal must name, the fix it must print)
TOO_MUCH = [
    ("ALTER ROLE {role} CREATEDB", "role attribute CREATEDB", 'ALTER ROLE "{role}" NOCREATEDB'),
    ("ALTER ROLE {role} CREATEROLE", "role attribute CREATEROLE", "NOCREATEROLE"),
    ("ALTER ROLE {role} REPLICATION", "role attribute REPLICATION", "NOREPLICATION"),
    ("ALTER ROLE {role} BYPASSRLS", "role attribute BYPASSRLS", "NOBYPASSRLS"),
    ("ALTER ROLE {g} SUPERUSER; GRANT {g} TO {role}", "SUPERUSER", "NOSUPERUSER"),
    ("GRANT pg_read_all_data TO {role}", "member of pg_read_all_data", "REVOKE pg_read_all_data"),
    ("GRANT pg_write_all_data TO {role}", "member of pg_write_all_data", "REVOKE"),
    ("GRANT pg_read_server_files TO {role}", "member of pg_read_server_files", "REVOKE"),
    ("GRANT pg_write_server_files TO {role}", "member of pg_write_server_files", "REVOKE"),
    ("GRANT pg_execute_server_program TO {role}", "member of pg_execute_server_program", ""),
    ("GRANT pg_signal_backend TO {role}", "member of pg_signal_backend", ""),
    ("GRANT pg_monitor TO {role}", "member of pg_read_all_settings", ""),
    (  # nested: through a group, and the fix revokes it from the group
        "GRANT pg_read_all_data TO {g}; GRANT {g} TO {role}",
        "member of pg_read_all_data: reads every table, past the catalog (through {g})",
        'REVOKE pg_read_all_data FROM "{g}"',
    ),
    (  # NOINHERIT: not its rights until SET ROLE, which is one statement away
        "ALTER ROLE {role} NOINHERIT; GRANT pg_write_all_data TO {role}",
        "member of pg_write_all_data",
        "",
    ),
    ("GRANT CREATE ON DATABASE {db} TO {role}", "can create schemas in database", "ON DATABASE"),
    ("GRANT CREATE ON SCHEMA lp TO {role}", "can create objects in schema lp", "ON SCHEMA lp"),
    (
        "GRANT CREATE ON SCHEMA {s} TO PUBLIC",
        "can create objects in schema {s}",
        "REVOKE CREATE ON SCHEMA {s} FROM PUBLIC",
    ),
    ("GRANT {g} TO {role} WITH ADMIN OPTION", "ADMIN OPTION on role {g}", "REVOKE ADMIN OPTION"),
    ("GRANT USAGE ON SEQUENCE {s}.q TO {role}", "has USAGE on sequence {s}.q", "ON SEQUENCE"),
    ("GRANT UPDATE ON SEQUENCE {s}.q TO {role}", "has UPDATE on sequence {s}.q", ""),
    ("GRANT INSERT ON lp.t TO {role}", "has INSERT on table lp.t", 'ON TABLE lp.t FROM "{role}"'),
    ("GRANT UPDATE (a) ON {s}.x TO {role}", "has UPDATE on table {s}.x", ""),
    ("GRANT DELETE ON {s}.x TO {g}; GRANT {g} TO {role}", "has DELETE on table {s}.x", '"{g}"'),
    ("GRANT TRUNCATE ON {s}.x TO PUBLIC", "has TRUNCATE on table {s}.x", "FROM PUBLIC"),
    ("GRANT REFERENCES ON {s}.x TO {role}", "has REFERENCES on table {s}.x", ""),
    ("GRANT TRIGGER ON {s}.x TO {role}", "has TRIGGER on table {s}.x", ""),
    ("GRANT INSERT ON {s}.v TO {role}", "has INSERT on view {s}.v", ""),
    (
        "GRANT SELECT ON {s}.x TO {role} WITH GRANT OPTION",
        "has SELECT WITH GRANT OPTION on table {s}.x",
        "REVOKE GRANT OPTION FOR SELECT",
    ),
    ("ALTER TABLE {s}.x OWNER TO {role}", "owns table {s}.x", 'REASSIGN OWNED BY "{role}"'),
    ("ALTER VIEW {s}.v OWNER TO {role}", "owns view {s}.v", ""),
    ("ALTER SEQUENCE {s}.q OWNER TO {role}", "owns sequence {s}.q", ""),
    ("ALTER FUNCTION {s}.twice(int) OWNER TO {role}", "owns function {s}.twice(integer)", ""),
    ("ALTER SCHEMA {s} OWNER TO {role}", "owns schema {s}", ""),
    ("CREATE TYPE {s}.mood AS ENUM ('ok'); ALTER TYPE {s}.mood OWNER TO {role}", "owns type", ""),
    ("CREATE DATABASE {role}_db OWNER {role}", "owns database {role}_db", ""),
    ("ALTER TABLE {s}.x OWNER TO {g}; GRANT {g} TO {role}", "owns table {s}.x (may", "{g}"),
    (
        "ALTER DEFAULT PRIVILEGES IN SCHEMA {s} GRANT INSERT ON TABLES TO {role}",
        "give {role} INSERT on new tables",
        "ALTER DEFAULT PRIVILEGES FOR ROLE postgres IN SCHEMA {s} REVOKE INSERT ON TABLES",
    ),
    (
        "ALTER DEFAULT PRIVILEGES GRANT USAGE ON SEQUENCES TO {role}",
        "give {role} USAGE on new sequences",
        "",
    ),
    (
        "GRANT EXECUTE ON FUNCTION pg_read_file(text) TO {role}",
        "may EXECUTE function pg_read_file(text)",
        "REVOKE EXECUTE ON FUNCTION pg_read_file(text)",
    ),
    (
        "CREATE FUNCTION {s}.wipe() RETURNS void LANGUAGE sql SECURITY DEFINER AS "
        "'DELETE FROM {s}.x'; REVOKE EXECUTE ON FUNCTION {s}.wipe() FROM PUBLIC; "
        "GRANT EXECUTE ON FUNCTION {s}.wipe() TO {role}",
        "may EXECUTE function {s}.wipe()",
        "",
    ),
    ("GRANT UPDATE ON LARGE OBJECT {lo} TO {role}", "has UPDATE on large object", "LARGE"),
    ("GRANT SET ON PARAMETER lo_compat_privileges TO {role}", "has SET on parameter", ""),
]


@pytest.mark.parametrize(("grant", "problem", "fix"), TOO_MUCH, ids=[t[1][:40] for t in TOO_MUCH])
def test_one_privilege_too_many_is_refused(
    pg_dwh: str, extra_role: Role, grant: str, problem: str, fix: str
) -> None:
    url = extra_role.url
    assert Warehouse(url).execute("SELECT count(*) FROM lp.t").rows == [(3,)]
    with psycopg.connect(pg_dwh, autocommit=True) as admin:
        if "{lo}" in grant:  # a large object of the administrator's, made for the test
            (loid,) = admin.execute("SELECT lo_create(0)").fetchone()
            grant = grant.replace("{lo}", str(loid))
        admin.execute(extra_role.sql(grant))
    with pytest.raises(WarehouseError) as caught:
        Warehouse(url).execute("SELECT 1")
    message = str(caught.value)
    assert caught.value.kind == "privileged"
    assert extra_role.sql(problem) in message
    assert extra_role.sql(fix) in message
    # the Russian half names the same object
    russian = message.split("Запросы к хранилищу", 1)[1]
    assert "исправить:" in russian and extra_role.sql(fix) in russian


def test_the_override_runs_a_privileged_role_and_names_what_it_can_do(
    pg_dwh: str, extra_role: Role, caplog: pytest.LogCaptureFixture
) -> None:
    with psycopg.connect(pg_dwh, autocommit=True) as admin:
        admin.execute(extra_role.sql("GRANT pg_read_all_data TO {role}"))
    with caplog.at_level(logging.CRITICAL, logger="vitrina.warehouse.privileges"):
        warehouse = Warehouse(extra_role.url, allow_privileged=True)
        try:
            assert warehouse.execute("SELECT count(*) FROM lp.t").rows == [(3,)]
        finally:
            warehouse.close()
    assert any(
        "member of pg_read_all_data" in r.message and r.levelno == logging.CRITICAL
        for r in caplog.records
    )


def test_the_inspection_reports_superuser_alone(pg_dwh: str) -> None:
    """Everything else follows from SUPERUSER; one line says it."""
    with psycopg.connect(pg_dwh) as conn:
        report = inspect_postgres_role(conn)
    assert report.problems == ("SUPERUSER (may read server files and run programs)",)
    assert report.role == "postgres" and report.database == pg_dwh.rsplit("/", 1)[1]


def test_the_reader_role_reads_and_cannot_switch_read_only_off(pg_dwh: str) -> None:
    warehouse = Warehouse(create_reader_role(pg_dwh, ["lp"]))
    try:
        assert warehouse.execute("SELECT count(*) FROM lp.t").rows == [(3,)]
        # the guard refuses set_config; even when it runs, it dies with the query's transaction
        assert warehouse.execute(
            "SELECT set_config('default_transaction_read_only', 'off', false)"
        ).rows == [("off",)]
        assert warehouse.execute("SHOW default_transaction_read_only").rows == [("on",)]
        for sql, error in [
            ("INSERT INTO lp.t VALUES (4)", "read-only transaction"),
            ("SELECT pg_read_file('/etc/passwd')", "permission denied"),
            ("SELECT rolpassword FROM pg_authid", "permission denied"),
        ]:
            with pytest.raises(WarehouseError, match=error):
                warehouse.execute(sql)
        assert warehouse.execute("SELECT count(*) FROM lp.t").rows == [(3,)]
    finally:
        warehouse.close()


def test_duckdb_is_hardened(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE t AS SELECT 1 AS a")
    (tmp_path / "x.csv").write_text("a\n1\n", encoding="utf-8")
    warehouse = Warehouse(f"duckdb:///{path}")
    settings = dict(
        warehouse.execute(
            "SELECT name, value FROM duckdb_settings() WHERE name IN ('enable_external_access', "
            "'lock_configuration', 'autoload_known_extensions', 'allow_community_extensions')"
        ).rows
    )
    assert settings == {
        "enable_external_access": "false",
        "lock_configuration": "true",
        "autoload_known_extensions": "false",
        "allow_community_extensions": "false",
    }
    for sql in [
        f"SELECT * FROM read_csv('{tmp_path / 'x.csv'}')",
        f"SELECT * FROM '{tmp_path / 'x.csv'}'",
        "SET enable_external_access = true",
        "SET lock_configuration = false",
        f"COPY t TO '{tmp_path / 'out.csv'}'",
        f"ATTACH '{tmp_path / 'new.duckdb'}' AS n",
        "CREATE TABLE u(a int)",
    ]:
        with pytest.raises(WarehouseError):
            warehouse.execute(sql)
    assert not (tmp_path / "out.csv").exists() and not (tmp_path / "new.duckdb").exists()
    warehouse.close()
