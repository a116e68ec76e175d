"""Read-only access to the warehouse: one connection, a statement timeout and a row cap.

Read-only is enforced by the connection itself, not by trusting the SQL: DuckDB files are
opened with read_only=True and hardened (no files, no extensions, locked configuration);
PostgreSQL runs each query in a READ ONLY transaction that is always rolled back (so not
even a setting a query changed survives it), as a role that is inspected on connect and
refused when it can do more than read (:mod:`vitrina.warehouse.privileges`); other
SQLAlchemy engines run inside a transaction that is always rolled back.
"""

from __future__ import annotations

import contextlib
import threading
import time
from pathlib import Path
from typing import Any, Protocol

from vitrina.warehouse.privileges import (
    DUCKDB_HARDENING,
    inspect_postgres_role,
    refusal_message,
    warn_privileged,
)
from vitrina.warehouse.result import QueryResult
from vitrina.warehouse.watchdog import WATCHDOG

SQLGLOT_DIALECTS = {
    "duckdb": "duckdb",
    "postgresql": "postgres",
    "postgres": "postgres",
    "mysql": "mysql",
    "mariadb": "mysql",
    "clickhouse": "clickhouse",
    "trino": "trino",
    "mssql": "tsql",
    "sqlite": "sqlite",
    "snowflake": "snowflake",
    "bigquery": "bigquery",
}


