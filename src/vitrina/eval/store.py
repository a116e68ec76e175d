"""Runs, review verdicts and the clarification bank, kept in the state database (SQLite
under VITRINA_HOME, tables prefixed ``eval_``) so runs can be compared and reviewed later."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from vitrina.eval.errors import EvalError
from vitrina.eval.records import CaseRecord, RunRecord

SCHEMA = """
CREATE TABLE IF NOT EXISTS eval_runs (
  id TEXT PRIMARY KEY, suite TEXT NOT NULL, config_name TEXT NOT NULL, matrix_id TEXT,
  started_at TEXT NOT NULL, finished_at TEXT, config TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS eval_cases (
  run_id TEXT NOT NULL, case_id TEXT NOT NULL, position INTEGER NOT NULL, data TEXT NOT NULL,
  PRIMARY KEY (run_id, case_id)
);
CREATE TABLE IF NOT EXISTS eval_reviews (
  run_id TEXT NOT NULL, case_id TEXT NOT NULL, fingerprint TEXT NOT NULL,
  verdict TEXT, comment TEXT, decided_at TEXT, PRIMARY KEY (run_id, case_id)
);
CREATE TABLE IF NOT EXISTS eval_bank (
  suite TEXT NOT NULL, case_id TEXT NOT NULL, key TEXT NOT NULL, question TEXT NOT NULL,
  options TEXT NOT NULL, answer TEXT, source TEXT, updated_at TEXT NOT NULL,
  PRIMARY KEY (suite, case_id, key)
);
CREATE TABLE IF NOT EXISTS eval_matrices (
  id TEXT PRIMARY KEY, suite TEXT NOT NULL, created_at TEXT NOT NULL, run_ids TEXT NOT NULL
);
"""
# Added after the first release: who created a run or matrix (an API token id; "local" for the CLI).
OWNER_COLUMNS = ("eval_runs", "eval_matrices")
LOCAL_OWNER = "local"

ManualVerdict = Literal["right", "wrong"]


def now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


class ReviewItem(BaseModel):
    """A case the judge and the automatic check disagree on."""

    run_id: str
    case: CaseRecord
    verdict: ManualVerdict | None = None
    comment: str | None = None


class BankEntry(BaseModel):
    """A stored answer to a clarifying question (answer None: still needed)."""

    suite: str
    case_id: str
    key: str
    question: str
    options: list[dict[str, Any]]
    answer: str | None = None
    source: str | None = None


_OPENING = threading.Lock()


class EvalStore:
    """One SQLite connection; safe to share between threads of one process."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._conn = sqlite3.connect(str(path), check_same_thread=False, timeout=30)
        with _OPENING:  # one schema set-up at a time: SQLite refuses a second writer at once
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.executescript(SCHEMA)
            for table in OWNER_COLUMNS:
                self._add_owner(table)
            self._conn.commit()
        self._lock = threading.Lock()

    def _add_owner(self, table: str) -> None:
        """The owner column of an older store. Two stores opened at once (a feedback post
        beside another request) may both see it missing: the second ALTER is then a no-op."""
        names = {row[1] for row in self._conn.execute(f"PRAGMA table_info({table})")}
        if "owner" in names:
            return
        try:
            self._conn.execute(
                f"ALTER TABLE {table} ADD COLUMN owner TEXT NOT NULL DEFAULT '{LOCAL_OWNER}'"
            )
        except sqlite3.OperationalError as exc:
            if "duplicate column name" not in str(exc):
                raise

    @classmethod
    def from_settings(cls, settings: Any) -> EvalStore:
        return cls(settings.state_path)

    def close(self) -> None:
        self._conn.close()

    def _write(self, sql: str, params: tuple[Any, ...] = ()) -> None:
        with self._lock, self._conn:
            self._conn.execute(sql, params)

    def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    # --- runs -----------------------------------------------------------------------------

    def save_run(self, run: RunRecord) -> None:
        """Insert or replace a run and all its cases."""
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT OR REPLACE INTO eval_runs (id, suite, config_name, matrix_id, "
                "started_at, finished_at, config, "
                "owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    run.id,
                    run.suite,
                    run.config_name,
                    run.matrix_id,
                    run.started_at,
                    run.finished_at,
                    json.dumps(run.config, ensure_ascii=False),
                    run.owner,
                ),
            )
            self._conn.execute("DELETE FROM eval_cases WHERE run_id = ?", (run.id,))
            self._conn.executemany(
                "INSERT INTO eval_cases VALUES (?, ?, ?, ?)",
                [(run.id, c.case_id, n, c.model_dump_json()) for n, c in enumerate(run.cases)],
            )
            for case in run.cases:
                if case.in_review:
                    self._conn.execute(
                        "INSERT OR IGNORE INTO eval_reviews (run_id, case_id, "
                        "fingerprint) VALUES (?, ?, ?)",
                        (run.id, case.case_id, case.fingerprint),
                    )

    def resolve_run_id(self, ref: str, owner: str | None = None) -> str:
        """A run id from an id, a unique id prefix, or "last" (the CLI, which sees every run);
        with `owner` (the API), only that owner's run with exactly this id."""
        if owner is not None:
            rows = self._rows("SELECT id FROM eval_runs WHERE id = ? AND owner = ?", (ref, owner))
            if not rows:
                raise EvalError(f"no run {ref[:64]!r}", message_ru=f"запуск {ref[:64]!r} не найден")
            return str(rows[0][0])
        if ref == "last":
            rows = self._rows(
                "SELECT id FROM eval_runs ORDER BY started_at DESC, rowid DESC LIMIT 1"
            )
        else:
            rows = self._rows(
                "SELECT id FROM eval_runs WHERE id = ? OR id LIKE ?", (ref, f"{ref}%")
            )
            exact = [r for r in rows if r[0] == ref]
            rows = exact or rows
        if len(rows) != 1:
            what = "no run" if not rows else f"{len(rows)} runs"
            raise EvalError(
                f"{what} matches {ref!r}; see `vitrina eval list`",
                message_ru=f"запуск {ref!r} не найден однозначно; см. `vitrina eval list`",
            )
        return str(rows[0][0])

    def load_run(self, ref: str, owner: str | None = None) -> RunRecord:
        """A stored run with its cases, manual verdicts applied (with `owner`: by exact id, its
        own only)."""
        run_id = self.resolve_run_id(ref, owner)
        head = self._rows(
            "SELECT id, suite, config_name, matrix_id, started_at, finished_at, config, owner "
            "FROM eval_runs WHERE id = ?",
            (run_id,),
        )[0]
        reviews = {
            r[0]: r
            for r in self._rows(
                "SELECT case_id, verdict, comment FROM eval_reviews WHERE run_id = ?", (run_id,)
            )
        }
        cases = []
        for (data,) in self._rows(
            "SELECT data FROM eval_cases WHERE run_id = ? ORDER BY position", (run_id,)
        ):
            case = CaseRecord.model_validate_json(data)
            review = reviews.get(case.case_id)
            if review is not None and review[1]:
                case = case.model_copy(update={"manual": review[1], "manual_comment": review[2]})
            cases.append(case)
        return RunRecord(
            id=head[0],
            suite=head[1],
            config_name=head[2],
            matrix_id=head[3],
            started_at=head[4],
            finished_at=head[5],
            config=json.loads(head[6]),
            owner=head[7],
            cases=cases,
        )

    def list_runs(self, limit: int = 50) -> list[RunRecord]:
        ids = self._rows(
            "SELECT id FROM eval_runs ORDER BY started_at DESC, rowid DESC LIMIT ?", (limit,)
        )
        return [self.load_run(i) for (i,) in ids]

    # --- matrices -------------------------------------------------------------------------

    def save_matrix(
        self, matrix_id: str, suite: str, run_ids: list[str], owner: str = LOCAL_OWNER
    ) -> None:
        self._write(
            "INSERT OR REPLACE INTO eval_matrices (id, suite, created_at, run_ids, "
            "owner) VALUES (?, ?, ?, ?, ?)",
            (matrix_id, suite, now(), json.dumps(run_ids), owner),
        )

    def list_matrices(self, limit: int = 20) -> list[tuple[str, str, str, list[str]]]:
        """Matrices newest first: (id, suite, created_at, run ids)."""
        rows = self._rows(
            "SELECT id, suite, created_at, run_ids FROM eval_matrices "
            "ORDER BY created_at DESC, rowid DESC LIMIT ?",
            (limit,),
        )
        return [(r[0], r[1], r[2], json.loads(r[3])) for r in rows]

    def resolve_matrix(self, ref: str) -> str | None:
        """A matrix id from its id or a unique prefix (the CLI); None when no matrix matches."""
        rows = self._rows(
            "SELECT id FROM eval_matrices WHERE id = ? OR id LIKE ?", (ref, f"{ref}%")
        )
        exact = [r[0] for r in rows if r[0] == ref]
        ids = exact or [r[0] for r in rows]
        if len(ids) > 1:
            raise EvalError(
                f"{len(ids)} matrices match {ref!r}; give more of the id (`vitrina eval list`)",
                message_ru=f"матрица {ref!r} не найдена однозначно; см. `vitrina eval list`",
            )
        return ids[0] if ids else None

    def matrix_runs(self, matrix_id: str, owner: str | None = None) -> list[str] | None:
        """The runs of a matrix (with `owner`: only when that owner created it)."""
        sql = "SELECT run_ids FROM eval_matrices WHERE id = ?"
        params: tuple[str, ...] = (matrix_id,)
        if owner is not None:
            sql, params = sql + " AND owner = ?", (matrix_id, owner)
        rows = self._rows(sql, params)
        return json.loads(rows[0][0]) if rows else None

    # --- review queue ---------------------------------------------------------------------

    def resolve_owned(self, run_id: str, owner: str) -> bool:
        """Whether `owner` has a run with exactly this id."""
        return bool(
            self._rows("SELECT 1 FROM eval_runs WHERE id = ? AND owner = ?", (run_id, owner))
        )

    def reopen(self, run_id: str, case_id: str, fingerprint: str) -> None:
        """Put a case (back) in the review queue with no verdict (user feedback given again)."""
        self._write(
            "INSERT OR REPLACE INTO eval_reviews (run_id, case_id, fingerprint) VALUES (?, ?, ?)",
            (run_id, case_id, fingerprint),
        )

    def open_reviews(
        self, run_ref: str | None = None, owner: str | None = None
    ) -> list[ReviewItem]:
        """Cases waiting for a person, oldest run first (of one run when `run_ref` is given; of
        `owner`'s runs only when it is given)."""
        sql = "SELECT run_id, case_id FROM eval_reviews WHERE verdict IS NULL"
        params: tuple[Any, ...] = ()
        if run_ref is not None:
            sql, params = sql + " AND run_id = ?", (self.resolve_run_id(run_ref, owner),)
        elif owner is not None:
            sql, params = (
                sql + " AND run_id IN (SELECT id FROM eval_runs WHERE owner = ?)",
                (owner,),
            )
        items = []
        for run_id, case_id in self._rows(sql + " ORDER BY rowid", params):
            data = self._rows(
                "SELECT data FROM eval_cases WHERE run_id = ? AND case_id = ?", (run_id, case_id)
            )
            if data:
                items.append(
                    ReviewItem(run_id=run_id, case=CaseRecord.model_validate_json(data[0][0]))
                )
        return items

    def decide(
        self,
        run_ref: str,
        case_id: str,
        verdict: str,
        comment: str | None,
        owner: str | None = None,
    ) -> None:
        """Record a person's verdict; a comment is required."""
        if verdict not in ("right", "wrong"):
            raise EvalError(
                f"verdict must be right or wrong, not {verdict!r}",
                message_ru="вердикт: right (верно) или wrong (неверно)",
            )
        if not comment or not comment.strip():
            raise EvalError(
                "a verdict needs a comment that says why (--comment TEXT)",
                message_ru="вердикту нужен комментарий с объяснением (--comment ТЕКСТ)",
            )
        run_id = self.resolve_run_id(run_ref, owner)
        rows = self._rows(
            "SELECT 1 FROM eval_reviews WHERE run_id = ? AND case_id = ?", (run_id, case_id)
        )
        if not rows:
            raise EvalError(
                f"case {case_id!r} of run {run_id} is not in the review queue",
                message_ru=f"случая {case_id!r} запуска {run_id} нет в очереди проверки",
            )
        self._write(
            "UPDATE eval_reviews SET verdict = ?, comment = ?, decided_at = ? WHERE "
            "run_id = ? AND case_id = ?",
            (verdict, comment.strip(), now(), run_id, case_id),
        )

    def manual_verdict(self, case_id: str, fingerprint: str) -> tuple[ManualVerdict, str] | None:
        """A verdict a person already gave for the same case and the same pair of results."""
        rows = self._rows(
            "SELECT verdict, comment FROM eval_reviews WHERE case_id = ? AND fingerprint "
            "= ? AND verdict IS NOT NULL "
            "ORDER BY decided_at DESC LIMIT 1",
            (case_id, fingerprint),
        )
        return (rows[0][0], rows[0][1]) if rows else None

    # --- clarification bank ---------------------------------------------------------------

    def bank_answer(self, suite: str, case_id: str, key: str) -> str | None:
        rows = self._rows(
            "SELECT answer FROM eval_bank WHERE suite = ? AND case_id = ? AND key = ?",
            (suite, case_id, key),
        )
        return rows[0][0] if rows else None

    def bank_put(self, entry: BankEntry) -> None:
        """Store an answer, or a question still waiting for one (never erasing an answer)."""
        self._write(
            "INSERT INTO eval_bank VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (suite, "
            "case_id, key) DO UPDATE SET "
            "question = excluded.question, options = excluded.options, "
            "answer = COALESCE(excluded.answer, eval_bank.answer), source = "
            "COALESCE(excluded.source, eval_bank.source), "
            "updated_at = excluded.updated_at",
            (
                entry.suite,
                entry.case_id,
                entry.key,
                entry.question,
                json.dumps(entry.options, ensure_ascii=False),
                entry.answer,
                entry.source,
                now(),
            ),
        )

    def bank(self, suite: str | None = None) -> list[BankEntry]:
        sql = "SELECT suite, case_id, key, question, options, answer, source FROM eval_bank"
        rows = self._rows(
            sql + (" WHERE suite = ?" if suite else "") + " ORDER BY suite, case_id",
            (suite,) if suite else (),
        )
        return [
            BankEntry(
                suite=r[0],
                case_id=r[1],
                key=r[2],
                question=r[3],
                options=json.loads(r[4]),
                answer=r[5],
                source=r[6],
            )
            for r in rows
        ]
