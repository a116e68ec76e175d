"""ClickHouse (issue 38 item 2): chDB in-process for real, the server path against
clickhouse-connect's contract (no server here), the demo loaded through the CLI, the hostile
corpus against chDB."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest

from vitrina.warehouse import Warehouse, WarehouseError
from vitrina.warehouse.clickhouse_backend import ServerBackend, query_settings

from .corpus import for_dialect


@pytest.fixture(scope="module")
def chdb_demo(chdb_installed: None, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The demo warehouse loaded into a chDB folder by `vitrina demo --load-clickhouse`."""
    from typer.testing import CliRunner

    from vitrina.cli import app

    home = tmp_path_factory.mktemp("home")  # `vitrina demo` builds the demo there first
    folder = tmp_path_factory.mktemp("chdb") / "wh"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("VITRINA_HOME", str(home))
        out = CliRunner().invoke(app, ["demo", "--no-questions", "--load-clickhouse", str(folder)])
    assert out.exit_code == 0, out.output
    assert "database dwh" in out.output and f"chdb:///{folder}" in out.output
    return f"chdb:///{folder}"


def test_chdb_reads_and_refuses_writes(chdb_demo: str) -> None:
    wh = Warehouse(chdb_demo, row_cap=5)
    try:
        result = wh.execute("SELECT payment_id, payment_date, amount_rub FROM dwh.fact_payment")
        assert result.truncated and len(result.rows) == 5
        assert type(result.rows[0][1]).__name__ == "date"
        assert type(result.rows[0][2]).__name__ == "Decimal"
        total = wh.execute("SELECT count() FROM dwh.fact_payment").rows[0][0]
        for sql in (
            "INSERT INTO dwh.dim_region VALUES (99, 'a', 'b', 'c')",
            "SELECT 1 SETTINGS readonly = 0",
            "SELECT * FROM file('/etc/passwd', LineAsString)",
        ):
            with pytest.raises(WarehouseError, match=r"readonly|READONLY"):
                wh.execute(sql)
        assert wh.execute("SELECT count() FROM dwh.fact_payment").rows[0][0] == total
        wh.explain("SELECT count() FROM dwh.fact_payment")
        with pytest.raises(WarehouseError) as bad:
            wh.explain("SELECT no_such FROM dwh.fact_payment")
        assert bad.value.kind == "compile"
        assert wh.execute("SELECT sum(amount_rub) FROM dwh.fact_payment WHERE 1 = 0").rows == [
            (None,)
        ]
    finally:
        wh.close()


def test_chdb_timeout_and_byte_budget(chdb_demo: str) -> None:
    slow = Warehouse(chdb_demo, timeout_s=1)
    try:
        with pytest.raises(WarehouseError) as timed:
            slow.execute("SELECT count() FROM dwh.fact_payment AS a, dwh.fact_payment AS b")
        assert timed.value.kind == "timeout"
    finally:
        slow.close()
    small = Warehouse(chdb_demo, result_max_bytes=20_000)
    try:
        with pytest.raises(WarehouseError) as big:
            small.execute("SELECT * FROM dwh.fact_payment")
        assert big.value.kind == "too_large"
        assert small.execute("SELECT count() FROM dwh.dim_region").rows == [(12,)]
    finally:
        small.close()


@pytest.mark.parametrize("attack", for_dialect("clickhouse"), ids=lambda a: a.id)
def test_the_hostile_corpus_on_chdb(attack: Any, chdb_demo: str, tmp_path: Path) -> None:
    """Past the guard (which refuses every item, test_guard_corpus), the engine itself
    refuses what writes, reads files or changes settings, and nothing is written."""
    from vitrina.sql.guard import guard_with_catalog

    from .corpus import hidden_catalog

    assert not guard_with_catalog(attack.sql, hidden_catalog(), dialect="clickhouse", row_cap=10).ok
    wh = Warehouse(chdb_demo, timeout_s=2, row_cap=10)
    try:
        before = wh.execute("SELECT count() FROM dwh.fact_payment").rows
        with contextlib.suppress(WarehouseError):  # refused or cut: either way nothing written
            wh.execute(attack.sql)
        assert wh.execute("SELECT count() FROM dwh.fact_payment").rows == before
    finally:
        wh.close()
    assert not Path("/tmp/vitrina_pwned.csv").exists()
    assert not Path("/tmp/vitrina_pwned").exists()


class _Stream:
    def __init__(self, blocks: list[list[tuple]], names: list[str]) -> None:
        self.blocks, self.source = blocks, type("S", (), {"column_names": names})()

    def __enter__(self) -> _Stream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.closed = True

    def __iter__(self):
        return iter(self.blocks)


class _Client:
    """clickhouse-connect's Client as ServerBackend uses it: query_row_block_stream(sql,
    settings=...) as a context manager yielding blocks of rows, .source.column_names."""

    def __init__(self, **params: Any) -> None:
        self.params, self.calls = params, []

    def query_row_block_stream(self, sql: str, settings: dict[str, Any]) -> _Stream:
        self.calls.append((sql, settings))
        return _Stream([[(1, "a")] * 600, [(2, "b")] * 600], ["k", "v"])

    def close(self) -> None:
        pass


