"""The result byte budget on real engines: a huge result is refused while it is fetched.

`SELECT repeat('x', 100000000)` and a `string_agg` over a cross join fit in one row and in
the statement timeout; a result of many wide rows fits the row cap. Each is refused with
kind ``too_large`` and a message in English and Russian, reading stops at the budget (the
process's peak memory grows by a fraction of the result), normal queries are unchanged and
VITRINA_RESULT_MAX_BYTES moves the limit.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import duckdb
import psycopg
import pytest

from pg_roles import reader_role  # tests/pg_roles.py
from vitrina.warehouse import Warehouse, WarehouseError
from vitrina.warehouse.budget import DEFAULT_MAX_BYTES, fetch_bounded, row_bytes

ROOT = Path(__file__).resolve().parents[1]
MB = 1_000_000

# (name, DuckDB SQL, PostgreSQL SQL): each over the default budget of 50 MB
HUGE = [
    ("one huge cell", "SELECT repeat('x', 100000000) AS s", "SELECT repeat('x', 100000000) AS s"),
    (
        "string_agg over a cross join",
        "SELECT string_agg(a::VARCHAR || repeat('y', 100), ',') AS s "
        "FROM range(1000) a(a), range(1000) b(b)",
        "SELECT string_agg(a::text || repeat('y', 100), ',') AS s "
        "FROM generate_series(1, 1000) a, generate_series(1, 1000) b",
    ),
    (
        "many wide rows",
        "SELECT i, repeat('z', 10000) AS s FROM range(100000) t(i)",
        "SELECT i, repeat('z', 10000) AS s FROM generate_series(1, 100000) i",
    ),
]


@pytest.fixture
def duckdb_file(tmp_path: Path) -> Path:
    path = tmp_path / "w.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE t AS SELECT range AS id, 'n' || range AS name FROM range(5000)")
    con.close()
    return path


@pytest.fixture
def pg_reader(own_pg_database: str) -> Iterator[str]:
    """A database of this test's own with a table, and the URL of a read-only role with a
    name of its own (roles are server-wide), dropped afterwards."""
    with psycopg.connect(own_pg_database, autocommit=True) as admin:
        admin.execute(
            "CREATE SCHEMA s; CREATE TABLE s.t AS SELECT g AS id, 'n' || g AS name "
            "FROM generate_series(0, 4999) g"
        )
    yield from reader_role(own_pg_database, ["s"])


def _warehouse(engine: str, duckdb_file: Path, request: pytest.FixtureRequest, **kw) -> Warehouse:
    if engine == "duckdb":
        return Warehouse(f"duckdb:///{duckdb_file}", **kw)
    return Warehouse(request.getfixturevalue("pg_reader"), **kw)


ENGINES = ["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", HUGE, ids=[c[0] for c in HUGE])
def test_a_huge_result_is_refused(engine, case, duckdb_file, request) -> None:
    wh = _warehouse(engine, duckdb_file, request)
    sql = case[1] if engine == "duckdb" else case[2]
    try:
        with pytest.raises(WarehouseError) as info:
            wh.execute(sql)
        assert info.value.kind == "too_large"
        message = str(info.value)
        assert "result too large (> 50 MB)" in message
        assert "результат слишком большой" in message and "VITRINA_RESULT_MAX_BYTES" in message
        # the connection is fine afterwards: the next query answers
        assert wh.execute("SELECT count(*) AS n FROM " + _table(engine)).rows == [(5000,)]
    finally:
        wh.close()


def _table(engine: str) -> str:
    return "t" if engine == "duckdb" else "s.t"


@pytest.mark.parametrize("engine", ENGINES)
def test_normal_queries_are_unchanged(engine, duckdb_file, request) -> None:
    wh = _warehouse(engine, duckdb_file, request, row_cap=1200)
    try:
        result = wh.execute(f"SELECT id, name FROM {_table(engine)} ORDER BY id")
        assert result.row_count == 1200 and result.truncated  # the row cap, as before
        assert result.rows[0] == (0, "n0") and result.rows[-1] == (1199, "n1199")
        whole = wh.execute(f"SELECT id, name FROM {_table(engine)} WHERE id < 1200 ORDER BY id")
        assert whole.row_count == 1200 and not whole.truncated
        empty = wh.execute(f"SELECT id, name FROM {_table(engine)} WHERE id < 0")
        assert empty.columns == ["id", "name"] and empty.rows == []
        wh.explain(f"SELECT id FROM {_table(engine)}")  # the compile check still plans
        with pytest.raises(WarehouseError) as info:
            wh.explain(f"SELECT nope FROM {_table(engine)}")
        assert info.value.kind == "compile"
    finally:
        wh.close()


@pytest.mark.parametrize("engine", ENGINES)
def test_the_budget_is_a_setting(engine, duckdb_file, request) -> None:
    sql = "SELECT repeat('x', 2000) AS s"
    default = _warehouse(engine, duckdb_file, request)
    small = _warehouse(engine, duckdb_file, request, result_max_bytes=1000)
    try:
        assert default.result_max_bytes == DEFAULT_MAX_BYTES
        assert default.execute(sql).rows == [("x" * 2000,)]
        with pytest.raises(WarehouseError) as info:
            small.execute(sql)
        assert info.value.kind == "too_large" and "(> 1000 bytes)" in str(info.value)
        assert small.execute("SELECT repeat('x', 900) AS s").row_count == 1
        small.explain(sql)  # the compile check's own output is not the result: not counted
        assert small.ping() is None
    finally:
        default.close()
        small.close()


def test_the_setting_reaches_the_ask_service(make_service, monkeypatch) -> None:
    """VITRINA_RESULT_MAX_BYTES, as a user sets it, is the budget of the service's warehouse."""
    monkeypatch.setenv("VITRINA_RESULT_MAX_BYTES", "1000")
    service = make_service()
    assert service.settings.result_max_bytes == 1000
    with pytest.raises(WarehouseError) as info:
        service.warehouse.execute("SELECT repeat('x', 5000)")
    assert info.value.kind == "too_large"


