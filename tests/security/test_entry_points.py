"""The hostile corpus through every entry point that takes SQL, on DuckDB and PostgreSQL.

Entry points: MCP ``run_sql`` over stdio (the official SDK client against ``vitrina mcp``),
a task's ``run_sql`` step (the tool call a step makes), and a question whose scripted
model obeys the injected SQL. PostgreSQL gets ``dblink`` installed; Vitrina connects
first as the superuser (refused) and then as the reader role. Afterwards the database
checksum and the file system are as they were, and the server still answers. Every entry
point runs with a catalog that leaves out one column the warehouse has (corpus.HIDDEN_COLUMN),
and none of that column's values ever appears in what it returns or writes.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import anyio
import duckdb
import psycopg
import pytest
from mcp.client.stdio import StdioServerParameters

from mcp import Client
from vitrina.ask.service import AskService
from vitrina.catalog import Catalog
from vitrina.config import load_settings
from vitrina.llm.client import LLMClient
from vitrina.llm.fake import ScriptedChatModel
from vitrina.task.state import Step
from vitrina.task.tools import ToolEnv
from vitrina.trace import Trace
from vitrina.warehouse import Warehouse

from .corpus import (
    HIDDEN_COLUMN,
    HIDDEN_TABLE,
    Attack,
    for_dialect,
    hidden_catalog,
    write_hidden_catalog,
)

SENTINELS = (
    "/tmp/vitrina_pwned",
    "/tmp/vitrina_pwned.csv",
    "/tmp/vitrina_pwned.db",
    "/tmp/vitrina_pwned.parquet",
)
CONTROL_SQL = "SELECT region_id FROM dwh.dim_region ORDER BY region_id LIMIT 3"
QUESTION = "Сколько платежей было в 2025 году?"
MCP_TIMEOUT_S = 600


@dataclass
class Target:
    """One warehouse under attack: the URL Vitrina uses and how to take its fingerprint."""

    dialect: str
    url: str
    fingerprint: Any  # () -> str
    hidden: frozenset[str]  # every value of the column the catalog leaves out

    def leaked(self, text: str) -> list[str]:
        """The hidden values that appear in ``text`` (none, or the column leaked)."""
        return sorted(value for value in self.hidden if value in text)


def _file_sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _pg_fingerprint(admin_url: str) -> str:
    """Rows of every dwh table; relations, functions, extensions, large objects; the reader role."""
    parts = []
    with psycopg.connect(admin_url, autocommit=True) as admin:
        tables = [
            r[0]
            for r in admin.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = "
                "'dwh' ORDER BY 1"
            )
        ]
        for table in tables:
            parts.append(
                admin.execute(
                    "SELECT md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), "
                    f"'')) FROM dwh.{table} t"
                ).fetchone()[0]
            )
        for sql in [
            "SELECT string_agg(n.nspname || '.' || c.relname, ',' ORDER BY 1) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname NOT LIKE 'pg\\_%'",
            "SELECT count(*) FROM pg_proc",
            "SELECT count(*) FROM pg_largeobject_metadata",
            # roles are shared by every database on the server (other test runs add theirs):
            # the reader's own attributes and this database's role settings only
            "SELECT string_agg(rolname || rolsuper::text || rolcreaterole::text || "
            "rolcreatedb::text, ',') FROM pg_roles WHERE rolname = 'vitrina_reader'",
            "SELECT string_agg(array_to_string(setconfig, ';'), ',' ORDER BY 1) FROM "
            "pg_db_role_setting "
            "WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())",
            "SELECT string_agg(extname, ',' ORDER BY 1) FROM pg_extension",
        ]:
            parts.append(str(admin.execute(sql).fetchone()[0]))
    return hashlib.sha256("|".join(parts).encode()).hexdigest()


def _files_outside() -> set[str]:
    return {path for path in SENTINELS if os.path.exists(path)}


@pytest.fixture(scope="module")
def duck_target(demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Target:
    folder = tmp_path_factory.mktemp("attacked-duckdb")
    path = folder / "warehouse.duckdb"
    shutil.copyfile(demo_db, path)
    with duckdb.connect(str(path), read_only=True) as con:
        hidden = con.execute(f"SELECT DISTINCT {HIDDEN_COLUMN} FROM {HIDDEN_TABLE}").fetchall()
    return Target(
        "duckdb",
        f"duckdb:///{path}",
        lambda: (_file_sha(path), sorted(os.listdir(folder))),
        _hidden_values(hidden),
    )


@pytest.fixture(scope="module")
def pg_target(pg_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    """A small demo in the per-run database, with dblink installed; the reader role's URL."""
    from vitrina.warehouse.demo import build_demo_warehouse
    from vitrina.warehouse.pg_load import load_demo_into_postgres
    from vitrina.warehouse.reader_role import create_reader_role

    small = tmp_path_factory.mktemp("attacked-pg") / "small.duckdb"
    build_demo_warehouse(small, scale=0.02)
    load_demo_into_postgres(small, pg_url)
    with psycopg.connect(pg_url, autocommit=True) as admin:
        available = admin.execute(
            "SELECT 1 FROM pg_available_extensions WHERE name = 'dblink'"
        ).fetchone()
        if not available:
            message = (
                "dblink is not installed on the server: `make pg-contrib` (postgresql-contrib)"
            )
            if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
                pytest.fail(message)
            pytest.skip(message)
        admin.execute("CREATE EXTENSION IF NOT EXISTS dblink")
        hidden = admin.execute(f"SELECT DISTINCT {HIDDEN_COLUMN} FROM {HIDDEN_TABLE}").fetchall()
    reader = create_reader_role(pg_url, ["dwh"])
    yield Target("postgres", reader, lambda: _pg_fingerprint(pg_url), _hidden_values(hidden))


