"""MariaDB / MySQL as a warehouse (issue 38): read-only account, grants check, timeouts, the
byte budget, introspection and `vitrina demo --load-mysql`, on the real server.

The server tests skip with the reason when MariaDB is not reachable (fail under CI=true);
the parsing tests need no server.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import cli_main

from vitrina.warehouse import Warehouse
from vitrina.warehouse.engine import WarehouseError
from vitrina.warehouse.introspect import introspect
from vitrina.warehouse.mysql_backend import mysql_connect_kwargs, timeout_statement
from vitrina.warehouse.mysql_grants import grant_findings, granted_roles, split_privileges
from vitrina.warehouse.mysql_load import (
    admin_connection,
    ensure_mysql_reader,
    load_demo_into_mysql,
    split_script,
)
from vitrina.warehouse.mysql_names import restore_case

# ------------------------------------------------------------------ without a server


def test_urls_become_pymysql_arguments() -> None:
    kwargs = mysql_connect_kwargs(
        "mysql+pymysql://bi:p%40ss@db.example:3307/sales?charset=utf8", 30
    )
    assert (kwargs["host"], kwargs["port"], kwargs["user"], kwargs["password"]) == (
        "db.example",
        3307,
        "bi",
        "p@ss",
    )
    assert (kwargs["database"], kwargs["charset"]) == ("sales", "utf8")
    assert kwargs["local_infile"] is False and kwargs["client_flag"] == 0  # no multi-statements
    assert kwargs["read_timeout"] == 45  # the server's own limit first, the socket's after
    plain = mysql_connect_kwargs("mariadb://reader@127.0.0.1/dwh?unix_socket=/run/m.sock", 5)
    assert (plain["port"], plain["unix_socket"], plain["charset"]) == (
        3306,
        "/run/m.sock",
        "utf8mb4",
    )


def test_the_demo_goes_into_the_urls_database_or_dwh() -> None:
    from vitrina.warehouse.mysql_load import mysql_type, url_database

    assert url_database("mysql://root@db:3306/sales") == "sales"
    assert url_database("mysql://root@db:3306") == "dwh"
    assert (mysql_type("BOOLEAN"), mysql_type("TIMESTAMP"), mysql_type("HUGEINT")) == (
        "BOOLEAN",
        "DATETIME(6)",
        "DECIMAL(38,0)",
    )


def test_timeout_statement_per_server() -> None:
    assert timeout_statement(True, 2.5) == "SET SESSION max_statement_time = 2.500"
    assert timeout_statement(False, 2.5) == "SET SESSION max_execution_time = 2500"


def test_grant_lines_beyond_reading_are_findings() -> None:
    account = "bi@%"
    lines = {
        "GRANT FILE ON *.* TO `bi`@`%`": ["FILE ON *.*"],
        "GRANT PROCESS, SUPER ON *.* TO `bi`@`%` IDENTIFIED BY PASSWORD '*AB'": [
            "PROCESS ON *.*",
            "SUPER ON *.*",
        ],
        "GRANT SELECT, INSERT ON `dwh`.* TO `bi`@`%`": ["INSERT ON `dwh`.*"],
        "GRANT SELECT (`a`, `b`), UPDATE (`a`) ON `dwh`.`t` TO `bi`@`%`": [
            "UPDATE (`a`) ON `dwh`.`t`"
        ],
        "GRANT SELECT ON `dwh`.* TO `bi`@`%` WITH GRANT OPTION": ["GRANT OPTION ON `dwh`.*"],
        "GRANT DELETE ON `dwh`.* TO `writers`": ["DELETE ON `dwh`.*"],
    }
    for line, expected in lines.items():
        found = grant_findings(line, account)
        assert [f.object for f in found] == expected, line
        assert all(f.fix.startswith("REVOKE ") and f.en and f.ru for f in found)
    file_fix = grant_findings("GRANT FILE ON *.* TO `bi`@`%`", account)[0]
    assert file_fix.fix == "REVOKE FILE ON *.* FROM `bi`@`%`;"
    assert "server files" in file_fix.en
    via_role = grant_findings("GRANT DELETE ON `dwh`.* TO `writers`", account)[0]
    assert "through role `writers`" in via_role.en and via_role.fix.endswith("FROM `writers`;")


def test_reading_grants_are_not_findings() -> None:
    for line in (
        "GRANT USAGE ON *.* TO `bi`@`%` IDENTIFIED BY PASSWORD '*AB'",
        "GRANT SELECT, SHOW VIEW ON `dwh`.* TO `bi`@`%`",
        "GRANT SELECT (`a`) ON `dwh`.`t` TO `bi`@`%`",
        "GRANT `readers` TO `bi`@`%`",
        "GRANT PROXY ON ''@'%' TO 'bi'@'%'",
    ):
        assert grant_findings(line, "bi@%") == [], line
    assert granted_roles(["GRANT `r1`, `r2` TO `bi`@`%`", "GRANT SELECT ON *.* TO `bi`@`%`"]) == [
        "`r1`",
        "`r2`",
    ]
    assert split_privileges("SELECT (`a`, `b`), INSERT") == ["SELECT (`a`, `b`)", "INSERT"]


def test_script_splitting_respects_quotes_and_comments() -> None:
    script = (
        "/* a; b */ CREATE TABLE `x;y` (a INT);\n-- c; d\n"
        "INSERT INTO t VALUES ('it''s; ok', \"q;\");\n# e;\nSELECT 1"
    )
    assert list(split_script(script)) == [
        "CREATE TABLE `x;y` (a INT)",
        "INSERT INTO t VALUES ('it''s; ok', \"q;\")",
        "SELECT 1",
    ]


def test_stored_case_restores_table_names_only() -> None:
    sql = (
        "SELECT invoice.Total, i.BillingCountry FROM chinook.invoice "
        "JOIN chinook.invoiceline AS i ON i.InvoiceId = invoice.InvoiceId"
    )
    out = restore_case(
        sql,
        {"chinook": "Chinook"},
        {"chinook.invoice": "Chinook.Invoice", "chinook.invoiceline": "Chinook.InvoiceLine"},
        None,
    )
    assert out == (
        "SELECT Invoice.Total, i.BillingCountry FROM Chinook.Invoice "
        "JOIN Chinook.InvoiceLine AS i ON i.InvoiceId = Invoice.InvoiceId"
    )


# ------------------------------------------------------------------ on the real server


def _admin(url: str) -> Any:
    return admin_connection(url)


@pytest.fixture(scope="module")
def small_db(mysql_url: str) -> Iterator[str]:
    """The run's database with two small tables; yields the admin URL."""
    with _admin(mysql_url) as conn, conn.cursor() as cur:
        cur.execute(
            "CREATE TABLE IF NOT EXISTS region (region_id INT PRIMARY KEY, name VARCHAR(50))"
        )
        cur.execute("DELETE FROM region")
        cur.executemany("INSERT INTO region VALUES (%s, %s)", [(i, f"R{i}") for i in range(1, 13)])
        cur.execute(
            "CREATE TABLE IF NOT EXISTS Sales (sale_id INT PRIMARY KEY, region_id INT, "
            "amount DECIMAL(10,2), sold_at DATETIME)"
        )
        cur.execute("DELETE FROM Sales")
        cur.executemany(
            "INSERT INTO Sales VALUES (%s, %s, %s, %s)",
            [
                (i, i % 12 + 1, i * 1.5, f"2024-{i % 12 + 1:02d}-{i % 28 + 1:02d} 10:00:00")
                for i in range(1, 3001)
            ],
        )
        conn.commit()
    yield mysql_url


