"""Fixtures of the build-team tests: a board (SQLite, or PostgreSQL by URL), a workspace, a
build."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest

from vitrina.team.board import BoardStore, Build
from vitrina.team.primitives import Primitives
from vitrina.team.roles import Roster
from vitrina.team.workspace import Workspace


@dataclass
class Env:
    store: BoardStore
    roster: Roster
    workspace: Workspace
    build: Build
    prims: Primitives


def make_env(url: str, tmp_path: Path, key: str | None = None) -> Env:
    key = key or f"test-{uuid.uuid4().hex[:10]}"
    store = BoardStore(url)
    roster = Roster.default()
    workspace = Workspace.open(tmp_path / f"ws-{key}")
    build, _ = store.create_build(
        key=key, title="Test", brief="title: Test", workspace=str(workspace.path), phase="scope"
    )
    return Env(store, roster, workspace, build, Primitives(store, roster, build.id, workspace))


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def board_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The board on SQLite and on a real PostgreSQL database (the pg_url fixture)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'board.sqlite'}"
    return request.getfixturevalue("pg_url")


@pytest.fixture
def env(tmp_path: Path) -> Iterator[Env]:
    e = make_env(f"sqlite:///{tmp_path / 'board.sqlite'}", tmp_path)
    yield e
    e.store.close()


ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
TODAY = date(2026, 11, 30)  # the same "today" as the rest of the suite (tests/conftest.py)


@pytest.fixture
def run_build(demo_db: Path, tmp_path: Path):
    """Run a brief (a path, or YAML text) through a BuildService on the demo warehouse."""
    from vitrina.config import load_settings
    from vitrina.team.service import BuildService

    services: list[BuildService] = []

    def run(
        brief: Path | str,
        *,
        agents: dict | None = None,
        browser: bool = False,
        board: str | None = None,
        db: str | None = None,
        catalog: Path | None = None,
        out: Path | None = None,
        on_event=None,
        new: bool = False,
    ) -> tuple[BuildService, object]:
        if isinstance(brief, str):
            path = tmp_path / f"brief-{len(services)}.yaml"
            path.write_text(brief, encoding="utf-8")
            brief = path
        settings = load_settings(db_url=db or f"duckdb:///{demo_db}", catalog_dir=catalog)
        service = BuildService(
            settings,
            board=board or f"sqlite:///{tmp_path / 'board.sqlite'}",
            today=TODAY,
            agents=agents,
            browser=browser,
        )
        services.append(service)
        return service, service.run(brief, out=out, on_event=on_event, new=new)

    yield run
    for service in services:
        service.close()