def test_sqlite_is_bounded_too(tmp_path: Path) -> None:
    """The generic SQLAlchemy backend (here SQLite) fetches in batches under the budget."""
    wh = Warehouse(f"sqlite:///{tmp_path / 'w.sqlite'}", result_max_bytes=10_000)
    try:
        with pytest.raises(WarehouseError) as info:
            wh.execute(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000) "
                "SELECT i, hex(zeroblob(100)) FROM n"
            )
        assert info.value.kind == "too_large"
        assert wh.execute("SELECT hex(zeroblob(100)) AS h").rows == [("00" * 100,)]
    finally:
        wh.close()


def test_fetch_stops_at_the_budget() -> None:
    """Reading stops in the batch that crossed the budget: the rest is never asked for."""
    asked: list[int] = []
    row = ("x" * 100,)

    def fetchmany(n: int) -> list[tuple[str]]:
        asked.append(n)
        return [row] * n

    with pytest.raises(Exception, match="result too large"):
        fetch_bounded(fetchmany, row_cap=1_000_000, max_bytes=250_000, batch_rows=1000)
    assert len(asked) == 3 and row_bytes(row) == 100  # 3 batches of 100 KB cross 250 KB


MEMORY_SCRIPT = textwrap.dedent(
    """
    import json, resource, sys
    from vitrina.warehouse import Warehouse, WarehouseError

    def peak_mb():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    wh = Warehouse(sys.argv[1])
    wh.execute(sys.argv[3])  # warm: the connection, the engine's own buffers
    before = peak_mb()
    try:
        wh.execute(sys.argv[2])
        kind = None
    except WarehouseError as exc:
        kind = exc.kind
    print(json.dumps({"kind": kind, "growth_mb": peak_mb() - before}))
    """
)


