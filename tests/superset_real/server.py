"""A real Apache Superset 6 for the tests, on 127.0.0.1 only, from the cached environment.

The metadata database is SQLite. Its schema (`superset db upgrade` and `superset init`,
minutes on a small machine) is built once per Superset version into the cached
environment as a template without any user; every test run copies it, creates its admin
with a password generated for the run and starts the server with a secret key generated
for the run. Neither is written anywhere but the run's temp folder.

Shared by the tests (tests/superset_real/conftest.py) and the benchmark
(benchmarks/bench_superset.py): starting Superset, the demo warehouse in PostgreSQL with
the read-only role Superset and Vitrina read it through, and the publishing target.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

ENV_VAR = "VITRINA_TEST_SUPERSET_ENV"
DEFAULT_ENV = Path.home() / ".cache" / "vitrina-superset"
STARTUP_S = 300  # the first request builds Superset's app: slow on a loaded 2-core machine
COMMAND_S = 900  # db upgrade on SQLite runs every migration

CONFIG = """\
# Written per test run; removed with the run's temp folder.
SECRET_KEY = {secret!r}
SQLALCHEMY_DATABASE_URI = {metadata!r}
WTF_CSRF_ENABLED = True
TALISMAN_ENABLED = False
PREVENT_UNSAFE_DB_CONNECTIONS = True
RATELIMIT_STORAGE_URI = "memory://"
CACHE_CONFIG = {{"CACHE_TYPE": "NullCache"}}
DATA_CACHE_CONFIG = {{"CACHE_TYPE": "NullCache"}}
SUPERSET_WEBSERVER_TIMEOUT = 120
SQLLAB_TIMEOUT = 120
FEATURE_FLAGS = {{}}
"""


def env_dir() -> Path:
    return Path(os.environ.get(ENV_VAR) or DEFAULT_ENV)


def env_problem() -> str | None:
    """Why the real-Superset tests cannot run here, or None."""
    root = env_dir()
    if not (root / ".ready").is_file() or not (root / "bin" / "superset").is_file():
        return (
            f"no Superset environment at {root}: `make superset-env` builds it "
            "(tests/superset_real/setup_env.sh, a few minutes, once)"
        )
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class SupersetServer:
    url: str
    username: str
    password: str
    process: subprocess.Popen
    log: Path

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)


def _run(root: Path, env: dict[str, str], *args: str, log: Path) -> None:
    with log.open("ab") as out:
        result = subprocess.run(
            [str(root / "bin" / "superset"), *args],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=COMMAND_S,
            check=False,
        )
    if result.returncode != 0:
        tail = log.read_text(errors="replace")[-3000:]
        raise RuntimeError(f"superset {' '.join(args[:2])} failed ({result.returncode}): {tail}")


def _environment(config: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VITRINA_", "SUPERSET_"))}
    env.update(
        {
            "SUPERSET_CONFIG_PATH": str(config),
            "FLASK_APP": "superset",
            "PYTHONUNBUFFERED": "1",
            "SUPERSET_LOAD_EXAMPLES": "no",
        }
    )
    return env


def template_db(root: Path, work: Path) -> Path:
    """The migrated metadata database without users, built once per environment.

    Two runs may start at once (a test run and `make bench`): the first builds the template
    under a lock on the templates folder, the other waits for it and copies it.
    """
    version = (root / ".ready").read_text().strip().replace(" ", "_").replace("=", "-")
    template = root / "templates" / f"{version}.db"
    if template.is_file():
        return template
    template.parent.mkdir(parents=True, exist_ok=True)
    with (template.parent / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if template.is_file():  # built by the run that held the lock
            return template
        building = template.with_suffix(".building")
        building.unlink(missing_ok=True)
        work.mkdir(parents=True, exist_ok=True)
        config = work / "template_config.py"
        config.write_text(
            CONFIG.format(secret=secrets.token_urlsafe(32), metadata=f"sqlite:///{building}")
        )
        env = _environment(config)
        log = work / "template.log"
        _run(root, env, "db", "upgrade", log=log)
        _run(root, env, "init", log=log)
        config.unlink()
        building.rename(template)
    return template


def start(work: Path) -> SupersetServer:
    """Superset on a free loopback port with a fresh admin; stop() ends its process group."""
    root = env_dir()
    work.mkdir(parents=True, exist_ok=True)
    metadata = work / "superset.db"
    shutil.copyfile(template_db(root, work), metadata)
    password = secrets.token_urlsafe(18)
    config = work / "superset_config.py"
    config.write_text(
        CONFIG.format(secret=secrets.token_urlsafe(32), metadata=f"sqlite:///{metadata}")
    )
    config.chmod(0o600)
    env = _environment(config)
    log = work / "superset.log"
    _run(
        root,
        env,
        "fab",
        "create-admin",
        "--username",
        "admin",
        "--firstname",
        "Vitrina",
        "--lastname",
        "Test",
        "--email",
        "admin@127.0.0.1.invalid",
        "--password",
        password,
        log=log,
    )
    port = free_port()
    with log.open("ab") as out:
        process = subprocess.Popen(
            [
                str(root / "bin" / "superset"),
                "run",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--with-threads",
            ],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    server = SupersetServer(url, "admin", password, process, log)
    deadline = time.monotonic() + STARTUP_S
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"Superset exited: {log.read_text(errors='replace')[-3000:]}")
        try:
            if httpx.get(f"{url}/health", timeout=5).status_code == 200:
                return server
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            server.stop()
            raise RuntimeError(f"Superset did not answer within {STARTUP_S} s")
        time.sleep(1)


@contextlib.contextmanager
def demo_warehouse(pg_url: str, work: Path, *, scale: float = 0.05) -> Iterator[dict[str, Any]]:
    """The demo warehouse (``scale`` of its full size) in the PostgreSQL database ``pg_url``
    (an administrator's URL), read through a read-only role made for the run and dropped
    after it: Vitrina refuses a superuser warehouse, and Superset should read no more.

    Yields ``vitrina_url`` and ``superset_uri`` (both the role's URL), ``role`` and ``rows``
    (rows loaded per table)."""
    import psycopg

    from vitrina.warehouse.demo import build_demo_warehouse
    from vitrina.warehouse.pg_load import load_demo_into_postgres

    work.mkdir(parents=True, exist_ok=True)
    duck = work / "demo.duckdb"
    build_demo_warehouse(duck, scale=scale)
    rows = load_demo_into_postgres(duck, pg_url)
    role = f"vitrina_superset_ro_{secrets.token_hex(4)}"
    password = secrets.token_urlsafe(16)
    database = pg_url.rsplit("/", 1)[1]
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN PASSWORD '{password}'")
        conn.execute(f'GRANT CONNECT ON DATABASE "{database}" TO {role}')
        conn.execute(f"GRANT USAGE ON SCHEMA dwh TO {role}")
        conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA dwh TO {role}")
        conn.execute(f"ALTER ROLE {role} SET default_transaction_read_only = on")
    host = pg_url.split("@", 1)[1].rsplit("/", 1)[0]
    reader = f"postgresql://{role}:{password}@{host}/{database}"
    try:
        yield {"vitrina_url": reader, "superset_uri": reader, "role": role, "rows": rows}
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f"REASSIGN OWNED BY {role} TO CURRENT_USER")
            conn.execute(f"DROP OWNED BY {role}")
        admin = pg_url.rsplit("/", 1)[0] + "/postgres"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"DROP ROLE IF EXISTS {role}")


def publish_target(running: SupersetServer, warehouse: dict[str, Any], database_name: str):
    """Where Vitrina publishes: this Superset, as its admin, the warehouse under a name."""
    from vitrina.team.publish.superset import SupersetTarget
    from vitrina.team.publish.superset_bundle import SupersetDatabase

    return SupersetTarget(
        running.url,
        running.username,
        running.password,
        SupersetDatabase(database_name, warehouse["superset_uri"]),
    )