@pytest.fixture(scope="module")
def reader_url(small_db: str) -> str:
    database = small_db.rsplit("/", 1)[1]
    return ensure_mysql_reader(small_db, database, reset_password=True).url


@pytest.mark.mysql
def test_reader_reads_and_nothing_else(reader_url: str, small_db: str) -> None:
    database = small_db.rsplit("/", 1)[1]
    wh = Warehouse(reader_url, timeout_s=5)
    try:
        result = wh.execute(f"SELECT COUNT(*), SUM(amount) FROM {database}.Sales")
        assert result.rows[0][0] == 3000
        wh.explain(f"SELECT region_id FROM {database}.region")
        refused = {
            "write": f"INSERT INTO {database}.region VALUES (99, 'x')",
            "ddl": f"CREATE TABLE {database}.pwned (a INT)",
            "file": f"SELECT name FROM {database}.region "
            f"INTO OUTFILE '/tmp/vitrina_pwned_{uuid.uuid4().hex}'",
            "user variable state": "SET @x = 1",
        }
        outcomes = {}
        for what, sql in refused.items():
            try:
                wh.execute(sql)
                outcomes[what] = "ran"
            except WarehouseError as exc:
                outcomes[what] = exc.kind
        assert outcomes["write"] == outcomes["ddl"] == outcomes["file"] == "execute", outcomes
        assert wh.execute("SELECT LOAD_FILE('/etc/passwd')").rows == [(None,)]  # no FILE right
        assert wh.execute(f"SELECT COUNT(*) FROM {database}.region").rows == [(12,)]
    finally:
        wh.close()