def _peak_growth(url: str, sql: str, warm: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", MEMORY_SCRIPT, url, sql, warm],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("engine", ENGINES)
def test_memory_stays_bounded_while_a_big_result_streams(engine, duckdb_file, request) -> None:
    """2 GB of rows (DuckDB) or 1 GB (PostgreSQL): refused after about 50 MB were read, the
    process's peak memory grows by a fraction of the result (not a timing; a loose bound)."""
    if engine == "duckdb":
        url = f"duckdb:///{duckdb_file}"
        sql = "SELECT i, repeat('z', 10000) AS s FROM range(200000) t(i)"
        result_mb = 2000
    else:
        url = request.getfixturevalue("pg_reader")
        sql = "SELECT i, repeat('z', 10000) AS s FROM generate_series(1, 100000) i"
        result_mb = 1000
    got = _peak_growth(url, sql, f"SELECT count(*) FROM {_table(engine)}")
    assert got["kind"] == "too_large"
    assert got["growth_mb"] < result_mb / 5, got  # ~50 MB of rows and a batch, not the result


@pytest.mark.parametrize("engine", ENGINES)
def test_one_huge_cell_costs_the_cell_not_more(engine, duckdb_file, request) -> None:
    """A single 100 MB cell arrives whole (the engine makes it before we can count it): the
    peak grows by a few copies of that cell, and nothing stays."""
    url = f"duckdb:///{duckdb_file}" if engine == "duckdb" else request.getfixturevalue("pg_reader")
    got = _peak_growth(
        url, "SELECT repeat('x', 100000000) AS s", f"SELECT count(*) FROM {_table(engine)}"
    )
    assert got["kind"] == "too_large"
    assert got["growth_mb"] < 1000, got


def test_ask_explains_a_result_over_the_budget(demo_db: Path, monkeypatch) -> None:
    """`vitrina ask` under a tiny budget: a failed answer that says why, in the question's
    language, no traceback, no second attempt at the same wall."""
    from typer.testing import CliRunner

    from vitrina.cli import app

    monkeypatch.setenv("VITRINA_RESULT_MAX_BYTES", "10")
    result = CliRunner().invoke(
        app,
        ["ask", "Сумма платежей по каналам в 2025 году", "--db", f"duckdb:///{demo_db}", "--json"],
    )
    assert result.exit_code == 1, result.output
    data = json.loads(result.output)
    assert data["status"] == "failed" and data["rows"] == []
    assert data["answer"].startswith("Результат запроса слишком большой")
    executed = [e for e in data["trace"] if e["node"] == "execute"]
    assert len(executed) == 1 and "too_large" in executed[0]["data"]["kind"]
    assert "Traceback" not in result.output


def test_a_short_batch_ends_the_fetch() -> None:
    """Fewer rows than asked is the end of the result: no extra FETCH to learn it."""
    asked: list[int] = []
    data = [(i,) for i in range(1500)]

    def fetchmany(n: int) -> list[tuple[int]]:
        asked.append(n)
        taken, data[:] = data[:n], data[n:]
        return taken

    rows, truncated = fetch_bounded(fetchmany, row_cap=5000, max_bytes=10**9, batch_rows=1000)
    assert len(rows) == 1500 and not truncated and asked == [1000, 1000]
    data[:] = [(i,) for i in range(30)]
    asked.clear()
    rows, truncated = fetch_bounded(fetchmany, row_cap=20, max_bytes=10**9, batch_rows=1000)
    assert len(rows) == 20 and truncated and asked == [21]  # one past the cap tells a cut


def test_a_batch_is_counted_as_its_rows_are() -> None:
    """The column-wise count of a batch equals the sum of its rows' sizes, on every kind."""
    from datetime import date
    from decimal import Decimal

    from vitrina.warehouse.budget import batch_bytes

    batch = [
        (1, "ab", None, 2.5, Decimal("1.2"), date(2025, 1, 1), [1, "x"], b"\x00\x01", True),
        (None, "", "ccc", None, None, None, {"k": "v"}, None, None),
        (3, None, "d", 1.0, Decimal("3"), date(2025, 1, 2), None, b"", False),
    ]
    assert batch_bytes(batch) == sum(row_bytes(r) for r in batch)
    assert batch_bytes([]) == 0
