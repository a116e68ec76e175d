"""Fixtures of the server tests: the real app over the demo warehouse, tokens, SSE parsing."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from vitrina.server import ServeOptions, create_app

from .helpers import new_token

ROOT = Path(__file__).resolve().parents[2]
DOCS_FIXTURES = ROOT / "tests" / "docs" / "fixtures"


@pytest.fixture
def make_client(make_service) -> Iterator[Callable[..., TestClient]]:
    """A factory of TestClients over a real app (SQLite state under this test's VITRINA_HOME)."""
    clients: list[TestClient] = []

    def factory(
        db_url: str | None = None, *, settings: dict[str, Any] | None = None, **options: Any
    ) -> TestClient:
        """``db_url`` and ``settings`` go to the service, ``options`` to `ServeOptions`."""
        # as the server runs: files on download
        service = make_service(db_url, write_files=False, **(settings or {}))
        app = create_app(service.settings, ServeOptions(**options), service=service)
        client = TestClient(app, raise_server_exceptions=False)
        client.__enter__()
        clients.append(client)
        return client

    yield factory
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def client(make_client) -> TestClient:
    return make_client()


@pytest.fixture
def auth(client: TestClient) -> dict[str, str]:
    return new_token(client)


@pytest.fixture(scope="session")
def docs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A measure manual written by the docs job from the small test model."""
    from vitrina.config import Settings
    from vitrina.docs.run import make_request, run_docs

    home = tmp_path_factory.mktemp("docs-home")
    out = home / "manual"
    request = make_request(
        DOCS_FIXTURES / "small.bim", [DOCS_FIXTURES / "warehouse"], all_measures=True, out=out
    )
    report = run_docs(request, settings=Settings(home=home))
    assert not report.missed or len(report.processed) > 5
    return out