@pytest.mark.mysql
def test_statement_timeout_stops_a_long_query(reader_url: str) -> None:
    wh = Warehouse(reader_url, timeout_s=1)
    try:
        start = time.perf_counter()
        with pytest.raises(WarehouseError) as caught:
            wh.execute("SELECT SLEEP(5)")
        assert caught.value.kind == "timeout"
        assert time.perf_counter() - start < 3.5
        assert wh.execute("SELECT 1").rows == [(1,)]  # the connection is usable after
    finally:
        wh.close()


@pytest.mark.mysql
def test_byte_budget_and_row_cap_while_fetching(reader_url: str, small_db: str) -> None:
    database = small_db.rsplit("/", 1)[1]
    wh = Warehouse(reader_url, timeout_s=5, result_max_bytes=20_000)
    try:
        capped = wh.execute(f"SELECT sale_id FROM {database}.Sales ORDER BY sale_id", row_cap=10)
        assert capped.truncated and [r[0] for r in capped.rows] == list(range(1, 11))
        with pytest.raises(WarehouseError) as caught:
            wh.execute(f"SELECT sale_id, amount, sold_at FROM {database}.Sales")
        assert caught.value.kind == "too_large"
        # the unread rest was dropped with its connection: the next query reconnects
        assert wh.execute(f"SELECT COUNT(*) FROM {database}.Sales").rows == [(3000,)]
    finally:
        wh.close()


