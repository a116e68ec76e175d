"""A broken environment (state files, URLs, vitrina.toml) gives one clear line, never a
traceback: the real CLI through Typer's runner, the real files and URLs."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from vitrina.cli import app

runner = CliRunner()
GARBAGE = b"this is not a database, it was overwritten by something else\n" * 40


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env=env)
    return result.exit_code, result.output  # stdout and stderr, as a terminal shows them


def assert_one_line_error(code: int, out: str, *names: str) -> None:
    assert code == 2, out
    assert "Traceback" not in out, out
    lines = [line for line in out.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, out
    for name in names:
        assert name in lines[0], out


@pytest.fixture
def home(_isolated_home: Path) -> Path:
    return _isolated_home


def test_corrupted_state_db_in_ask(home: Path, demo_db: Path) -> None:
    (home / "state.sqlite").write_bytes(GARBAGE)
    code, out = run("ask", "Сумма платежей в 2025 году", "--db", f"duckdb:///{demo_db}")
    assert_one_line_error(code, out, str(home / "state.sqlite"), "Move it aside")


def test_corrupted_state_db_in_token_list(home: Path) -> None:
    (home / "state.sqlite").write_bytes(GARBAGE)
    code, out = run("token", "list")
    assert_one_line_error(code, out, str(home / "state.sqlite"), "Move it aside")


def test_corrupted_tasks_db_in_task(home: Path, demo_db: Path) -> None:
    (home / "tasks.sqlite").write_bytes(GARBAGE)
    code, out = run("task", "list", env={"VITRINA_DB_URL": f"duckdb:///{demo_db}"})
    assert_one_line_error(code, out, str(home / "tasks.sqlite"))


def test_corrupted_state_db_after_moving_it_aside_works(home: Path) -> None:
    """What the message says to do does fix it."""
    broken = home / "state.sqlite"
    broken.write_bytes(GARBAGE)
    assert run("token", "list")[0] == 2
    broken.rename(home / "state.sqlite.broken")
    code, out = run("token", "list")
    assert code == 0, out


@pytest.mark.parametrize("url", ["garbage://x", "nonsense", "http://example.org/db"])
def test_wrong_warehouse_url(url: str) -> None:
    code, out = run("ask", "Сумма платежей в 2025 году", "--db", url)
    assert_one_line_error(code, out, url, "duckdb:///", "--db")


def test_wrong_warehouse_url_hides_the_password() -> None:
    code, out = run("ask", "Сумма платежей", "--db", "garbage://bob:s3cret@host/x")
    assert_one_line_error(code, out, "host/x")
    assert "s3cret" not in out


@pytest.mark.parametrize("url", ["garbage://x", "mysql://root@localhost/x"])
def test_wrong_state_url_is_not_silently_replaced(url: str) -> None:
    code, out = run("token", "list", env={"VITRINA_STATE_URL": url})
    assert_one_line_error(code, out, "VITRINA_STATE_URL", url.split("@")[-1])


@pytest.mark.parametrize(
    ("content", "says"), [("db_url = [1\n", "invalid TOML"), ("db_url = 5\n", "db_url")]
)
def test_bad_config_file(home: Path, content: str, says: str) -> None:
    (home / "vitrina.toml").write_text(content, encoding="utf-8")
    for args in (("ask", "Сумма платежей"), ("token", "list")):
        code, out = run(*args)
        assert_one_line_error(code, out, says)
        if says == "invalid TOML":
            assert str(home / "vitrina.toml") in out
