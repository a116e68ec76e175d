"""SQL Server and Trino connections: the URL, read-only intent and timeouts for SQLAlchemy.

Neither engine runs in CI (there is no server here): the SQL Vitrina sends them is
compile-tested (tests/test_dialect_compile.py) and this module's settings are tested
against the drivers' contracts (SQLAlchemy's own ``mssql`` dialects turn the URL into the
ODBC string or pymssql's arguments without the driver installed). The drivers are the
user's to install: ``pip install pyodbc`` (plus Microsoft's ODBC driver) or ``pymssql``
for ``mssql+pyodbc://`` / ``mssql+pymssql://``, ``pip install trino`` for ``trino://``.

Read-only, per engine (decision 164):

* SQL Server has no read-only transaction: the login must hold only ``db_datareader``
  (or SELECT grants); Vitrina asks for ``ApplicationIntent=ReadOnly`` (a readable
  secondary of an availability group refuses writes), runs every query in a transaction
  it rolls back, and sets the query timeout in the driver (pyodbc's ``Connection.timeout``,
  pymssql's ``timeout``) plus ``SET LOCK_TIMEOUT``.
* Trino: read-only is the catalog's access control (``"allow": "read-only"`` in file-based
  rules); Vitrina sets ``query_max_execution_time`` and ``query_max_run_time`` as session
  properties and the client's request timeout.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MSSQL_SCHEMES = ("mssql",)
TRINO_SCHEMES = ("trino",)
LOGIN_TIMEOUT_S = 10
REQUEST_MARGIN_S = 15  # the client's HTTP timeout waits past the server's own limit


@dataclass(frozen=True)
class EngineOptions:
    """What SQLAlchemy's ``create_engine`` gets, and statements run on each new connection."""

    url: str
    connect_args: dict[str, Any] = field(default_factory=dict)
    on_connect: tuple[str, ...] = ()
    query_timeout_s: int | None = None  # set on the DBAPI connection (pyodbc's .timeout)


def _with_query(url: str, extra: dict[str, str]) -> str:
    """``url`` with ``extra`` in its query string, unless the user set them already."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    missing = {k: v for k, v in extra.items() if k not in parsed.query}
    return parsed.update_query_dict(missing).render_as_string(hide_password=False)


def mssql_options(url: str, timeout_s: float) -> EngineOptions:
    """SQL Server through pyodbc (the default driver) or pymssql."""
    seconds = max(int(timeout_s), 1)
    lock = f"SET LOCK_TIMEOUT {seconds * 1000}"
    driver = url.split("://", 1)[0].partition("+")[2] or "pyodbc"
    if driver == "pymssql":
        return EngineOptions(
            url=url,
            connect_args={"timeout": seconds, "login_timeout": LOGIN_TIMEOUT_S},
            on_connect=(lock,),
        )
    return EngineOptions(
        url=_with_query(url, {"ApplicationIntent": "ReadOnly"}),
        connect_args={"timeout": LOGIN_TIMEOUT_S},  # pyodbc: the login timeout
        on_connect=(lock,),
        query_timeout_s=seconds,
    )


def trino_options(url: str, timeout_s: float) -> EngineOptions:
    """Trino through its SQLAlchemy dialect (the ``trino`` package)."""
    limit = f"{max(int(timeout_s), 1)}s"
    return EngineOptions(
        url=url,
        connect_args={
            "session_properties": {
                "query_max_execution_time": limit,
                "query_max_run_time": limit,
            },
            "request_timeout": int(timeout_s) + REQUEST_MARGIN_S,
            "source": "vitrina",
        },
    )


def engine_options(url: str, timeout_s: float) -> EngineOptions | None:
    """The options for a SQL Server or Trino URL; None for any other engine."""
    scheme = url.split(":", 1)[0].split("+", 1)[0].lower()
    if scheme in MSSQL_SCHEMES:
        return mssql_options(url, timeout_s)
    if scheme in TRINO_SCHEMES:
        return trino_options(url, timeout_s)
    return None


def connect_listener(options: EngineOptions) -> Any:
    """What runs on every new DBAPI connection: the query timeout, then ``on_connect``."""

    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        if options.query_timeout_s is not None:
            dbapi_connection.timeout = options.query_timeout_s
        if options.on_connect:
            cursor = dbapi_connection.cursor()
            try:
                for statement in options.on_connect:
                    cursor.execute(statement)
            finally:
                cursor.close()

    return on_connect


def install(engine: Any, options: EngineOptions) -> Any:
    """Listen on ``engine``'s new connections with :func:`connect_listener`; the listener."""
    from sqlalchemy import event

    listener = connect_listener(options)
    event.listen(engine, "connect", listener)
    return listener
