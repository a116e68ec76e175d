"""The MySQL items of the hostile corpus against the real MariaDB (issue 38).

Two layers, each tested alone: the guard refuses every item on the mysql dialect
(test_guard_corpus.py); here each item also runs *past* the guard, as Vitrina's read-only
account through its backend, and must do no harm: no file written, no table changed,
no lock left behind, no statement running past the timeout. What the guard accepts as
comment-free SQL (``safe_sql``) runs on the server and reads what it says.
"""

from __future__ import annotations

import glob
import os
import time
from collections.abc import Iterator

import pytest

from vitrina.sql.guard import guard_with_catalog
from vitrina.warehouse import Warehouse
from vitrina.warehouse.engine import WarehouseError
from vitrina.warehouse.mysql_load import admin_connection, ensure_mysql_reader

from .corpus import Attack, for_dialect, hidden_catalog

pytestmark = pytest.mark.mysql
TIMEOUT_S = 1.0
ATTACKS = for_dialect("mysql")


@pytest.fixture(scope="module")
def hostile_db(mysql_url: str) -> Iterator[tuple[str, str]]:
    """The run's database with ``dim_region``; yields (admin URL, reader URL)."""
    database = mysql_url.rsplit("/", 1)[1]
    with admin_connection(mysql_url) as conn, conn.cursor() as cur:
        cur.execute(
            "CREATE TABLE IF NOT EXISTS dim_region (region_id INT PRIMARY KEY, "
            "region_name VARCHAR(50), federal_district VARCHAR(50), timezone_offset INT)"
        )
        cur.execute("DELETE FROM dim_region")
        cur.executemany(
            "INSERT INTO dim_region VALUES (%s, %s, 'X', 3)", [(i, f"R{i}") for i in range(1, 13)]
        )
        conn.commit()
    yield mysql_url, ensure_mysql_reader(mysql_url, database, reset_password=True).url


def _on_server(sql: str, database: str) -> str:
    """The corpus names the demo's schema ``dwh``: here it is the run's database."""
    return sql.replace("dwh.", f"{database}.")


def _state(admin_url: str, database: str) -> tuple:
    with admin_connection(admin_url) as conn, conn.cursor() as cur:
        cur.execute(f"SELECT COUNT(*), SUM(region_id) FROM `{database}`.dim_region")
        rows = cur.fetchone()
        cur.execute(
            "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s", (database,)
        )
        tables = cur.fetchone()[0]
        cur.execute("SELECT IS_USED_LOCK('vitrina')")
        lock = cur.fetchone()[0]
    return rows, tables, lock


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.id for a in ATTACKS])
def test_past_the_guard_the_server_layer_holds(attack: Attack, hostile_db: tuple[str, str]) -> None:
    admin_url, reader_url = hostile_db
    database = reader_url.rsplit("/", 1)[1]
    before = _state(admin_url, database)
    files_before = set(glob.glob("/tmp/vitrina_pwned*"))
    wh = Warehouse(reader_url, timeout_s=TIMEOUT_S)
    start = time.perf_counter()
    try:
        wh.execute(_on_server(attack.sql, database))
    except WarehouseError as exc:
        assert exc.kind in ("execute", "timeout"), (attack.id, exc.kind, str(exc))
    finally:
        elapsed = time.perf_counter() - start
        wh.close()  # a named lock taken by the attack ends with the session
    assert elapsed < TIMEOUT_S + 3, f"{attack.id} ran {elapsed:.1f} s"
    assert set(glob.glob("/tmp/vitrina_pwned*")) == files_before, "a file was written"
    after = _state(admin_url, database)
    assert after[:2] == before[:2], f"{attack.id} changed the database"
    assert after[2] is None, f"{attack.id} left a named lock"


def test_file_writes_are_refused_by_the_server(hostile_db: tuple[str, str]) -> None:
    """Planted without the guard: INTO OUTFILE as the reader fails for want of FILE."""
    _, reader_url = hostile_db
    database = reader_url.rsplit("/", 1)[1]
    target = f"/tmp/vitrina_pwned_{os.getpid()}"
    wh = Warehouse(reader_url)
    try:
        with pytest.raises(WarehouseError) as caught:
            wh.execute(f"SELECT region_name FROM {database}.dim_region INTO OUTFILE '{target}'")
    finally:
        wh.close()
    assert "FILE" in str(caught.value) and not os.path.exists(target)


def test_what_the_guard_accepts_runs_as_written(hostile_db: tuple[str, str]) -> None:
    """Executable comments are dropped by the guard: the server runs the plain query."""
    _, reader_url = hostile_db
    database = reader_url.rsplit("/", 1)[1]
    accepted = [a for a in ATTACKS if a.safe_sql]
    assert accepted
    catalog = hidden_catalog()
    wh = Warehouse(reader_url, timeout_s=TIMEOUT_S)
    try:
        for attack in accepted:
            result = guard_with_catalog(attack.sql, catalog, dialect="mysql", row_cap=100)
            assert result.ok and result.sql == attack.safe_sql
            start = time.perf_counter()
            rows = wh.execute(_on_server(result.sql, database)).rows
            assert time.perf_counter() - start < TIMEOUT_S, "the commented SLEEP ran"
            expected = list(range(1, 13)) if "dim_region" in attack.sql else [1]
            assert sorted(r[0] for r in rows) == expected, attack.id
    finally:
        wh.close()