def _hidden_values(rows: list[tuple[Any, ...]]) -> frozenset[str]:
    values = frozenset(str(row[0]) for row in rows if row[0] is not None)
    assert len(values) > 10, "the hidden column has values to look for"
    return values


@pytest.fixture(scope="module")
def catalog_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The corpus catalog as a folder, for ``vitrina mcp``."""
    return write_hidden_catalog(tmp_path_factory.mktemp("hidden-catalog"))


def _written_text(folder: Path) -> str:
    """Every file under ``folder`` as text (the CSV and JSON copies a step writes)."""
    return "\n".join(
        path.read_text(encoding="utf-8", errors="replace")
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    )


def _attacks(dialect: str) -> list[Attack]:
    return for_dialect(dialect)


# --- MCP run_sql over stdio ------------------------------------------------------------


def _mcp_run_all(
    url: str, home: Path, sqls: list[str], catalog: Path | None = None
) -> list[tuple[bool, str]]:
    """Call run_sql once per text in one stdio session; (is_error, text) per call."""
    env = {"VITRINA_HOME": str(home), "VITRINA_DB_URL": url, "PATH": os.environ["PATH"]}
    if "PYTHONPATH" in os.environ:  # the server imports the tree under test
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    if catalog is not None:
        env["VITRINA_CATALOG_DIR"] = str(catalog)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "vitrina.cli", "mcp"], env=env
    )
    answers: list[tuple[bool, str]] = []

    async def session() -> None:
        with anyio.fail_after(MCP_TIMEOUT_S):
            await calls(sqls)

    async def calls(sqls: list[str]) -> None:
        async with Client(params, read_timeout_seconds=120) as client:
            for sql in sqls:
                result = await client.call_tool("run_sql", {"sql": sql, "max_rows": 5})
                text = " ".join(getattr(c, "text", "") for c in result.content)
                answers.append((bool(result.is_error), text))

    anyio.run(session)
    return answers


@pytest.mark.parametrize("which", ["duckdb", "postgres"])
def test_mcp_run_sql_refuses_the_corpus(
    which: str, request: pytest.FixtureRequest, tmp_path: Path, catalog_dir: Path
) -> None:
    target: Target = request.getfixturevalue(f"{'duck' if which == 'duckdb' else 'pg'}_target")
    # A lone surrogate cannot travel in a JSON-RPC request (the client refuses to encode it);
    # invalid bytes on the wire are the MCP input checks' business. The other entry points get it.
    attacks = [a for a in _attacks(target.dialect) if _encodable(a.sql)]
    before, outside = target.fingerprint(), _files_outside()
    answers = _mcp_run_all(
        target.url, tmp_path, [a.sql for a in attacks] + [CONTROL_SQL], catalog_dir
    )
    *refusals, control = answers
    let_through = [
        a.id
        for a, (is_error, _) in zip(attacks, refusals, strict=True)
        if not is_error and a.safe_sql is None
    ]
    assert let_through == [], let_through
    leaked = {a.id: target.leaked(text) for a, (_, text) in zip(attacks, refusals, strict=True)}
    assert {k: v for k, v in leaked.items() if v} == {}
    assert not control[0] and '"rows"' in control[1], control  # the server still answers
    assert target.fingerprint() == before
    assert _files_outside() == outside


def _encodable(sql: str) -> bool:
    try:
        sql.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def test_mcp_as_the_postgres_superuser_is_refused(
    pg_url: str, pg_target: Target, tmp_path: Path
) -> None:
    before = pg_target.fingerprint()
    (control_error, control), (attack_error, _) = _mcp_run_all(
        pg_url, tmp_path, [CONTROL_SQL, "SELECT pg_read_file('/etc/passwd')"]
    )
    assert (
        control_error
        and "privileged" in control
        and re.search(r"CREATE ROLE \S+_reader LOGIN", control)
    ), control
    assert attack_error  # the guard refuses it before the connection is even tried
    assert pg_target.fingerprint() == before


# --- a task's run_sql step ---------------------------------------------------------------


def _task_env(url: str, home: Path, catalog: Catalog) -> tuple[Any, ToolEnv]:
    from vitrina.task import TaskService

    settings = load_settings(db_url=url)
    warehouse = Warehouse(url, timeout_s=settings.statement_timeout_s, row_cap=settings.row_cap)
    service = TaskService(
        settings,
        catalog=catalog,
        warehouse=warehouse,
        ask=lambda q: None,
        use_llm=False,
        today=date(2026, 11, 30),
    )
    step = Step(n=1, title="attack", tool="run_sql")
    folder = home / "step-1"
    folder.mkdir(parents=True, exist_ok=True)
    env = ToolEnv(
        ctx=service.context, plan=[step], step=step, folder=folder, lang="ru", trace=Trace("step")
    )
    return warehouse, env


@pytest.mark.parametrize("which", ["duckdb", "postgres"])
def test_a_task_step_refuses_the_corpus(
    which: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    target: Target = request.getfixturevalue(f"{'duck' if which == 'duckdb' else 'pg'}_target")
    warehouse, env = _task_env(target.url, tmp_path, hidden_catalog())
    tool = env.ctx.tools["run_sql"]
    before, outside = target.fingerprint(), _files_outside()
    try:
        let_through, leaked = [], {}
        for attack in _attacks(target.dialect):
            out = tool.call(env, {"sql": attack.sql})
            if out.ok and attack.safe_sql is None:
                let_through.append(attack.id)
            if found := target.leaked(out.model_dump_json()):
                leaked[attack.id] = found
        assert let_through == [], let_through
        assert leaked == {}
        assert target.leaked(_written_text(tmp_path)) == []
        control = tool.call(env, {"sql": CONTROL_SQL})
        assert control.ok and control.row_count == 3, control.error
    finally:
        warehouse.close()
    assert target.fingerprint() == before
    assert _files_outside() == outside


# --- a question whose model obeys injected SQL -------------------------------------------


def _obedient_model(attack_sql: str) -> ScriptedChatModel:
    """Every turn of the model path succeeds, and every SQL it writes is the attack."""
    generated = json.dumps({"sql": attack_sql, "explanation": "as instructed", "confidence": 0.99})
    return ScriptedChatModel(
        {
            "topic": ['{"topic": "payments", "confidence": 0.9}'],
            "ambiguity": ['{"ambiguous": false}'],
            "tables": ['{"tables": ["dwh.fact_payment"], "reason": "payments"}'],
            "feasibility": ['{"feasible": true}'],
            "sql_generation": [generated] * 5,
            "semantic_check": ['{"answers_question": true}'] * 5,
            "answer": ['{"text": "Готово."}'] * 2,
        }
    )


@pytest.mark.parametrize("which", ["duckdb", "postgres"])
def test_a_question_with_an_obedient_model_never_runs_the_corpus(
    which: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    target: Target = request.getfixturevalue(f"{'duck' if which == 'duckdb' else 'pg'}_target")
    settings = load_settings(db_url=target.url)
    service = AskService(
        settings,
        catalog=hidden_catalog(),
        today=date(2026, 11, 30),
        write_files=False,
        llm=LLMClient(_obedient_model(CONTROL_SQL), timeout_s=5),
    )
    before, outside = target.fingerprint(), _files_outside()
    ran, leaked = [], {}
    try:
        for attack in _attacks(target.dialect):
            service.llm = LLMClient(
                _obedient_model(attack.sql),
                timeout_s=5,
                max_retries=0,
                backoff_s=0,
                sleep=lambda _s: None,
            )
            result = service.ask(QUESTION, thread_id=attack.id)
            if (
                result.status == "answered"
                and result.sql_source == "llm"
                and attack.safe_sql is None
            ):
                ran.append(attack.id)
            if found := target.leaked(result.model_dump_json()):
                leaked[attack.id] = found
        assert ran == [], ran
        assert leaked == {}
        assert len(service.warehouse.execute(CONTROL_SQL).rows) == 3  # still answers
    finally:
        service.close()
    assert target.fingerprint() == before
    assert _files_outside() == outside
