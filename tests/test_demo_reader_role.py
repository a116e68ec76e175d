"""`vitrina demo --load-postgres`: one reader role per database, its password kept across
loads unless a reset is asked for; through `vitrina.cli.main` on a real, throwaway database.

The test server may trust every connection (any password logs in), so a kept password is
proved against the role's stored verifier (SCRAM-SHA-256 or MD5), not by logging in.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

import psycopg
import pytest
from tests.conftest import cli_main

from vitrina.warehouse import Warehouse

pytestmark = pytest.mark.postgres


@pytest.fixture()
def throwaway(pg_server_url: str) -> Iterator[str]:
    """A database of this test alone (``vt_<hex>``); it and the roles named after it are
    dropped after."""
    name = f"vt_{uuid.uuid4().hex[:10]}"
    admin_url = pg_server_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    yield admin_url.rsplit("/", 1)[0] + f"/{name}"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        for role in (f"{name}_reader", f"{name}_analyst"):
            admin.execute(f'DROP ROLE IF EXISTS "{role}"')


def _password_matches(admin_url: str, url: str) -> bool:
    """Whether the password in ``url`` is the one PostgreSQL stores for its role."""
    parts = urlsplit(url)
    role, password = unquote(parts.username or ""), unquote(parts.password or "")
    with psycopg.connect(admin_url) as admin:
        (stored,) = admin.execute(
            "SELECT rolpassword FROM pg_authid WHERE rolname = %s", (role,)
        ).fetchone()  # type: ignore[misc]
    if stored.startswith("md5"):
        return stored == "md5" + hashlib.md5((password + role).encode()).hexdigest()
    iterations, salt, keys = re.fullmatch(
        r"SCRAM-SHA-256\$(\d+):([^$]+)\$([^:]+):.+", stored
    ).groups()  # type: ignore[union-attr]
    salted = hashlib.pbkdf2_hmac(
        "sha256", password.encode(), base64.b64decode(salt), int(iterations)
    )
    client_key = hmac.new(salted, b"Client Key", hashlib.sha256).digest()
    return base64.b64encode(hashlib.sha256(client_key).digest()).decode() == keys


def _demo(home: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """`vitrina demo --no-questions ARGS` through the console script's entry point."""
    return cli_main(capsys, "demo", "--no-questions", *args)


def _url(out: str) -> str:
    found = re.search(r"VITRINA_DB_URL='([^']+)'", out)
    assert found, out
    return found[1]


def test_loading_twice_keeps_the_first_url_working(
    throwaway: str,
    demo_db: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    home = tmp_path / "home"
    (home / "demo").mkdir(parents=True)
    (home / "demo" / "warehouse.duckdb").write_bytes(demo_db.read_bytes())
    monkeypatch.setenv("VITRINA_HOME", str(home))
    database = throwaway.rsplit("/", 1)[1]
    role = f"{database}_reader"

    code, out = _demo(home, capsys, "--load-postgres", throwaway)
    assert code == 0, out
    words = " ".join(out.split())
    assert f"read-only role {role} created" in words, out
    first = _url(out)
    assert first.startswith(f"postgresql://{role}:") and _password_matches(throwaway, first)
    warehouse = Warehouse(first)  # the inspection on connect accepts the role
    try:
        assert warehouse.execute("SELECT count(*) > 0 FROM dwh.dim_region").rows == [(True,)]
    finally:
        warehouse.close()

    code, out = _demo(home, capsys, "--load-postgres", throwaway)
    assert code == 0, out
    words = " ".join(out.split())
    assert f"read-only role {role} exists: password kept" in words, out
    assert _url(out) == f"postgresql://{role}:<password>@127.0.0.1:5432/{database}"
    assert _password_matches(throwaway, first)  # the first URL still logs in
    warehouse = Warehouse(first)
    try:  # and reads the tables the second load made (its grants were renewed)
        assert warehouse.execute("SELECT count(*) > 0 FROM dwh.dim_region").rows == [(True,)]
    finally:
        warehouse.close()

    code, out = _demo(home, capsys, "--load-postgres", throwaway, "--reset-password")
    assert code == 0, out
    assert "new password (--reset-password), earlier URLs no longer work" in " ".join(out.split())
    third = _url(out)
    assert third != first and _password_matches(throwaway, third)
    assert not _password_matches(throwaway, first)


def test_a_named_reader_role_and_a_refused_name(
    throwaway: str,
    demo_db: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    home = tmp_path / "home"
    (home / "demo").mkdir(parents=True)
    (home / "demo" / "warehouse.duckdb").write_bytes(demo_db.read_bytes())
    monkeypatch.setenv("VITRINA_HOME", str(home))
    database = throwaway.rsplit("/", 1)[1]
    analyst = f"{database}_analyst"

    code, out = _demo(home, capsys, "--load-postgres", throwaway, "--reader-role", analyst)
    assert code == 0, out
    assert f"read-only role {analyst} created" in " ".join(out.split()), out
    assert _password_matches(throwaway, _url(out))
    assert "warning" not in out

    # an existing role with no password and a right too many: a password is set, and the
    # output warns about what the role can still do (the connect-time inspection's words)
    with psycopg.connect(throwaway, autocommit=True) as admin:
        admin.execute(f'ALTER ROLE "{analyst}" PASSWORD NULL')
        admin.execute(f'GRANT pg_signal_backend TO "{analyst}"')
    code, out = _demo(home, capsys, "--load-postgres", throwaway, "--reader-role", analyst)
    assert code == 0, out
    words = " ".join(out.split())
    assert f"read-only role {analyst} existed without a password: one is set now" in words
    assert _password_matches(throwaway, _url(out))
    assert f"warning: role {analyst} member of pg_signal_backend" in words, out
    with psycopg.connect(throwaway) as admin:
        assert admin.execute(
            "SELECT count(*) FROM pg_roles WHERE rolname = %s", (f"{database}_reader",)
        ).fetchone() == (0,)

    # the administrator the URL connects as is never made the reader
    code, out = _demo(home, capsys, "--load-postgres", throwaway, "--reader-role", "postgres")
    assert code == 2
    words = " ".join(out.split())
    assert "role 'postgres' exists and is not a reader" in words, out
    assert "роль 'postgres' уже есть" in words
    with psycopg.connect(throwaway) as admin:
        assert admin.execute(
            "SELECT rolsuper FROM pg_roles WHERE rolname = 'postgres'"
        ).fetchone() == (True,)
