"""Byte budgets of a task (decision 146), through the graph on the demo warehouse: every copy a
step writes counts against the task folder's quota; a step that would go over it fails with
the quota named and leaves nothing it wrote; the state keeps long cells cut, the CSV whole.

The plans are edited to run one real SQL step: twelve rows of a 200,000-character cell, about
2.4 MB per copy (JSON and CSV)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

BIG = 200_000
SQL = f"SELECT region_name, repeat('x', {BIG}) AS big FROM dwh.dim_region"
STEP = {"title": "Большие ячейки", "tool": "run_sql", "args": {"sql": SQL}}
CSV_STEP = {"title": "В CSV", "tool": "write_file", "args": {"format": "csv", "steps": [1]}}
MB = 1 << 20


def _run(service, steps):
    """Start, edit the plan to ``steps``, approve it and each step until one waits with an
    error or the task ends; the last view."""
    view = service.start("Выгрузи регионы с большими ячейками")
    view = service.decide(view.task_id, {"action": "edit", "steps": steps})
    view = service.decide(view.task_id, {"action": "approve"})
    for _ in range(len(steps) + 1):
        if view.pending is None or view.pending.get("error"):
            return view
        view = service.decide(view.task_id, {"action": "approve"})
    return view


def _files(folder: str | None) -> dict[str, int]:
    root = Path(folder or "")
    return {str(p.relative_to(root)): p.stat().st_size for p in root.rglob("*") if p.is_file()}


@pytest.fixture
def quota(monkeypatch):
    def set_quota(max_bytes: int, cell_chars: int = 1000) -> None:
        monkeypatch.setenv("VITRINA_TASK_FOLDER_MAX_BYTES", str(max_bytes))
        monkeypatch.setenv("VITRINA_RESULT_CELL_MAX_CHARS", str(cell_chars))

    return set_quota


def test_the_state_keeps_cut_cells_and_the_csv_keeps_the_values(make_task, quota, tmp_path):
    quota(64 * MB)
    service = make_task(state_path=tmp_path / "tasks.sqlite")
    view = _run(service, [STEP])
    assert view.status == "done", view.pending
    out = view.plan[0].outputs[0]
    assert out.ok and out.row_count == 12
    cell = out.preview[0][1]
    assert cell == "x" * 1000 + f"… (cut: {BIG} chars)"
    text = Path(out.data or "").with_suffix(".csv").read_text(encoding="utf-8-sig")
    rows = text.splitlines()
    assert len(rows) == 13 and rows[1].split(",")[1] == "x" * BIG
    assert json.loads(Path(out.data or "").read_text())["rows"][0][1] == "x" * BIG
    # no state copy: nothing was spilled, and the checkpoints hold no long value
    assert not (Path(view.out_dir or "") / "state-values").exists()
    blobs = sqlite3.connect(tmp_path / "tasks.sqlite").execute("SELECT checkpoint FROM checkpoints")
    assert max(len(bytes(b)) for (b,) in blobs) < 200_000


def test_a_table_over_the_quota_is_refused_before_it_is_written(make_task, quota):
    quota(4 * MB)  # one copy of the text fits, two do not
    view = _run(make_task(), [STEP])
    error = view.pending["error"]
    assert "Не записано (sql-1.json + .csv, 4.6 МБ)" in error and "task_folder_max_bytes" in error
    assert "из 4.0 МБ" in error
    assert not any(name.startswith("step-1/sql-1") for name in _files(view.out_dir))
    assert "approve" not in view.pending["options"]


def test_a_csv_over_the_quota_stops_at_the_quota_and_nothing_stays(make_task, quota):
    """100,000 rows of numbers: the JSON (1.7 MB) fits in 2 MB, the CSV (1.4 MB) after it
    does not; it is stopped at the quota and neither file stays."""
    quota(2 * MB)
    sql = "SELECT payment_id, amount_rub FROM dwh.fact_payment ORDER BY payment_id LIMIT 100000"
    view = _run(make_task(), [{**STEP, "args": {"sql": sql}}])
    assert "Не записано (sql-1.csv" in view.pending["error"]
    files = _files(view.out_dir)
    assert not any(name.startswith("step-1/sql-1") for name in files)
    assert sum(files.values()) <= 2 * MB


def test_a_file_step_over_the_quota_removes_what_it_wrote(make_task, quota):
    quota(6 * MB)  # the step's table (2 x 2.4 MB) fits; a third copy does not
    view = _run(make_task(), [STEP, CSV_STEP])
    assert view.pending["step"]["n"] == 2
    error = view.pending["error"]
    assert error.startswith("Не записано (write_file, 2.3 МБ)") and "из 6.0 МБ" in error
    files = _files(view.out_dir)
    assert not any(name.startswith("files/") for name in files)
    assert sum(files.values()) <= 6 * MB
    trace = [e for e in view.trace if e.message == "task folder quota: the call's files removed"]
    assert trace and trace[-1].data["tool"] == "write_file" and trace[-1].data["count"] == 1


@pytest.fixture
def pg_regions(own_pg_database: str):
    """A warehouse URL on PostgreSQL: the demo's region table in schema dwh, read by a role of
    this test's own that can only read it (dropped afterwards)."""
    import uuid

    import psycopg

    role = f"vitrina_bytes_{uuid.uuid4().hex[:8]}"
    database = own_pg_database.rsplit("/", 1)[1]
    with psycopg.connect(own_pg_database, autocommit=True) as admin:
        admin.execute("CREATE SCHEMA dwh")
        admin.execute("CREATE TABLE dwh.dim_region (region_id int PRIMARY KEY, region_name text)")
        admin.execute(
            "INSERT INTO dwh.dim_region SELECT n, 'Регион ' || n FROM generate_series(1, 12) n"
        )
        admin.execute("REVOKE ALL ON SCHEMA public FROM PUBLIC")
        admin.execute(f'REVOKE ALL ON DATABASE "{database}" FROM PUBLIC')
        admin.execute(f"CREATE ROLE {role} LOGIN")
        admin.execute(f'GRANT CONNECT ON DATABASE "{database}" TO {role}')
        admin.execute(f"GRANT USAGE ON SCHEMA dwh TO {role}")
        admin.execute(f"GRANT SELECT ON dwh.dim_region TO {role}")
    host = own_pg_database.split("@", 1)[1]
    yield f"postgresql://{role}@{host}"
    with psycopg.connect(own_pg_database, autocommit=True) as admin:
        admin.execute(f"DROP OWNED BY {role}")
    with psycopg.connect(own_pg_database.rsplit("/", 1)[0] + "/postgres", autocommit=True) as a:
        a.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        a.execute(f"DROP ROLE IF EXISTS {role}")


def test_the_quota_and_the_cell_cap_on_postgresql(make_task, quota, pg_regions):
    quota(64 * MB)
    view = _run(make_task(db_url=pg_regions), [STEP])
    assert view.status == "done", view.pending
    out = view.plan[0].outputs[0]
    assert out.row_count == 12 and out.preview[0][1] == "x" * 1000 + f"… (cut: {BIG} chars)"
    assert json.loads(Path(out.data or "").read_text())["rows"][0][1] == "x" * BIG
    quota(4 * MB)
    view = _run(make_task(db_url=pg_regions), [STEP])
    assert "Не записано (sql-1.json + .csv, 4.6 МБ)" in view.pending["error"]
    assert not any(name.startswith("step-1/sql-1") for name in _files(view.out_dir))
