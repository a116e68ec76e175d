"""SQL Server and Trino connection settings, tested against the drivers' contracts without a
server (issue 38): SQLAlchemy's own mssql dialects turn the URL into what pyodbc and pymssql
receive; the Trino arguments are the trino client's ``connect()`` keywords."""

from __future__ import annotations

import inspect

import pytest
from sqlalchemy.dialects.mssql.pymssql import MSDialect_pymssql
from sqlalchemy.dialects.mssql.pyodbc import MSDialect_pyodbc
from sqlalchemy.engine import make_url

from vitrina.warehouse.engine import Warehouse, WarehouseError, dialect_of
from vitrina.warehouse.remote_engines import engine_options, install

PYODBC_URL = (
    "mssql+pyodbc://bi:p%40ss@sql.example:1433/Chinook?driver=ODBC+Driver+18+for+SQL+Server"
)


def test_mssql_pyodbc_asks_for_read_only_intent_and_sets_timeouts() -> None:
    options = engine_options(PYODBC_URL, 30)
    assert options is not None and options.query_timeout_s == 30
    (odbc,), _ = MSDialect_pyodbc().create_connect_args(make_url(options.url))
    parts = dict(p.split("=", 1) for p in odbc.split(";"))
    assert parts["ApplicationIntent"] == "ReadOnly"
    assert (parts["Server"], parts["Database"], parts["UID"], parts["PWD"]) == (
        "sql.example,1433",
        "Chinook",
        "bi",
        "p@ss",
    )
    assert options.connect_args == {"timeout": 10}  # pyodbc's login timeout
    assert options.on_connect == ("SET LOCK_TIMEOUT 30000",)
    assert dialect_of(PYODBC_URL) == "tsql"


def test_a_users_own_intent_is_kept() -> None:
    options = engine_options(PYODBC_URL + "&ApplicationIntent=ReadWrite", 5)
    assert options is not None and options.url.count("ApplicationIntent") == 1


def test_mssql_pymssql_gets_its_own_timeout_arguments() -> None:
    options = engine_options("mssql+pymssql://bi:pw@sql.example:1433/Chinook", 12.5)
    assert options is not None
    _, kwargs = MSDialect_pymssql().create_connect_args(make_url(options.url))
    assert kwargs == {
        "host": "sql.example:1433",
        "database": "Chinook",
        "user": "bi",
        "password": "pw",
    }
    assert options.connect_args == {"timeout": 12, "login_timeout": 10}
    assert options.query_timeout_s is None  # pymssql takes it at connect


def test_trino_session_limits() -> None:
    options = engine_options("trino://bi@trino.example:8080/hive/dwh", 20)
    assert options is not None
    assert options.connect_args["session_properties"] == {
        "query_max_execution_time": "20s",
        "query_max_run_time": "20s",
    }
    assert options.connect_args["request_timeout"] == 35
    assert dialect_of("trino://bi@trino.example:8080/hive/dwh") == "trino"
    try:
        from trino.dbapi import connect
    except ImportError:
        return  # the client is the user's to install; its keywords are checked when present
    accepted = set(inspect.signature(connect).parameters)
    assert set(options.connect_args) <= accepted


def test_other_engines_get_no_options() -> None:
    assert engine_options("postgresql://x@h/db", 5) is None
    assert engine_options("mysql://x@h/db", 5) is None


def test_on_connect_sets_the_timeout_and_runs_the_statements() -> None:
    """The listener does to a DBAPI connection what pyodbc's contract asks: the query timeout
    as the connection's ``timeout`` attribute, the statements through a cursor."""
    from sqlalchemy import create_engine, event

    options = engine_options(PYODBC_URL, 7)
    assert options is not None
    engine = create_engine("sqlite://")
    listener = install(engine, options)
    assert event.contains(engine, "connect", listener)

    class Cursor:
        def __init__(self, log: list[str]) -> None:
            self.log = log

        def execute(self, statement: str) -> None:
            self.log.append(statement)

        def close(self) -> None:
            self.log.append("closed")

    class Conn:
        def __init__(self) -> None:
            self.timeout = 0
            self.log: list[str] = []

        def cursor(self) -> Cursor:
            return Cursor(self.log)

    conn = Conn()
    listener(conn, None)  # what the pool calls on a new connection
    assert conn.timeout == 7 and conn.log == ["SET LOCK_TIMEOUT 7000", "closed"]


def test_a_missing_driver_is_one_line() -> None:
    with pytest.raises(WarehouseError) as caught:
        Warehouse("mssql+pymssql://bi:pw@127.0.0.1:1/x").execute("SELECT 1")
    assert caught.value.kind == "connect" and "\n" not in str(caught.value)