@pytest.mark.mysql
def test_privileged_accounts_are_refused_with_the_revoke(small_db: str) -> None:
    """Planted: FILE, PROCESS, a write grant and a role with DELETE; each named with its
    REVOKE; running those REVOKEs makes the same account acceptable."""
    database = small_db.rsplit("/", 1)[1]
    user, role = f"vt_{uuid.uuid4().hex[:8]}", f"vt_role_{uuid.uuid4().hex[:6]}"
    url = f"mysql://{user}:pw-{user}@127.0.0.1:3306/{database}"
    with _admin(small_db) as conn, conn.cursor() as cur:
        cur.execute(f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw-{user}'")
        cur.execute(f"GRANT SELECT ON `{database}`.* TO '{user}'@'%'")
        cur.execute(f"GRANT FILE, PROCESS ON *.* TO '{user}'@'%'")
        cur.execute(f"GRANT INSERT ON `{database}`.`region` TO '{user}'@'%'")
        cur.execute(f"CREATE ROLE {role}")
        cur.execute(f"GRANT DELETE ON `{database}`.* TO {role}")
        cur.execute(f"GRANT {role} TO '{user}'@'%'")
    try:
        with pytest.raises(WarehouseError) as caught:
            Warehouse(url).execute("SELECT 1")
        message = str(caught.value)
        assert caught.value.kind == "privileged"
        for fix in (
            f"REVOKE FILE ON *.* FROM `{user}`@`%`;",
            f"REVOKE PROCESS ON *.* FROM `{user}`@`%`;",
            f"REVOKE INSERT ON `{database}`.`region` FROM `{user}`@`%`;",
            f"REVOKE DELETE ON `{database}`.* FROM `{role}`;",
        ):
            assert fix in message, (fix, message)
        assert "server files" in message and "Отзовите" in message
        fixes = [line.split("fix: ", 1)[1] for line in message.splitlines() if "fix: " in line]
        with _admin(small_db) as conn, conn.cursor() as cur:
            for fix in fixes:
                cur.execute(fix.rstrip(";"))
        wh = Warehouse(url)
        assert wh.execute("SELECT 1").rows == [(1,)]  # good input: now it may read
        wh.close()
    finally:
        with _admin(small_db) as conn, conn.cursor() as cur:
            cur.execute(f"DROP USER IF EXISTS '{user}'@'%'")
            cur.execute(f"DROP ROLE IF EXISTS {role}")


@pytest.mark.mysql
def test_introspection_reads_the_database(reader_url: str, small_db: str) -> None:
    database = small_db.rsplit("/", 1)[1]
    schema = introspect(reader_url, schemas=[database])
    assert schema.dialect == "mysql"
    sales = schema.table(f"{database}.Sales")
    assert sales.row_count == 3000 and sales.primary_key == ["sale_id"]
    assert sales.column("sold_at").is_date and sales.column("amount").is_numeric
    region = schema.table(f"{database}.region")
    assert region.column("name").low_cardinality_values == sorted(f"R{i}" for i in range(1, 13))


def _demo(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """`vitrina demo --no-questions ARGS` through the console script's entry point."""
    return cli_main(capsys, "demo", "--no-questions", *args)


@pytest.mark.mysql
def test_demo_load_mysql_through_the_cli(
    own_mysql_database: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`vitrina demo --load-mysql URL`: the demo tables in the URL's database and a
    `<db>_reader` account with SELECT only; a second load keeps its password."""
    admin_url = own_mysql_database
    database = admin_url.rsplit("/", 1)[1]
    code, out = _demo(capsys, "--load-mysql", admin_url)
    assert code == 0, out
    assert "loaded 1,6" in out.replace("\n", " "), out
    reader = next(line for line in out.splitlines() if "VITRINA_DB_URL=" in line)
    url = reader.split("VITRINA_DB_URL='", 1)[1].split("'", 1)[0]
    assert f"{database}_reader" in url and "<password>" not in url
    wh = Warehouse(url)
    try:
        count = wh.execute(f"SELECT COUNT(*) FROM {database}.fact_payment").rows[0][0]
        assert count > 1_000_000
        with pytest.raises(WarehouseError):
            wh.execute(f"DELETE FROM {database}.dim_region")
    finally:
        wh.close()
    kept = ensure_mysql_reader(admin_url, database)  # what a second --load-mysql does
    assert kept.status == "kept" and "<password>" in kept.url  # the earlier URL still works
    wh = Warehouse(url)
    assert wh.execute(f"SELECT COUNT(*) FROM {database}.dim_region").rows == [(12,)]
    wh.close()


@pytest.mark.mysql
def test_demo_load_refuses_a_missing_file(mysql_url: str, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_demo_into_mysql(tmp_path / "none.duckdb", mysql_url)


def test_demo_load_names_an_unreachable_server(capsys: pytest.CaptureFixture[str]) -> None:
    """A user's mistake (nothing listens there) is one line, not a traceback."""
    code, out = _demo(capsys, "--load-mysql", "mysql://root@127.0.0.1:1/dwh")
    assert code != 0
    assert "MariaDB/MySQL load failed" in out and "Traceback" not in out


@pytest.mark.mysql
def test_concurrent_queries_run_side_by_side(reader_url: str) -> None:
    """A pool of connections: four one-second statements from four threads take about one
    second, not four (a server worker's concurrent turns)."""
    from concurrent.futures import ThreadPoolExecutor

    wh = Warehouse(reader_url, timeout_s=5)
    try:
        wh.execute("SELECT 1")
        start = time.perf_counter()
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(lambda _: wh.execute("SELECT SLEEP(1)").rows, range(4)))
        elapsed = time.perf_counter() - start
    finally:
        wh.close()
    assert results == [[(0,)]] * 4
    assert elapsed < 3.0, f"{elapsed:.1f} s: the queries ran one after another"


@pytest.mark.mysql
def test_an_account_that_can_do_more_is_not_made_the_reader(small_db: str) -> None:
    """Planted: an existing account with INSERT, and the administrator's own user; both are
    refused and keep their rights. Good input: an existing plain reader is kept."""
    from vitrina.warehouse.mysql_load import MySQLReaderError

    database = small_db.rsplit("/", 1)[1]
    writer = f"vt_w_{uuid.uuid4().hex[:8]}"
    with _admin(small_db) as conn, conn.cursor() as cur:
        cur.execute(f"CREATE USER '{writer}'@'%' IDENTIFIED BY 'x'")
        cur.execute(f"GRANT INSERT ON `{database}`.* TO '{writer}'@'%'")
    try:
        with pytest.raises(MySQLReaderError, match="not a reader"):
            ensure_mysql_reader(small_db, database, user=writer)
        with _admin(small_db) as conn, conn.cursor() as cur:
            cur.execute(f"SHOW GRANTS FOR '{writer}'@'%'")
            assert any("INSERT" in line for (line,) in cur.fetchall())  # untouched
        with pytest.raises(MySQLReaderError, match="administrator"):
            ensure_mysql_reader(small_db, database, user="root")
        first = ensure_mysql_reader(small_db, database, user=f"{writer}_r")
        again = ensure_mysql_reader(small_db, database, user=f"{writer}_r")
        assert (first.status, again.status) == ("created", "kept")
    finally:
        with _admin(small_db) as conn, conn.cursor() as cur:
            cur.execute(f"DROP USER IF EXISTS '{writer}'@'%'")
            cur.execute(f"DROP USER IF EXISTS '{writer}_r'@'%'")
