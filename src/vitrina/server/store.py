"""The server's own state next to the dialog checkpoints: API tokens and dialog owners.

One SQLAlchemy Core schema for both backends: the SQLite state file under VITRINA_HOME,
or the PostgreSQL database of VITRINA_STATE_URL, so several server processes share it.
Dialog contents stay in the LangGraph checkpointer; this store only says who owns which
dialog and which run belongs to which dialog.
"""

from __future__ import annotations

import functools
import json
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import (
    Column,
    Float,
    Index,
    MetaData,
    String,
    Table,
    Text,
    bindparam,
    create_engine,
    delete,
    event,
    func,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import (
    ArgumentError,
    DatabaseError,
    DBAPIError,
    DisconnectionError,
    NoSuchModuleError,
)

from vitrina.checkpoint import StateFileError, unreadable
from vitrina.config import Settings
from vitrina.server.roles import DEFAULT_ROLE, check_role

log = logging.getLogger("vitrina.server.store")
metadata = MetaData()

tokens = Table(
    "vitrina_tokens",
    metadata,
    Column("id", String(32), primary_key=True),  # public part of the token
    Column("name", String(200), nullable=False),
    Column("secret_sha256", String(64), nullable=False),  # the secret part is never stored
    Column("created_at", Float, nullable=False),
    Column("revoked_at", Float, nullable=True),
    Column("role", String(16), nullable=False, server_default=DEFAULT_ROLE),  # vitrina.server.roles
    Column("policy", Text, nullable=True),  # a row policy as JSON (vitrina.sql.policy)
)

threads = Table(
    "vitrina_threads",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("owner", String(32), nullable=False),  # a token id, or "local" without auth
    Column("segment", String(16), nullable=False, default="auto"),
    Column("topics", Text, nullable=False, default="[]"),
    Column("title", Text, nullable=True),  # the first question
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    Index("ix_vitrina_threads_owner", "owner", "updated_at"),
)

runs = Table(
    "vitrina_runs",
    metadata,
    Column("run_id", String(64), primary_key=True),
    Column("thread_id", String(64), nullable=False),
    Column("created_at", Float, nullable=False),
)

# What a dialog's checkpoints do not hold: each answered turn's step durations (keyed by the
# turn's final checkpoint), the supervisor's replies to requests that were not data questions
# (metadata search, docs, tasks), and users' answer feedback. Rows are small JSON documents.
turn_notes = Table(
    "vitrina_turn_notes",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("thread_id", String(64), nullable=False),
    Column("kind", String(16), nullable=False),  # steps | route | feedback
    Column("ref", String(64), nullable=True),  # steps: the checkpoint id; feedback: the run id
    Column("data", Text, nullable=False),
    Column("created_at", Float, nullable=False),
    Index("ix_vitrina_turn_notes_thread", "thread_id", "kind"),
)

# the lookups every request makes, built once: SQLAlchemy then skips building the statement
# and its cache key on each call (a fifth of a token lookup's CPU on SQLite)
_TOKEN_BY_ID = select(tokens).where(tokens.c.id == bindparam("token_id"))
_THREAD_BY_ID = select(threads).where(threads.c.id == bindparam("thread_id"))
_THREAD_INSERT = threads.insert()


@dataclass
class ThreadRecord:
    id: str
    owner: str
    segment: str = "auto"
    topics: list[str] = field(default_factory=list)
    title: str | None = None
    created_at: float = 0.0
    updated_at: float = 0.0

    def public(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "segment": self.segment,
            "topics": self.topics,
            "title": self.title,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }


@dataclass
class TokenRecord:
    id: str
    name: str
    secret_sha256: str
    created_at: float
    revoked_at: float | None = None
    role: str = DEFAULT_ROLE
    policy: str | None = None  # the row policy's JSON (`RowPolicy.loads`); None: all rows


def sqlalchemy_url(settings: Settings) -> str:
    """The store's URL: PostgreSQL from VITRINA_STATE_URL, else the SQLite state file."""
    url = settings.state_url
    if url and url.split(":", 1)[0].split("+", 1)[0] in ("postgresql", "postgres"):
        rest = url.split("://", 1)[1]
        return f"postgresql+psycopg://{rest}"
    if url and url.startswith("sqlite"):
        return url
    if url:  # never a silent fall-back to the SQLite file: the user asked for another store
        raise StateFileError(
            f"state URL {shown_url(url)!r}: only postgresql://... and sqlite:///PATH are "
            "supported; fix VITRINA_STATE_URL / state_url, or unset it for "
            "$VITRINA_HOME/state.sqlite"
        )
    return f"sqlite:///{settings.state_path}"


def shown_url(url: str) -> str:
    """The URL for a message: the password hidden."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url.split("@", 1)[-1] if "@" in url else url


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: no fsync per commit, crash-safe
    cur.execute("PRAGMA busy_timeout=5000")
    cur.close()


# a connection used this recently is not pinged again on checkout (HikariCP's
# aliveBypassWindowMs, 500 ms): under load every checkout would otherwise cost a round trip
PING_AFTER_IDLE_S = 0.5


def _stamp(_dbapi_conn: Any, record: Any, *_: Any) -> None:
    record.info["vitrina_used"] = time.monotonic()


def _pinger(engine: Engine) -> Any:
    """A pool checkout hook that pings a server connection idle for longer than
    PING_AFTER_IDLE_S; one the server dropped is replaced (the pool's retry on
    DisconnectionError), so a request after a database restart still succeeds."""

    def checkout(dbapi_conn: Any, record: Any, _proxy: Any) -> None:
        if time.monotonic() - record.info.get("vitrina_used", 0.0) > PING_AFTER_IDLE_S:
            try:
                engine.dialect.do_ping(dbapi_conn)
            except Exception as exc:
                raise DisconnectionError(f"state database connection lost: {exc}") from exc
        _stamp(dbapi_conn, record)

    return checkout


Read = TypeVar("Read", bound=Callable[..., Any])


def _retried_read(method: Read) -> Read:
    """A read (one SELECT in autocommit: nothing written) that failed because the server
    dropped the connection runs once more: SQLAlchemy has invalidated the pool's connections
    by then, so the second try gets a new one. Writes are never retried."""

    @functools.wraps(method)
    def read(self: Store, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except DBAPIError as exc:
            if not exc.connection_invalidated:
                raise
            log.warning(
                "state database connection lost (%s); the read is retried once",
                str(exc.orig or exc).strip().splitlines()[0],
            )
        return method(self, *args, **kwargs)

    return read  # type: ignore[return-value]


class Store:
    """Tokens, dialog owners and runs; every method is one short transaction.

    A read or a single-statement write runs in autocommit (`self._single`): with psycopg
    a transaction costs a BEGIN and a COMMIT or ROLLBACK round trip each, for nothing a
    single statement needs; several statements that belong together share one transaction
    (`self.engine.begin()`)."""

    def __init__(self, url: str) -> None:
        self.url = url
        try:
            self.engine: Engine = create_engine(url)
        except (ArgumentError, NoSuchModuleError, ImportError) as exc:
            raise StateFileError(
                f"state URL {shown_url(url)!r} is not a database URL this store can open ({exc}); "
                "use sqlite:///PATH or postgresql://USER@HOST/DB in VITRINA_STATE_URL / state_url, "
                "or leave it unset for $VITRINA_HOME/state.sqlite"
            ) from exc
        # autocommit connections of their own: an engine's `execution_options` would switch a
        # shared connection into autocommit on each checkout and back on checkin, and roll
        # back a transaction that never began (30% of a token lookup's CPU on psycopg)
        self._single = create_engine(url, isolation_level="AUTOCOMMIT", pool_reset_on_return=None)
        for engine in (self.engine, self._single):
            if url.startswith("sqlite"):  # a file: no connection to lose, nothing to ping
                event.listen(engine, "connect", _sqlite_pragmas)
            else:
                event.listen(engine.pool, "connect", _stamp)
                event.listen(engine.pool, "checkin", _stamp)
                event.listen(engine.pool, "checkout", _pinger(engine))
        try:
            metadata.create_all(self.engine)
            self._add_missing_columns()
        except DatabaseError as exc:
            if url.startswith("sqlite"):
                raise unreadable(url.split(":///", 1)[-1], exc.orig or exc) from exc
            raise StateFileError(
                f"state database {shown_url(url)}: cannot be opened "
                f"({str(exc.orig or exc).splitlines()[0]}); check that it runs "
                "and the URL, user and database are right"
            ) from exc

    def _add_missing_columns(self) -> None:
        """A state database from before token roles or row policies gets the columns
        (existing tokens: analyst, no policy)."""
        have = {c["name"] for c in inspect(self.engine).get_columns("vitrina_tokens")}
        added = {
            "role": f"VARCHAR(16) NOT NULL DEFAULT '{DEFAULT_ROLE}'",
            "policy": "TEXT",
        }
        for name, kind in added.items():
            if name not in have:
                with self.engine.begin() as conn:
                    conn.execute(text(f"ALTER TABLE vitrina_tokens ADD COLUMN {name} {kind}"))

    @classmethod
    def from_settings(cls, settings: Settings) -> Store:
        settings.state_path.parent.mkdir(parents=True, exist_ok=True)
        return cls(sqlalchemy_url(settings))

    # ---- tokens ---------------------------------------------------------------
    def add_token(
        self,
        token_id: str,
        name: str,
        secret_sha256: str,
        role: str = DEFAULT_ROLE,
        policy: str | None = None,
    ) -> None:
        with self._single.begin() as conn:
            conn.execute(
                tokens.insert().values(
                    id=token_id,
                    name=name,
                    secret_sha256=secret_sha256,
                    created_at=time.time(),
                    role=check_role(role),
                    policy=policy,
                )
            )

    @_retried_read
    def token(self, token_id: str) -> TokenRecord | None:
        with self._single.connect() as conn:
            row = conn.execute(_TOKEN_BY_ID, {"token_id": token_id}).mappings().first()
        return TokenRecord(**row) if row else None

    @_retried_read
    def list_tokens(self) -> list[TokenRecord]:
        with self._single.connect() as conn:
            rows = conn.execute(select(tokens).order_by(tokens.c.created_at)).mappings().all()
        return [TokenRecord(**r) for r in rows]

    def revoke_tokens(self, name_or_id: str) -> int:
        """Revoke by id or by name; returns how many tokens were revoked."""
        with self._single.begin() as conn:
            result = conn.execute(
                update(tokens)
                .where((tokens.c.id == name_or_id) | (tokens.c.name == name_or_id))
                .where(tokens.c.revoked_at.is_(None))
                .values(revoked_at=time.time())
            )
        return result.rowcount or 0

    # ---- dialogs --------------------------------------------------------------
    def create_thread(
        self, thread_id: str, owner: str, segment: str, topics: list[str]
    ) -> ThreadRecord:
        now = time.time()
        record = ThreadRecord(thread_id, owner, segment, topics, None, now, now)
        with self._single.begin() as conn:
            conn.execute(
                _THREAD_INSERT,
                {
                    "id": thread_id,
                    "owner": owner,
                    "segment": segment,
                    "topics": json.dumps(topics),
                    "created_at": now,
                    "updated_at": now,
                },
            )
        return record

    @_retried_read
    def thread(self, thread_id: str) -> ThreadRecord | None:
        with self._single.connect() as conn:
            row = conn.execute(_THREAD_BY_ID, {"thread_id": thread_id}).mappings().first()
        return _thread(row) if row else None

    @_retried_read
    def list_threads(self, owner: str, limit: int = 100) -> list[ThreadRecord]:
        with self._single.connect() as conn:
            rows = (
                conn.execute(
                    select(threads)
                    .where(threads.c.owner == owner)
                    .order_by(threads.c.updated_at.desc())
                    .limit(limit)
                )
                .mappings()
                .all()
            )
        return [_thread(r) for r in rows]

    def record_turn(
        self,
        thread_id: str,
        title: str | None,
        *,
        run_id: str | None = None,
        note: tuple[str, dict[str, Any], str | None] | None = None,
    ) -> None:
        """What the server keeps of a finished turn, atomically: the run's dialog (once: a
        clarification and its answer share one run id), the dialog's time (its first title
        kept, else this one), and the turn's note (kind, data, checkpoint id) that a reload
        shows. On PostgreSQL that is one statement (data-modifying CTEs): one round trip
        instead of five with BEGIN and COMMIT."""
        statements = [_touch(thread_id, title)]
        if run_id:
            statements.append(self._run_insert(run_id, thread_id))
        if note is not None:
            statements.append(_note_insert(uuid.uuid4().hex, thread_id, *note))
        if self.engine.dialect.name == "postgresql":
            main, *rest = statements
            with_ctes = main.add_cte(*(s.cte(f"turn_{n}") for n, s in enumerate(rest)))
            with self._single.begin() as conn:
                conn.execute(with_ctes)
            return
        with self.engine.begin() as conn:  # SQLite has no data-modifying CTEs
            for statement in statements:
                conn.execute(statement)

    def _run_insert(self, run_id: str, thread_id: str) -> Any:
        """The run's dialog, unless the run is already recorded."""
        if self.engine.dialect.name == "postgresql":
            from sqlalchemy.dialects.postgresql import insert
        else:
            from sqlalchemy.dialects.sqlite import insert
        return (
            insert(runs)
            .values(run_id=run_id, thread_id=thread_id, created_at=time.time())
            .on_conflict_do_nothing(index_elements=["run_id"])
        )

    def rename_thread(self, thread_id: str, title: str) -> None:
        with self._single.begin() as conn:
            conn.execute(update(threads).where(threads.c.id == thread_id).values(title=title[:200]))

    def delete_thread(self, thread_id: str) -> None:
        """The dialog's record, runs and notes (its checkpoints are deleted by the caller)."""
        with self.engine.begin() as conn:
            conn.execute(delete(turn_notes).where(turn_notes.c.thread_id == thread_id))
            conn.execute(delete(runs).where(runs.c.thread_id == thread_id))
            conn.execute(delete(threads).where(threads.c.id == thread_id))

    # ---- turn notes -----------------------------------------------------------
    def add_note(
        self, note_id: str, thread_id: str, kind: str, data: dict[str, Any], ref: str | None = None
    ) -> None:
        with self._single.begin() as conn:
            conn.execute(_note_insert(note_id, thread_id, kind, data, ref))

    @_retried_read
    def notes(self, thread_id: str, kind: str, limit: int = 2000) -> list[dict[str, Any]]:
        """A dialog's notes of one kind, oldest first: {"id", "ref", "data", "created_at"}."""
        with self._single.connect() as conn:
            rows = (
                conn.execute(
                    select(turn_notes)
                    .where(turn_notes.c.thread_id == thread_id)
                    .where(turn_notes.c.kind == kind)
                    .order_by(turn_notes.c.created_at)
                    .limit(limit)
                )
                .mappings()
                .all()
            )
        return [
            {
                "id": r["id"],
                "ref": r["ref"],
                "data": json.loads(r["data"]),
                "created_at": r["created_at"],
            }
            for r in rows
        ]

    # ---- runs -----------------------------------------------------------------
    @_retried_read
    def run_thread(self, run_id: str) -> str | None:
        with self._single.connect() as conn:
            return conn.execute(select(runs.c.thread_id).where(runs.c.run_id == run_id)).scalar()

    @_retried_read
    def ping(self) -> None:
        with self._single.connect() as conn:
            conn.execute(select(1))

    def close(self) -> None:
        self._single.dispose()
        self.engine.dispose()


def _thread(row: Any) -> ThreadRecord:
    return ThreadRecord(
        id=row["id"],
        owner=row["owner"],
        segment=row["segment"],
        topics=json.loads(row["topics"] or "[]"),
        title=row["title"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def _touch(thread_id: str, title: str | None) -> Any:
    """The dialog used now; a first title kept, else this one (cut to 200 characters)."""
    values: dict[str, Any] = {"updated_at": time.time()}
    if title:
        values["title"] = func.coalesce(threads.c.title, title[:200])
    return update(threads).where(threads.c.id == thread_id).values(**values)


def _note_insert(
    note_id: str, thread_id: str, kind: str, data: dict[str, Any], ref: str | None
) -> Any:
    return turn_notes.insert().values(
        id=note_id,
        thread_id=thread_id,
        kind=kind,
        ref=ref,
        data=json.dumps(data, ensure_ascii=False, default=str),
        created_at=time.time(),
    )
