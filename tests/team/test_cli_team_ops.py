"""`vitrina board report` and `vitrina board skills`, and the Superset and notification
settings of `vitrina build` (read from VITRINA_* variables, checked before any work)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vitrina.config import load_settings
from vitrina.team.errors import TeamError
from vitrina.team.service import notifier_from, superset_from

from .test_cli import run

REWORKED = (
    "title: Карты 2025\nperiod: 2025 год\nkpis:\n  - name: Выпущено карт\n    by: тип карты\n"
)


def test_board_report_and_skills(demo_db: Path, tmp_path: Path) -> None:
    brief = tmp_path / "brief.yaml"
    brief.write_text(REWORKED, encoding="utf-8")
    board = f"sqlite:///{tmp_path / 'board.sqlite'}"
    code, out = run(
        "build",
        str(brief),
        "--db",
        f"duckdb:///{demo_db}",
        "--board",
        board,
        "--no-browser",
        "--json",
    )
    assert code == 0, out
    code, out = run("board", "report", "--board", board)
    assert code == 0, out
    assert "Дольше всех работает роль" in out and "in_progress:" in out and "review:" in out
    code, out = run("board", "skills")
    assert code == 0, out
    code, out = run("board", "skills", "accept", "no-such-id")
    assert code == 1 and "no skill proposal" in out
    code, out = run("board", "skills", "approve", "x")
    assert code == 1 and "usage" in out


def test_superset_settings_are_checked_before_any_work(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VITRINA_SUPERSET_URL", "http://127.0.0.1:8088")
    with pytest.raises(TeamError, match="VITRINA_SUPERSET_USER, VITRINA_SUPERSET_PASSWORD"):
        superset_from(load_settings(db_url="postgresql+psycopg://r@127.0.0.1/dwh"))
    monkeypatch.setenv("VITRINA_SUPERSET_USER", "admin")
    monkeypatch.setenv("VITRINA_SUPERSET_PASSWORD", "pw")
    with pytest.raises(TeamError, match="VITRINA_SUPERSET_DATABASE_URI"):
        superset_from(load_settings())  # the embedded demo file is no URI Superset can reach
    target = superset_from(load_settings(db_url="postgresql+psycopg://r@127.0.0.1/dwh"))
    assert target is not None and target.database.sqlalchemy_uri == "postgresql://r@127.0.0.1/dwh"
    monkeypatch.delenv("VITRINA_SUPERSET_URL")
    assert superset_from(load_settings()) is None


def test_notification_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    assert notifier_from(load_settings()) is None
    monkeypatch.setenv("VITRINA_NOTIFY_WEBHOOK_URL", "https://hooks.example.invalid/x")
    monkeypatch.setenv("VITRINA_NOTIFY_TELEGRAM_TOKEN", "1:abc")
    monkeypatch.setenv("VITRINA_NOTIFY_TELEGRAM_CHAT", "-100")
    notifier = notifier_from(load_settings())
    assert notifier is not None and [t.name for t in notifier.targets] == ["webhook", "telegram"]
    monkeypatch.setenv("VITRINA_NOTIFY_WEBHOOK_URL", "file:///etc/passwd")
    with pytest.raises(TeamError, match="http:// or https://"):
        notifier_from(load_settings())
