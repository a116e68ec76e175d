"""ClickHouse as a warehouse: chDB in-process for a local data folder, clickhouse-connect for
a server.

Two URL forms (docs/decisions/165-clickhouse-urls.md):

* ``chdb:///ABS/PATH`` (``chdb:///:memory:`` for an empty one): a chDB data folder, the
  ClickHouse engine inside this process (PyPI ``chdb``);
* ``clickhouse://USER:PASSWORD@HOST:8123/DB`` (``?secure=true`` for HTTPS): a ClickHouse
  server over HTTP, through ``clickhouse-connect``.

Read-only is a ClickHouse setting, not a hope about the SQL: every query runs with
``readonly=1`` (no writes, no DDL, no table functions that read files or other servers,
and no setting can be changed by the query itself). The statement timeout, the row cap
and a bound on the bytes the engine builds are ClickHouse settings too
(``max_execution_time``, ``max_result_rows`` / ``max_result_bytes`` with
``result_overflow_mode='break'``), blocks of ENGINE_BLOCK_ROWS rows (``max_block_size``: a
block is made whole before it is counted), and chDB's queries, which run in this process,
a memory bound (``max_memory_usage``); the rows are streamed and counted against the byte
budget while they arrive (:func:`vitrina.warehouse.budget.fetch_bounded`).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import threading
from collections.abc import Callable, Iterator
from datetime import date, datetime
from decimal import Decimal
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from vitrina.warehouse.budget import ResultTooLarge, fetch_bounded

# The engine's own bound on what it builds, as a multiple of the byte budget: the budget is
# our estimate of Python values, ClickHouse counts its blocks; a query cut here is still
# refused by the budget, never shown as complete (see _Rows.truncated_by_engine)
ENGINE_BYTES_FACTOR = 4
# rows per block the engine makes: a block is made whole before the budget can count it
# (65,409 by default: 650 MB of 10 KB rows; 8,192 is a MergeTree granule, +14% on a
# 30M-row GROUP BY; decision 211)
ENGINE_BLOCK_ROWS = 8192
# chDB runs inside this process: its queries' memory is ours, bounded as DuckDB's is (the
# hardening's memory_limit); a server keeps its own profile's bound
CHDB_MAX_MEMORY = 2_000_000_000
JSON_FORMAT = "JSONCompactEachRowWithNamesAndTypes"
# exact text for decimals and floats (the cursor of chDB sets the same)
JSON_SETTINGS = {
    "output_format_json_quote_decimals": 1,
    "output_format_json_quote_64bit_floats": 1,
    "output_format_json_quote_denormals": 1,
}
MAX_CONNECTIONS = 8  # chDB connections kept, one per (timeout, row cap, budget)


class ClickHouseError(Exception):
    """A failure of the engine or the driver; ``kind`` is connect, timeout or execute."""

    def __init__(self, message: str, kind: str = "execute") -> None:
        super().__init__(message)
        self.kind = kind


def query_settings(timeout_s: float, row_cap: int, max_bytes: int) -> dict[str, Any]:
    """The settings every query runs with: read-only, the timeout and the result bounds.

    ``readonly`` goes last: in a chDB connection string the settings apply in order, and
    after ``readonly=1`` none may change.

    >>> list(query_settings(2, 10, 1000).items())[-1]
    ('readonly', 1)
    """
    return {
        "max_execution_time": max(1, round(timeout_s)),
        "max_result_rows": row_cap + 1,
        "max_result_bytes": max_bytes * ENGINE_BYTES_FACTOR,
        "result_overflow_mode": "break",
        "max_block_size": ENGINE_BLOCK_ROWS,
        # SQL's answer over no rows: SUM is NULL (ClickHouse: 0), AVG is NULL (ClickHouse:
        # nan), as on every other engine (found by the engine matrix, issue 38)
        "aggregate_functions_null_for_empty": 1,
        **JSON_SETTINGS,
        "readonly": 1,
    }


def chdb_path(url: str) -> str:
    """The data folder of a ``chdb:///PATH`` URL (``:memory:`` for none).

    >>> chdb_path("chdb:///tmp/wh"), chdb_path("chdb:///:memory:"), chdb_path("chdb://")
    ('/tmp/wh', ':memory:', ':memory:')
    """
    rest = url.split("://", 1)[1] if "://" in url else ""
    rest = rest.split("?", 1)[0]
    if rest in ("", "/", "/:memory:", ":memory:"):
        return ":memory:"
    return rest if rest.startswith("/") else "/" + rest


def _convert(value: Any, kind: str) -> Any:
    """One JSON cell as the Python value DuckDB and PostgreSQL drivers give for its type."""
    if value is None:
        return None
    inner = kind
    for wrapper in ("Nullable(", "LowCardinality("):
        if inner.startswith(wrapper):
            inner = inner[len(wrapper) : -1]
    if inner.startswith(("Int", "UInt")):
        return int(value)
    if inner.startswith("Float"):
        return float(value)
    if inner.startswith("Decimal"):
        return Decimal(str(value))
    if inner == "Bool":
        return bool(value)
    if inner.startswith("DateTime"):
        return datetime.fromisoformat(str(value))
    if inner.startswith("Date"):
        return date.fromisoformat(str(value))
    return value  # strings, and nested values as JSON gives them


class _JsonRows:
    """The rows of a streamed JSONCompactEachRowWithNamesAndTypes result, a batch at a time:
    the names and types come first, then one JSON array per line."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self.chunks = chunks
        self.lines: list[str] = []
        self.tail = ""
        self.done = False
        self.columns: list[str] = []
        self.types: list[str] = []
        self.header: list[str] = []
        self.header = self._take(2)
        if len(self.header) == 2:
            self.columns, self.types = json.loads(self.header[0]), json.loads(self.header[1])

    def _take(self, n: int) -> list[str]:
        """Up to ``n`` whole lines; bounded: each pass consumes one chunk or ends."""
        while len(self.lines) < n and not self.done:
            chunk = next(self.chunks, None)
            if chunk is None:
                self.done = True
                if self.tail.strip() and self.tail not in self.header:
                    self.lines.append(self.tail)
                self.tail = ""
                break
            parts = (self.tail + chunk.decode("utf-8")).split("\n")
            self.tail = parts.pop()
            # chDB repeats the names and types at the head of every chunk: those lines are
            # the header, not rows (dropped here, so a batch is never short before the end)
            self.lines.extend(p for p in parts if p.strip() and p not in self.header)
        taken, self.lines = self.lines[:n], self.lines[n:]
        return taken

    def fetchmany(self, n: int) -> list[tuple[Any, ...]]:
        return [
            tuple(_convert(v, t) for v, t in zip(json.loads(line), self.types, strict=True))
            for line in self._take(n)
        ]


