"""Shared fixtures: an isolated VITRINA_HOME, the shared fixtures folder, PostgreSQL."""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED_FIXTURES = ROOT.parent / "shared" / "fixtures"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
PG_URL = os.environ.get("VITRINA_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
# Hypothesis keeps its files (its example database, its cache of the code's constants) outside
# the checkout: it reads this before its first import, which comes after this conftest
os.environ.setdefault(
    "HYPOTHESIS_STORAGE_DIRECTORY", str(Path(tempfile.gettempdir()) / "vitrina-hypothesis")
)
# the real-model tier runs only under `make test-llm`, which names its cached environment
collect_ignore = [] if os.environ.get("VITRINA_TEST_LLM_ENV") else ["llm_real"]


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Every test gets its own VITRINA_HOME unless it asks for the shared session one."""
    home = tmp_path_factory.mktemp("vitrina-home")
    monkeypatch.setenv("VITRINA_HOME", str(home))
    for key in list(os.environ):
        if key.startswith("VITRINA_LLM_"):
            monkeypatch.delenv(key, raising=False)
    return home


def cli_main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """`vitrina ARGS` through the console script's entry point: its exit code and what it
    printed (stdout and stderr)."""
    from vitrina.cli import main

    capsys.readouterr()
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def writable_copy(src: Path, dst: Path) -> Path:
    """A copy of a shared fixture folder that a test may change. copytree keeps the source's
    modes, and ../shared may be read-only (it is on CI): an ordinary user could not add or
    remove files in such a copy (root can, which hid it)."""
    shutil.copytree(src, dst, copy_function=shutil.copyfile)
    for path in (dst, *dst.rglob("*")):
        if path.is_dir():
            path.chmod(0o755)
    return dst


@pytest.fixture(scope="session")
def shared_fixtures() -> Path:
    """../shared/fixtures: skipped with a reason when absent, required under CI."""
    if not SHARED_FIXTURES.is_dir():
        if IN_CI:
            pytest.fail(f"CI=true but {SHARED_FIXTURES} is missing")
        pytest.skip(
            f"{SHARED_FIXTURES} not found: clone the project next to ../shared to run these"
        )
    return SHARED_FIXTURES


@pytest.fixture(scope="session")
def chdb_installed() -> None:
    """chDB (the `clickhouse` extra, which `make test` installs): skipped with a reason when
    absent, required under CI."""
    import importlib.util

    if importlib.util.find_spec("chdb") is None:
        if IN_CI:
            pytest.fail("CI=true but chdb is not installed: pip install -e '.[clickhouse]'")
        pytest.skip(
            "chdb is not installed: pip install -e '.[clickhouse]' runs the ClickHouse tests"
        )


def _pg_reachable(url: str) -> str | None:
    try:
        import psycopg

        with psycopg.connect(
            url.replace("postgresql+psycopg://", "postgresql://"), connect_timeout=3
        ):
            return None
    except Exception as exc:
        return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


@pytest.fixture(scope="session")
def pg_server_url() -> str:
    """The configured PostgreSQL server (an admin URL); skip (or fail under CI) when unreachable."""
    problem = _pg_reachable(PG_URL)
    if problem:
        if IN_CI:
            pytest.fail(f"CI=true but PostgreSQL at {PG_URL} is not reachable: {problem}")
        pytest.skip(f"PostgreSQL at {PG_URL} not reachable ({problem}); set VITRINA_TEST_PG_URL")
    return PG_URL


def _pg_database(server_url: str) -> Iterator[str]:
    """A database created on the server for its caller alone, dropped afterwards."""
    import psycopg

    name = f"vitrina_test_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    admin_url = server_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    yield admin_url.rsplit("/", 1)[0] + f"/{name}"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        # the database's reader role (reader_role.ensure_reader_role names it after the
        # database); roles belong to the server and outlive the database
        admin.execute(f'DROP ROLE IF EXISTS "{name}_reader"')


@pytest.fixture(scope="session")
def pg_url(pg_server_url: str) -> Iterator[str]:
    """A database of this test run's own, created on the server and dropped afterwards.

    Two test runs on one server (two checkouts, two CI jobs) never share a schema, so they
    neither deadlock nor see each other's tables.
    """
    yield from _pg_database(pg_server_url)


@pytest.fixture
def own_pg_database(pg_server_url: str) -> Iterator[str]:
    """A database for one test alone: one that kills its connections, say."""
    yield from _pg_database(pg_server_url)


TODAY = __import__("datetime").date(2026, 11, 30)  # "today" for every relative period in tests


@pytest.fixture(scope="session")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The full-size demo warehouse, built once per test session (about 3 s)."""
    from vitrina.warehouse.demo import build_demo_warehouse

    path = tmp_path_factory.mktemp("demo") / "warehouse.duckdb"
    build_demo_warehouse(path)
    return path


@pytest.fixture
def make_service(demo_db: Path):
    """A factory of AskService objects over the demo warehouse with a fixed 'today'."""
    from vitrina.ask.service import AskService
    from vitrina.config import load_settings

    services = []

    def factory(db_url: str | None = None, *, write_files: bool = False, catalog=None, **overrides):
        settings = load_settings(db_url=db_url or f"duckdb:///{demo_db}", **overrides)
        service = AskService(settings, catalog=catalog, today=TODAY, write_files=write_files)
        services.append(service)
        return service

    yield factory
    for service in services:
        service.close()


CHINOOK_TODAY = date(2026, 1, 15)  # "today" of the Chinook suites and tests


@pytest.fixture(scope="module")
def chinook(shared_fixtures: Path) -> str:
    """The Chinook SQLite fixture's path (read-only: opened with mode=ro)."""
    return str(shared_fixtures / "warehouses" / "chinook" / "Chinook_Sqlite.sqlite")


@pytest.fixture(scope="module")
def chinook_service(chinook: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    """Rules-only AskService on Chinook with the suites/chinook catalog, a home of its own."""
    from vitrina.ask.service import AskService
    from vitrina.catalog import load_catalog
    from vitrina.config import load_settings

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("VITRINA_HOME", str(tmp_path_factory.mktemp("home")))
        for key in list(os.environ):
            if key.startswith("VITRINA_LLM_"):
                mp.delenv(key)
        settings = load_settings(db_url=f"sqlite:///file:{chinook}?mode=ro&uri=true")
    service = AskService(
        settings,
        catalog=load_catalog(ROOT / "suites" / "chinook"),
        today=CHINOOK_TODAY,
    )
    yield service
    service.close()


@pytest.fixture
def long_names_db(demo_db: Path, tmp_path: Path) -> Path:
    """A copy of the demo warehouse whose region names are 10,000 characters longer (a long
    text cell in every answer by region; decision 146)."""
    import shutil

    import duckdb

    path = tmp_path / "long.duckdb"
    shutil.copyfile(demo_db, path)
    with duckdb.connect(str(path)) as conn:
        conn.execute("UPDATE dwh.dim_region SET region_name = region_name || repeat('я', 10000)")
    return path


# MariaDB / MySQL (issue 38): the server `make test` starts in CI; skipped elsewhere when down.
MYSQL_URL = os.environ.get("VITRINA_TEST_MYSQL_URL", "mysql://root@127.0.0.1:3306/test")


def _mysql_reachable(url: str) -> str | None:
    try:
        import pymysql

        from vitrina.warehouse.mysql_backend import mysql_connect_kwargs

        kwargs = mysql_connect_kwargs(url, 5)
        kwargs["connect_timeout"] = 3
        pymysql.connect(**kwargs).close()
        return None
    except Exception as exc:
        return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


@pytest.fixture(scope="session")
def mysql_server_url() -> str:
    """The configured MariaDB/MySQL server (an admin URL); skip (or fail under CI) when down."""
    problem = _mysql_reachable(MYSQL_URL)
    if problem:
        if IN_CI:
            pytest.fail(f"CI=true but MariaDB/MySQL at {MYSQL_URL} is not reachable: {problem}")
        pytest.skip(
            f"MariaDB/MySQL at {MYSQL_URL} not reachable ({problem}); set VITRINA_TEST_MYSQL_URL"
        )
    return MYSQL_URL


def mysql_database(server_url: str, prefix: str = "vt") -> Iterator[str]:
    """A database of its caller alone on the server (its URL); it and its reader dropped after."""
    import pymysql

    from vitrina.warehouse.mysql_backend import mysql_connect_kwargs
    from vitrina.warehouse.mysql_grants import mysql_reader_name

    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    kwargs = mysql_connect_kwargs(server_url, 60)
    with pymysql.connect(**kwargs) as admin, admin.cursor() as cur:
        cur.execute(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4")
    yield server_url.rsplit("/", 1)[0] + f"/{name}"
    with pymysql.connect(**kwargs) as admin, admin.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS `{name}`")
        cur.execute(f"DROP USER IF EXISTS '{mysql_reader_name(name)}'@'%'")


@pytest.fixture(scope="session")
def mysql_url(mysql_server_url: str) -> Iterator[str]:
    """A database of this test run's own on the MariaDB/MySQL server."""
    yield from mysql_database(mysql_server_url)


@pytest.fixture
def own_mysql_database(mysql_server_url: str) -> Iterator[str]:
    """A MariaDB/MySQL database for one test alone."""
    yield from mysql_database(mysql_server_url, prefix="vtown")


@pytest.fixture(scope="module")
def module_mysql_database(mysql_server_url: str) -> Iterator[str]:
    """A MariaDB/MySQL database for one test module alone."""
    yield from mysql_database(mysql_server_url, prefix="vtmod")
