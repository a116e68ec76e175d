"""MariaDB / MySQL queries, read-only at the connection, through PyMySQL.

A pool of up to four connections, one query on each at a time. Each connection is checked
on connect (:mod:`vitrina.warehouse.mysql_grants`: SELECT only) and set ``SESSION
TRANSACTION READ ONLY``; each query runs in its own
``START TRANSACTION READ ONLY`` that is always rolled back, under the server's statement
timeout (MariaDB's ``max_statement_time`` in seconds, MySQL's ``max_execution_time`` in
milliseconds) with the socket's read timeout as a backstop. Rows stream from an unbuffered
cursor into the byte budget; a result left unread (the row cap, the budget) closes the
connection instead of draining it, and the next query reconnects. Multi-statements and
``LOAD DATA LOCAL`` stay off in the driver.
"""

from __future__ import annotations

import threading
from typing import Any

from vitrina.warehouse.budget import ResultTooLarge, fetch_bounded
from vitrina.warehouse.engine import WarehouseError, _first_line, _timed_out, _too_large
from vitrina.warehouse.mysql_grants import inspect_mysql_account, mysql_refusal_message
from vitrina.warehouse.mysql_names import restore_case, stored_names
from vitrina.warehouse.privileges import warn_privileged

MYSQL_SCHEMES = ("mysql", "mariadb")
DEFAULT_PORT = 3306
# ER_STATEMENT_TIMEOUT (MariaDB), ER_QUERY_TIMEOUT (MySQL), ER_QUERY_INTERRUPTED
TIMEOUT_CODES = frozenset({1969, 3024, 1317})
# server gone, lost during the query, client ran out of connection
LOST_CODES = frozenset({2006, 2013, 2055, 0})
# the socket's read timeout: the server's own limit stops a statement first
READ_TIMEOUT_MARGIN_S = 15
POOL_SIZE = 4  # connections per process: concurrent turns of one server worker


def mysql_connect_kwargs(url: str, timeout_s: float) -> dict[str, Any]:
    """PyMySQL's ``connect()`` arguments for a ``mysql://`` / ``mariadb://`` URL (any driver
    part: ``mysql+pymysql://``); the query string may set ``charset`` and ``unix_socket``."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    kwargs: dict[str, Any] = {
        "host": parsed.host or "127.0.0.1",
        "port": parsed.port or DEFAULT_PORT,
        "user": parsed.username or "",
        "password": parsed.password or "",
        "database": parsed.database or None,
        "charset": str(parsed.query.get("charset", "utf8mb4")),
        "connect_timeout": 10,
        "read_timeout": int(timeout_s) + READ_TIMEOUT_MARGIN_S,
        "write_timeout": int(timeout_s) + READ_TIMEOUT_MARGIN_S,
        "autocommit": True,
        "local_infile": False,
        "client_flag": 0,  # no CLIENT.MULTI_STATEMENTS: one statement per call
    }
    if "unix_socket" in parsed.query:
        kwargs["unix_socket"] = str(parsed.query["unix_socket"])
    return kwargs


def timeout_statement(mariadb: bool, timeout_s: float) -> str:
    """The session setting that stops a statement running longer than ``timeout_s``."""
    if mariadb:
        return f"SET SESSION max_statement_time = {max(timeout_s, 0.001):.3f}"
    return f"SET SESSION max_execution_time = {max(int(timeout_s * 1000), 1)}"


def _text(exc: BaseException) -> str:
    """The server's message without PyMySQL's ``(code, '...')`` tuple form."""
    args = getattr(exc, "args", ())
    if len(args) >= 2 and isinstance(args[1], str):
        return f"{args[1]} ({args[0]})"
    return _first_line(exc)


def _code(exc: BaseException) -> int:
    args = getattr(exc, "args", ())
    return args[0] if args and isinstance(args[0], int) else -1


def _abandon(cur: Any) -> None:
    """Forget an unbuffered result without reading it (its connection is being closed):
    PyMySQL would otherwise read every remaining row when the cursor is collected."""
    result = getattr(cur, "_result", None)
    if result is not None:
        result.unbuffered_active = False
    cur._result = None
    cur.connection = None


class _Session:
    """One connection and the statement timeout it is set to."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.timeout: float | None = None

    @property
    def open(self) -> bool:
        return self.conn is not None and bool(self.conn.open)

    def discard(self) -> None:
        conn, self.conn = self.conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:  # already gone (COM_QUIT cannot be sent): drop the socket
                conn._force_close()