# a query chDB can stream (a SELECT); anything else (EXPLAIN) is read whole
_STREAMABLE = re.compile(r"\s*(?:(?:--[^\n]*\n|/\*.*?\*/)\s*)*[(\s]*(?:SELECT|WITH)\b", re.I | re.S)


def refuse_outfile(sql: str) -> None:
    """chDB writes ``INTO OUTFILE`` itself, as this process, even under ``readonly=1`` (it
    is clickhouse-local's client feature, found by the hostile corpus): the engine layer
    refuses it whatever the guard said. Fails closed: text the tokenizer cannot read is
    refused too.

    >>> refuse_outfile("SELECT 'into outfile' AS x")
    >>> try:
    ...     refuse_outfile("SELECT 1 INTO /* c */ OUTFILE '/tmp/x'")
    ... except ClickHouseError as exc:
    ...     print(str(exc)[:24])
    INTO OUTFILE is not allo
    """
    from sqlglot.dialects.clickhouse import ClickHouse
    from sqlglot.errors import SqlglotError

    try:
        words = [t.text.upper() for t in ClickHouse().tokenize(sql)]
    except SqlglotError as exc:
        raise ClickHouseError(f"cannot read the query: {first_line(exc)}") from exc
    if any(a == "INTO" and b == "OUTFILE" for a, b in itertools.pairwise(words)):
        raise ClickHouseError(
            "INTO OUTFILE is not allowed: a query returns its rows, it writes no file / "
            "INTO OUTFILE запрещён: запрос возвращает строки и не пишет файлы"
        )


