"""Several requests open the eval store at once (a feedback post beside a turn): the owner
column's migration must not fail the second one ("duplicate column name: owner")."""

from __future__ import annotations

import threading
from pathlib import Path

from vitrina.eval.store import OWNER_COLUMNS, EvalStore


def test_stores_opened_at_once_on_a_new_file_all_open(tmp_path: Path) -> None:
    for attempt in range(10):
        path = tmp_path / f"state{attempt}.sqlite"
        barrier = threading.Barrier(6)
        errors: list[BaseException] = []

        def open_one(
            path: Path = path,
            barrier: threading.Barrier = barrier,
            errors: list[BaseException] = errors,
        ) -> None:
            barrier.wait()
            try:
                EvalStore(path).close()
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=open_one) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert errors == []
        store = EvalStore(path)
        for table in OWNER_COLUMNS:
            names = {row[1] for row in store._conn.execute(f"PRAGMA table_info({table})")}
            assert "owner" in names
        store.close()