def test_server_backend_follows_the_driver_contract(chdb_installed: None) -> None:
    backend = ServerBackend("clickhouse://reader:p%40ss@ch.example:8123/dwh", _Client)
    assert backend.client.params["username"] == "reader"
    assert backend.client.params["password"] == "p@ss"
    assert backend.client.params["database"] == "dwh"
    columns, rows, truncated = backend.run("SELECT k, v FROM t", 1000, 7.0, 10_000_000)
    assert columns == ["k", "v"] and len(rows) == 1000 and truncated
    sql, settings = backend.client.calls[0]
    assert sql == "SELECT k, v FROM t"
    assert settings["readonly"] == 1 and settings["max_execution_time"] == 7
    assert settings["max_result_rows"] == 1001 and settings["result_overflow_mode"] == "break"
    assert settings["aggregate_functions_null_for_empty"] == 1
    with pytest.raises(Exception, match="result too large"):
        backend.run("SELECT k, v FROM t", 100_000, 7.0, 1000)


def test_server_connect_failure_is_one_line() -> None:
    def refuse(**_: Any) -> None:
        raise OSError("Connection refused\nmore")

    from vitrina.warehouse.clickhouse_backend import ClickHouseError

    with pytest.raises(ClickHouseError, match=r"ch.example:8123: Connection refused$"):
        ServerBackend("clickhouse://ch.example/dwh", refuse)


def test_readonly_is_the_last_setting() -> None:
    assert list(query_settings(3, 10, 100))[-1] == "readonly"


def test_catalog_init_drafts_the_chdb_demo_then_checks(chdb_demo: str, tmp_path: Path) -> None:
    """`catalog init` through the CLI on a chDB folder: tables, types, keys and the relations
    inferred from them; the draft then checks against the same warehouse."""
    from typer.testing import CliRunner

    from vitrina.catalog import load_catalog
    from vitrina.cli import app

    out = tmp_path / "draft"
    args = ["catalog", "init", "--db", chdb_demo, "--schema", "dwh", "--out", str(out)]
    drafted = CliRunner().invoke(app, args)
    assert drafted.exit_code == 0, drafted.output
    catalog = load_catalog(out)
    payment = catalog.tables["dwh.fact_payment"]
    types = {c.name: c.type for c in payment.columns}
    assert types["payment_date"] == "date" and types["amount_rub"] == "decimal"
    assert ("dwh.fact_payment.client_id", "dwh.dim_client.client_id") in {
        (r.left, r.right) for r in catalog.relations
    }
    checked = CliRunner().invoke(app, ["catalog", "check", str(out), "--db", chdb_demo])
    assert checked.exit_code == 0, checked.output


def test_a_server_user_already_readonly_1_is_refused_with_what_to_do(chdb_installed: None) -> None:
    """clickhouse-connect reads the user's settings at connect; with readonly=1 there no
    limit could be set, so the connect fails in words instead of at the first query."""
    from vitrina.warehouse.clickhouse_backend import ClickHouseError

    class _Setting:
        def __init__(self, value: str) -> None:
            self.value = value

    class _ReadonlyClient(_Client):
        def __init__(self, **params: Any) -> None:
            super().__init__(**params)
            self.server_settings = {"readonly": _Setting("1")}

    class _Readonly2Client(_Client):
        def __init__(self, **params: Any) -> None:
            super().__init__(**params)
            self.server_settings = {"readonly": _Setting("2")}

    with pytest.raises(ClickHouseError, match="readonly=2") as refused:
        ServerBackend("clickhouse://viewer@ch.example/dwh", _ReadonlyClient)
    assert refused.value.kind == "connect" and "'viewer'" in str(refused.value)
    assert ServerBackend("clickhouse://vitrina@ch.example/dwh", _Readonly2Client).client


def test_ask_on_chdb_through_the_cli(chdb_demo: str) -> None:
    """A user's path: `vitrina ask --db chdb:///FOLDER` answers from ClickHouse by month
    (toStartOfMonth, not DATE_TRUNC) with the rows DuckDB gives for the same question."""
    import json

    from typer.testing import CliRunner

    from vitrina.cli import app

    question = "выручка по месяцам в 2025 году"
    out = CliRunner().invoke(app, ["ask", question, "--db", chdb_demo, "--no-llm", "--json"])
    assert out.exit_code == 0, out.output
    reply = json.loads(out.output)
    assert reply["status"] == "answered", reply
    assert "dateTrunc('MONTH'" in reply["sql"] or "toStartOfMonth" in reply["sql"]
    assert len(reply["rows"]) == 12


def test_every_row_of_a_result_of_many_chunks_arrives(chdb_demo: str) -> None:
    """chDB repeats the names and types at the head of every chunk: a batch cut short by
    them read as the end once (24,998 of 100,000 rows, not marked truncated)."""
    from vitrina.warehouse.clickhouse_backend import _JsonRows

    header = ['["k"]', '["Int64"]']
    chunks = [
        ("\n".join([*header, *(f"[{i}]" for i in range(s, s + 3))]) + "\n").encode()
        for s in (0, 3, 6)
    ]
    rows = _JsonRows(iter(chunks))
    assert rows.fetchmany(4) == [(0,), (1,), (2,), (3,)]
    assert rows.fetchmany(10) == [(4,), (5,), (6,), (7,), (8,)]
    wh = Warehouse(chdb_demo, row_cap=1_000_000)
    try:
        where = "FROM dwh.fact_payment WHERE payment_id <= 200000"
        (total,) = wh.execute(f"SELECT count() {where}").rows[0]
        got = wh.execute(f"SELECT payment_id {where}")
        assert len(got.rows) == total == len(set(got.rows)) and not got.truncated
        capped = Warehouse(chdb_demo, row_cap=total - 1)
        try:
            cut = capped.execute(f"SELECT payment_id {where}")
            assert len(cut.rows) == total - 1 and cut.truncated
        finally:
            capped.close()
    finally:
        wh.close()