def _chunks_of(stream: Any) -> Iterator[bytes]:
    """The bytes of each chunk of a chDB streaming result."""
    for chunk in stream:
        yield chunk.bytes()


class ChdbBackend:
    """A chDB data folder opened in this process, every connection ``readonly=1``."""

    compile_statement = "EXPLAIN"

    def __init__(self, url: str) -> None:
        try:
            import chdb  # noqa: F401
        except ImportError as exc:
            raise ClickHouseError(
                "chDB is not installed: pip install 'vitrina[clickhouse]'", kind="connect"
            ) from exc
        self.path = chdb_path(url)
        self.lock = threading.Lock()
        self.connections: dict[tuple[float, int, int], Any] = {}
        self._connection(30.0, 1, 1_000_000)  # a wrong folder is refused here

    def _connection(self, timeout_s: float, row_cap: int, max_bytes: int) -> Any:
        """A connection whose settings are these bounds (settings cannot change after
        ``readonly=1``, so each set of bounds has its own); the oldest is closed past
        MAX_CONNECTIONS."""
        import chdb

        key = (timeout_s, row_cap, max_bytes)
        if key not in self.connections:
            if len(self.connections) >= MAX_CONNECTIONS:
                oldest = next(iter(self.connections))
                self.connections.pop(oldest).close()
            settings = {
                "max_memory_usage": CHDB_MAX_MEMORY,
                **query_settings(timeout_s, row_cap, max_bytes),
            }
            params = "&".join(f"{k}={v}" for k, v in settings.items())
            try:
                self.connections[key] = chdb.connect(f"{self.path}?{params}")
            except Exception as exc:  # chDB raises its own and RuntimeError
                raise ClickHouseError(
                    f"cannot open chDB folder {self.path}: {first_line(exc)}", kind="connect"
                ) from exc
        return self.connections[key]

    def run(
        self, sql: str, row_cap: int, timeout_s: float, max_bytes: int
    ) -> tuple[list[str], list[tuple], bool]:
        refuse_outfile(sql)
        with self.lock:  # one query at a time per folder, as DuckDB's backend does
            conn = self._connection(timeout_s, row_cap, max_bytes)
            stream, failed = None, True
            try:
                if _STREAMABLE.match(sql):
                    stream = conn.send_query(sql, JSON_FORMAT)
                    rows = _JsonRows(_chunks_of(stream))
                else:  # EXPLAIN (our compile check): small, and chDB cannot stream it
                    rows = _JsonRows(iter([conn.query(sql, JSON_FORMAT).bytes()]))
                got, truncated = fetch_bounded(rows.fetchmany, row_cap, max_bytes)
                failed = False
            except ResultTooLarge:
                raise
            except Exception as exc:
                raise _classified(exc) from exc
            finally:
                if stream is not None:
                    with contextlib.suppress(Exception):
                        stream.close()  # the rest of the result is never made
                if failed:  # after the stream: closing a connection under it crashes chDB
                    self._discard(timeout_s, row_cap, max_bytes)
        return rows.columns, got, truncated

    def _discard(self, timeout_s: float, row_cap: int, max_bytes: int) -> None:
        """Close the connection a query failed or was cut on: chDB sends the rest of a
        failed stream (its header) at the head of the next query's result on the same
        connection, so the next query gets a new one."""
        conn = self.connections.pop((timeout_s, row_cap, max_bytes), None)
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()

    def close(self) -> None:
        for conn in self.connections.values():
            with contextlib.suppress(Exception):
                conn.close()
        self.connections.clear()


def server_params(url: str) -> dict[str, Any]:
    """clickhouse-connect's get_client arguments for a ``clickhouse://`` URL.

    >>> p = server_params("clickhouse://reader:s%40cret@ch.local:8443/dwh?secure=true")
    >>> (p["host"], p["port"], p["username"], p["password"], p["database"], p["secure"])
    ('ch.local', 8443, 'reader', 's@cret', 'dwh', True)
    """
    parts = urlsplit(url)
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    secure = query.get("secure", "").lower() in ("1", "true", "yes")
    return {
        "host": parts.hostname or "localhost",
        "port": parts.port or (8443 if secure else 8123),
        "username": unquote(parts.username or "default"),
        "password": unquote(parts.password or ""),
        "database": parts.path.lstrip("/") or "default",
        "secure": secure,
        "connect_timeout": 10,
        "autogenerate_session_id": False,  # no server session: each query stands alone
    }


