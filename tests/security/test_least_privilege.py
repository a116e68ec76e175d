"""Least privilege at the connection: a privileged PostgreSQL role is refused, DuckDB is hardened.

Real PostgreSQL (the per-run database of the pg_url fixture) and a real DuckDB file.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from pathlib import Path

import duckdb
import psycopg
import pytest

from vitrina.warehouse import Warehouse, WarehouseError
from vitrina.warehouse.reader_role import create_reader_role, reader_url


@pytest.fixture(scope="module")
def pg_dwh(pg_url: str) -> str:
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("CREATE SCHEMA IF NOT EXISTS lp; CREATE TABLE IF NOT EXISTS lp.t(a int)")
        admin.execute("TRUNCATE lp.t; INSERT INTO lp.t VALUES (1), (2), (3)")
    return pg_url


@pytest.fixture()
def extra_role(pg_dwh: str) -> Iterator[tuple[str, str]]:
    """A fresh login role with SELECT on lp.t; the test grants it one thing too many."""
    role = f"vitrina_lp_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_dwh, autocommit=True) as admin:
        admin.execute(f"CREATE ROLE {role} LOGIN; GRANT USAGE ON SCHEMA lp TO {role}")
        admin.execute(f"GRANT SELECT ON lp.t TO {role}")
    yield role, reader_url(pg_dwh, role, "x")
    with psycopg.connect(pg_dwh, autocommit=True) as admin:
        admin.execute(f"DROP OWNED BY {role}; DROP ROLE {role}")


def test_a_superuser_is_refused_with_the_reader_role_recipe(pg_dwh: str) -> None:
    with pytest.raises(WarehouseError) as caught:
        Warehouse(pg_dwh).execute("SELECT 1")
    message = str(caught.value)
    assert caught.value.kind == "privileged"
    assert "SUPERUSER" in message and "CREATE ROLE vitrina_reader" in message
    assert "GRANT SELECT ON ALL TABLES IN SCHEMA lp TO vitrina_reader" in message
    assert "VITRINA_ALLOW_PRIVILEGED_WAREHOUSE=1" in message


def test_the_override_runs_and_logs_loudly(pg_dwh: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.CRITICAL, logger="vitrina.warehouse.privileges"):
        warehouse = Warehouse(pg_dwh, allow_privileged=True)
        assert warehouse.execute("SELECT count(*) FROM lp.t").rows == [(3,)]
        warehouse.close()
    assert any(
        "VITRINA_ALLOW_PRIVILEGED_WAREHOUSE" in r.message and r.levelno == logging.CRITICAL
        for r in caplog.records
    )


@pytest.mark.parametrize(
    ("grant", "problem"),
    [
        ("GRANT pg_read_server_files TO {role}", "member of pg_read_server_files"),
        ("GRANT pg_monitor TO {role}", "member of pg_read_all_settings"),
        ("GRANT INSERT ON lp.t TO {role}", "can write table lp.t"),
        ("GRANT CREATE ON SCHEMA lp TO {role}", "can create objects in schema lp"),
        ("ALTER ROLE {role} CREATEDB", "role attribute CREATEDB"),
    ],
)
def test_one_privilege_too_many_is_refused(
    pg_dwh: str, extra_role: tuple[str, str], grant: str, problem: str
) -> None:
    role, url = extra_role
    assert Warehouse(url).execute("SELECT count(*) FROM lp.t").rows == [(3,)]
    with psycopg.connect(pg_dwh, autocommit=True) as admin:
        admin.execute(grant.format(role=role))
    with pytest.raises(WarehouseError, match=problem) as caught:
        Warehouse(url).execute("SELECT 1")
    assert caught.value.kind == "privileged"


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