class WarehouseError(Exception):
    """A query or connection failure, worded for a user; `kind` tells what went wrong."""

    def __init__(self, message: str, *, kind: str = "error", sql: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind  # connect, privileged, timeout, compile, execute
        self.sql = sql


def scheme_of(url: str) -> str:
    return url.split(":", 1)[0].split("+", 1)[0].lower()


def dialect_of(url: str) -> str:
    """The sqlglot dialect for a SQLAlchemy-style URL."""
    return SQLGLOT_DIALECTS.get(scheme_of(url), scheme_of(url))


def checked_dialect(url: str) -> str:
    """The URL's sqlglot dialect; a URL that names no SQL dialect sqlglot knows is refused
    here, in one line, not as a traceback from the first query."""
    from sqlglot.dialects.dialect import Dialect

    dialect = dialect_of(url) if "://" in url else ""
    try:
        known = bool(dialect) and Dialect.get_or_raise(dialect) is not None
    except ValueError:
        known = False
    if not known:
        shown = url.split("@", 1)[-1] if "@" in url else url
        raise WarehouseError(
            f"warehouse URL {shown!r} names no database Vitrina can query; use "
            "duckdb:///PATH.duckdb "
            "or postgresql://USER@HOST:PORT/DB (--db, VITRINA_DB_URL or db_url in vitrina.toml) / "
            "неизвестный адрес хранилища",
            kind="connect",
        )
    return dialect


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class _Backend(Protocol):
    # the statement that compiles a SELECT on this engine without running it
    compile_statement: str

    def run(
        self, sql: str, row_cap: int, timeout_s: float
    ) -> tuple[list[str], list[tuple], bool]: ...
    def close(self) -> None: ...


class _DuckDBBackend:
    # DESCRIBE binds the query as EXPLAIN does (the same errors, tested) but skips the
    # optimizer: 1.2 ms instead of 3.3 ms on a demo join, a tenth of a rules turn's own CPU
    compile_statement = "DESCRIBE"

    def __init__(self, path: str, threads: int | None = None) -> None:
        import duckdb

        if path != ":memory:" and not Path(path).exists():
            raise WarehouseError(f"DuckDB file not found: {path}", kind="connect")
        try:
            self.conn = duckdb.connect(path, read_only=path != ":memory:")
        except duckdb.Error as exc:
            raise WarehouseError(
                f"cannot open DuckDB file {path}: {_first_line(exc)}", kind="connect"
            ) from exc
        self._configure(threads)
        self._harden(path)
        self.lock = threading.Lock()

    def _configure(self, threads: int | None) -> None:
        """Settings that are ours to choose, made before the hardening locks the configuration:
        no progress bar (DuckDB would draw one on the terminal, or in a server's log, for a
        query over 2 s), and the worker threads when the caller sets them (several server
        processes share the cores: one DuckDB pool per core each oversubscribes them)."""
        import duckdb

        settings = [("enable_progress_bar", "false")]
        if threads:
            settings.append(("threads", str(max(1, int(threads)))))
        for name, value in settings:
            # an instance an earlier connection of this process locked keeps the values it has
            with contextlib.suppress(duckdb.Error):
                self.conn.execute(f"SET {name} = {value}")

    def _harden(self, path: str) -> None:
        """SET the hardening on the database instance (shared by every connection to the file
        in this process, so a config at connect would clash with one opened without it).
        An instance an earlier connection already locked must already hold the same values."""
        import duckdb

        for name, value in DUCKDB_HARDENING:
            literal = f"'{value}'" if isinstance(value, str) else str(value).lower()
            try:
                self.conn.execute(f"SET {name} = {literal}")
            except duckdb.Error as exc:
                current = self.conn.execute("SELECT current_setting(?)", [name]).fetchone()[0]
                if str(current).lower() != str(value).lower() and name != "memory_limit":
                    self.conn.close()
                    raise WarehouseError(
                        f"cannot harden DuckDB file {path} ({name}): {_first_line(exc)}",
                        kind="connect",
                    ) from exc

    def run(self, sql: str, row_cap: int, timeout_s: float) -> tuple[list[str], list[tuple], bool]:
        import duckdb

        with self.lock:
            cursor = self.conn.cursor()
            alarm = WATCHDOG.arm(timeout_s, cursor.interrupt)
            try:
                cursor.execute(sql)
                columns = [d[0] for d in cursor.description or []]
                rows = cursor.fetchmany(row_cap + 1)
            except duckdb.InterruptException as exc:
                raise WarehouseError(
                    f"query ran longer than {timeout_s:g} s and was stopped",
                    kind="timeout",
                    sql=sql,
                ) from exc
            except duckdb.Error as exc:
                raise WarehouseError(_first_line(exc), kind="execute", sql=sql) from exc
            finally:
                alarm.cancel()
                cursor.close()
        return columns, [tuple(r) for r in rows[:row_cap]], len(rows) > row_cap

    def close(self) -> None:
        self.conn.close()


class _PostgresBackend:
    compile_statement = "EXPLAIN"

    def __init__(self, url: str, timeout_s: float, *, allow_privileged: bool = False) -> None:
        import psycopg

        dsn = url.replace("postgresql+psycopg://", "postgresql://").replace(
            "postgres://", "postgresql://"
        )
        options = (
            f"-c default_transaction_read_only=on -c statement_timeout={int(timeout_s * 1000)}"
        )
        try:
            self.conn = psycopg.connect(dsn, options=options, connect_timeout=10, autocommit=True)
            report = inspect_postgres_role(self.conn)
        except psycopg.Error as exc:
            raise WarehouseError(
                f"cannot connect to PostgreSQL: {_first_line(exc)}", kind="connect"
            ) from exc
        if report.privileged:
            if not allow_privileged:
                schemas = self._schemas()
                self.conn.close()
                raise WarehouseError(refusal_message(report, schemas), kind="privileged")
            warn_privileged(report)
        self.lock = threading.Lock()

    def _schemas(self) -> list[str]:
        with self.conn.cursor() as cur:
            cur.execute(
                "SELECT DISTINCT table_schema FROM information_schema.tables WHERE "
                "table_schema NOT IN "
                "('pg_catalog', 'information_schema') ORDER BY 1 LIMIT 10"
            )
            return [name for (name,) in cur.fetchall()] or ["public"]

    def run(self, sql: str, row_cap: int, timeout_s: float) -> tuple[list[str], list[tuple], bool]:
        import psycopg
        from psycopg import errors

        with self.lock, self.conn.cursor() as cur:
            try:
                # One READ ONLY transaction per query, always rolled back: a setting the
                # query changed (set_config, even one the guard missed) is undone with it.
                cur.execute("BEGIN TRANSACTION READ ONLY")
                cur.execute(f"SET LOCAL statement_timeout = {int(timeout_s * 1000)}")
                cur.execute(sql)  # type: ignore[arg-type]  # guarded SQL, never user-formatted
                columns = [d.name for d in cur.description or []]
                rows = cur.fetchmany(row_cap + 1)
            except errors.QueryCanceled as exc:
                raise WarehouseError(
                    f"query ran longer than {timeout_s:g} s and was stopped",
                    kind="timeout",
                    sql=sql,
                ) from exc
            except psycopg.Error as exc:
                raise WarehouseError(_first_line(exc), kind="execute", sql=sql) from exc
            finally:
                self._rollback(cur)
        return columns, [tuple(r) for r in rows[:row_cap]], len(rows) > row_cap

    def _rollback(self, cur: Any) -> None:
        import psycopg

        try:
            cur.execute("ROLLBACK")
        except psycopg.Error:
            self.conn.close()  # a connection in an unknown state is not reused

    def close(self) -> None:
        self.conn.close()


class _SQLAlchemyBackend:
    """Any other engine: each query runs in a transaction that is rolled back."""

    compile_statement = "EXPLAIN"

    def __init__(self, url: str) -> None:
        from sqlalchemy import create_engine
        from sqlalchemy.exc import SQLAlchemyError

        try:
            self.engine = create_engine(url)
            with self.engine.connect():
                pass
        except (SQLAlchemyError, ImportError) as exc:
            raise WarehouseError(
                f"cannot connect to {scheme_of(url)}: {_first_line(exc)}", kind="connect"
            ) from exc

    def run(self, sql: str, row_cap: int, timeout_s: float) -> tuple[list[str], list[tuple], bool]:
        from sqlalchemy import text
        from sqlalchemy.exc import SQLAlchemyError

        with self.engine.connect() as conn:
            try:
                result = conn.execute(text(sql))
                columns = list(result.keys())
                rows = result.fetchmany(row_cap + 1)
            except SQLAlchemyError as exc:
                # DBAPI errors carry the driver's own message; others (a statement that returns
                # no rows: ResourceClosedError) have none
                cause = getattr(exc, "orig", None) or exc
                raise WarehouseError(_first_line(cause), kind="execute", sql=sql) from exc
            finally:
                conn.rollback()
        return columns, [tuple(r) for r in rows[:row_cap]], len(rows) > row_cap

    def close(self) -> None:
        self.engine.dispose()


class Warehouse:
    """One warehouse connection, opened lazily, used by every read in a process."""

    def __init__(
        self,
        url: str,
        *,
        timeout_s: float = 30.0,
        row_cap: int = 100_000,
        allow_privileged: bool = False,
        duckdb_threads: int | None = None,
    ) -> None:
        self.url = url
        self.duckdb_threads = duckdb_threads
        self.allow_privileged = (
            allow_privileged  # VITRINA_ALLOW_PRIVILEGED_WAREHOUSE: loudly logged
        )
        self.dialect = checked_dialect(url)
        self.timeout_s = timeout_s
        self.row_cap = row_cap
        self.cache: dict[
            tuple[str, ...], Any
        ] = {}  # facts about the data that do not change in a run
        self._backend: _Backend | None = None

    @property
    def backend(self) -> _Backend:
        if self._backend is None:
            scheme = scheme_of(self.url)
            if scheme == "duckdb":
                self._backend = _DuckDBBackend(
                    self.url.split(":///", 1)[-1] or ":memory:", self.duckdb_threads
                )
            elif scheme in ("postgresql", "postgres"):
                self._backend = _PostgresBackend(
                    self.url, self.timeout_s, allow_privileged=self.allow_privileged
                )
            else:
                self._backend = _SQLAlchemyBackend(self.url)
        return self._backend

    def execute(self, sql: str, *, row_cap: int | None = None) -> QueryResult:
        """Run one guarded SELECT; rows beyond the cap are dropped and `truncated` says so."""
        start = time.perf_counter()
        columns, rows, truncated = self.backend.run(sql, row_cap or self.row_cap, self.timeout_s)
        elapsed = (time.perf_counter() - start) * 1000
        return QueryResult(
            columns=columns, rows=rows, truncated=truncated, elapsed_ms=round(elapsed, 2)
        )

    @property
    def compile_statement(self) -> str:
        """The statement of this engine's compile check (EXPLAIN, DESCRIBE), for the trace."""
        return self.backend.compile_statement

    def explain(self, sql: str) -> None:
        """Compile check on the real engine: EXPLAIN (DuckDB: DESCRIBE) binds and plans the
        query without running it."""
        try:
            self.backend.run(f"{self.backend.compile_statement} {sql}", 1000, self.timeout_s)
        except WarehouseError as exc:
            if exc.kind in ("connect", "privileged"):
                raise
            raise WarehouseError(str(exc), kind="compile", sql=sql) from exc

    def ping(self) -> str | None:
        """None when reachable, else the reason."""
        try:
            self.backend.run("SELECT 1", 1, min(self.timeout_s, 5))
        except WarehouseError as exc:
            return str(exc)
        return None

    def close(self) -> None:
        if self._backend is not None:
            self._backend.close()
            self._backend = None