class MySQLBackend:
    """A small pool of inspected read-only connections, one query on each at a time."""

    compile_statement = "EXPLAIN"

    def __init__(self, url: str, timeout_s: float, *, allow_privileged: bool = False) -> None:
        self.kwargs = mysql_connect_kwargs(url, timeout_s)
        self.allow_privileged = allow_privileged
        self.mariadb = False
        self.names: tuple[dict[str, str], dict[str, str]] = ({}, {})
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(POOL_SIZE)
        self._closed = False
        # eagerly: a wrong URL or account is refused here
        self._idle: list[_Session] = [_Session(self._connect())]

    def _connect(self) -> Any:
        import pymysql

        try:
            conn = pymysql.connect(**self.kwargs)
            with conn.cursor() as cur:
                cur.execute("SELECT VERSION()")
                self.mariadb = "mariadb" in str(cur.fetchone()[0]).lower()
            report = inspect_mysql_account(conn)
            if report.privileged and not self.allow_privileged:
                conn.close()
                raise WarehouseError(mysql_refusal_message(report), kind="privileged")
            if report.privileged:
                warn_privileged(report)
            with conn.cursor() as cur:
                cur.execute("SET SESSION TRANSACTION READ ONLY")
            self.names = stored_names(conn)
        except pymysql.Error as exc:
            raise WarehouseError(
                f"cannot connect to MySQL/MariaDB: {_text(exc)}", kind="connect"
            ) from exc
        return conn

    def _take(self) -> _Session:
        with self._lock:
            while self._idle:  # bounded: each pass removes one
                session = self._idle.pop()
                if session.open:
                    return session
        return _Session(None)  # connected by _begin

    def _give(self, session: _Session) -> None:
        with self._lock:
            if session.open and not self._closed:
                self._idle.append(session)
                return
        session.discard()

    def _begin(self, session: _Session, timeout_s: float, sql: str) -> None:
        """``session`` live and inside a fresh READ ONLY transaction; a connection found
        dead here is replaced once (nothing of the query was sent)."""
        import pymysql

        for attempt in (1, 2):
            if not session.open:
                session.conn, session.timeout = self._connect(), None
            try:
                with session.conn.cursor() as cur:
                    if session.timeout != timeout_s:
                        cur.execute(timeout_statement(self.mariadb, timeout_s))
                        session.timeout = timeout_s
                    cur.execute("START TRANSACTION READ ONLY")
                return
            except pymysql.Error as exc:
                session.discard()
                if _code(exc) not in LOST_CODES or attempt == 2:
                    raise WarehouseError(_text(exc), kind="execute", sql=sql) from exc

    def run(
        self, sql: str, row_cap: int, timeout_s: float, max_bytes: int
    ) -> tuple[list[str], list[tuple], bool]:
        if not self._slots.acquire(timeout=max(timeout_s, 0.1)):
            raise WarehouseError(
                f"no warehouse connection free within {timeout_s:g} s / все соединения с "
                "хранилищем заняты",
                kind="timeout",
                sql=sql,
            )
        try:
            session = self._take()
            try:
                return self._run_on(session, sql, row_cap, timeout_s, max_bytes)
            finally:
                self._give(session)
        finally:
            self._slots.release()

    def _run_on(
        self, session: _Session, sql: str, row_cap: int, timeout_s: float, max_bytes: int
    ) -> tuple[list[str], list[tuple], bool]:
        import pymysql

        self._begin(session, timeout_s, sql)
        cur = session.conn.cursor(pymysql.cursors.SSCursor)
        drained = False
        try:
            cur.execute(self._stored_case(sql))
            columns = [d[0] for d in cur.description or []]
            rows, truncated = fetch_bounded(cur.fetchmany, row_cap, max_bytes)
            drained = not truncated
        except ResultTooLarge as exc:
            raise _too_large(exc, sql) from None
        except pymysql.Error as exc:
            drained = _code(exc) not in LOST_CODES  # a refused statement left no rows
            raise self._error(exc, sql, timeout_s) from exc
        finally:
            _finish(session, cur, drained)
        return columns, rows, truncated

    def _stored_case(self, sql: str) -> str:
        """The query with table names in the case the server stores them (mysql_names)."""
        databases, tables = self.names
        if not databases and not tables:
            return sql
        head, _, rest = sql.partition(" ")
        current = self.kwargs.get("database")
        try:
            if head.upper() == self.compile_statement:
                return f"{head} {restore_case(rest, databases, tables, current)}"
            return restore_case(sql, databases, tables, current)
        except Exception:  # sqlglot could not read it back: the server reports the names
            return sql

    def _error(self, exc: BaseException, sql: str, timeout_s: float) -> WarehouseError:
        code, text = _code(exc), _text(exc)
        if code in TIMEOUT_CODES or (code == 2013 and "timed out" in text):
            return _timed_out(timeout_s, sql)
        if code in LOST_CODES:
            return WarehouseError(
                f"lost the connection to MySQL during the query ({text}); the next query "
                "reconnects / соединение с MySQL потеряно во время запроса",
                kind="connect",
                sql=sql,
            )
        return WarehouseError(text, kind="execute", sql=sql)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for session in idle:
            session.discard()


def _finish(session: _Session, cur: Any, drained: bool) -> None:
    """Roll back after a fully read result; otherwise close the connection: an unbuffered
    cursor can only be closed by reading the rest of its rows."""
    import pymysql

    if not drained or not session.open:
        _abandon(cur)
        session.discard()
        return
    try:
        cur.close()
        session.conn.rollback()
    except pymysql.Error:
        session.discard()