def _profile_readonly(client: Any) -> str | None:
    """The user's own ``readonly`` setting as clickhouse-connect read it at connect."""
    setting = getattr(client, "server_settings", {}).get("readonly")
    return None if setting is None else str(getattr(setting, "value", setting))


def _check_profile(client: Any, params: dict[str, Any]) -> None:
    """A user whose profile already says ``readonly=1`` cannot be given the timeout and the
    result limits (ClickHouse refuses any setting change, clickhouse-connect raises on the
    first query): refused at connect, with what to do."""
    if _profile_readonly(client) == "1":
        with contextlib.suppress(Exception):
            client.close()
        raise ClickHouseError(
            f"ClickHouse user {params['username']!r} has readonly=1 in its profile, so Vitrina "
            "cannot set its timeout and result limits; give the user readonly=2 (Vitrina runs "
            "every query with readonly=1 itself) / у пользователя ClickHouse readonly=1 в "
            "профиле: задайте readonly=2, Vitrina сама ставит readonly=1 каждому запросу",
            kind="connect",
        )


class ServerBackend:
    """A ClickHouse server through clickhouse-connect (HTTP); each query carries the
    read-only and limit settings, and its rows stream in blocks."""

    compile_statement = "EXPLAIN"

    def __init__(self, url: str, client_factory: Callable[..., Any] | None = None) -> None:
        if client_factory is None:
            try:
                import clickhouse_connect
            except ImportError as exc:
                raise ClickHouseError(
                    "clickhouse-connect is not installed: pip install 'vitrina[clickhouse]'",
                    kind="connect",
                ) from exc
            client_factory = clickhouse_connect.get_client
        params = server_params(url)
        try:
            self.client = client_factory(**params)
        except Exception as exc:  # the driver's OperationalError, DatabaseError, ...
            raise ClickHouseError(
                f"cannot connect to ClickHouse at {params['host']}:{params['port']}: "
                f"{first_line(exc)}",
                kind="connect",
            ) from exc
        self.lock = threading.Lock()  # a client is one HTTP session: one query at a time
        _check_profile(self.client, params)

    def run(
        self, sql: str, row_cap: int, timeout_s: float, max_bytes: int
    ) -> tuple[list[str], list[tuple], bool]:
        settings = {
            k: v
            for k, v in query_settings(timeout_s, row_cap, max_bytes).items()
            if k not in JSON_SETTINGS  # the native format carries exact values
        }
        with self.lock:
            try:
                with self.client.query_row_block_stream(sql, settings=settings) as stream:
                    blocks = _Blocks(iter(stream))
                    rows, truncated = fetch_bounded(blocks.fetchmany, row_cap, max_bytes)
                    columns = list(stream.source.column_names)
            except ResultTooLarge:
                raise
            except Exception as exc:
                raise _classified(exc) from exc
        return columns, rows, truncated

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.close()


class _Blocks:
    """fetchmany over a stream of row blocks (lists of rows)."""

    def __init__(self, blocks: Iterator[list[Any]]) -> None:
        self.blocks = blocks
        self.pending: list[Any] = []

    def fetchmany(self, n: int) -> list[tuple[Any, ...]]:
        while len(self.pending) < n:  # bounded: each pass takes one block or ends
            block = next(self.blocks, None)
            if block is None:
                break
            self.pending.extend(block)
        taken, self.pending = self.pending[:n], self.pending[n:]
        return [tuple(r) for r in taken]


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _classified(exc: BaseException) -> ClickHouseError:
    """The engine's error, its kind told by ClickHouse's code (159: timeout exceeded)."""
    text = first_line(exc).replace("Streaming query failed: ", "")
    if "TIMEOUT_EXCEEDED" in text or "Code: 159." in text:
        return ClickHouseError(text, kind="timeout")
    return ClickHouseError(text, kind="execute")
