"""Security headers on every response, a token in a URL refused, and never written to a log.

Through the real app (TestClient) and, for the access log, a real `vitrina serve` process
whose uvicorn writes its access lines to a file.
"""

from __future__ import annotations

import logging

import httpx
import pytest
from fastapi.testclient import TestClient

from vitrina.config import Settings
from vitrina.server.access_log import RedactTokens, redact
from vitrina.server.headers import CSP, DOCS_CSP
from vitrina.server.spawn import spawn_server
from vitrina.server.store import Store
from vitrina.server.tokens import create_token

PATHS = ["/", "/docs", "/task", "/board", "/api/info", "/healthz", "/static/app.js", "/nowhere"]


def _directives(policy: str) -> dict[str, str]:
    return {part.split()[0]: part.strip() for part in policy.split(";") if part.strip()}


@pytest.mark.parametrize("path", PATHS)
def test_every_response_carries_the_security_headers(client: TestClient, path: str) -> None:
    resp = client.get(path)
    assert resp.headers["x-content-type-options"] == "nosniff"
    assert resp.headers["referrer-policy"] == "no-referrer"
    policy = _directives(resp.headers["content-security-policy"])
    assert policy["script-src"] == "script-src 'self'"  # no inline script, no eval
    assert policy["default-src"] == "default-src 'self'"
    assert policy["object-src"] == "object-src 'none'"
    assert policy["base-uri"] == "base-uri 'none'"
    assert policy["frame-ancestors"] == "frame-ancestors 'none'"
    assert policy["form-action"] == "form-action 'self'"
    inline_styles = "'unsafe-inline'" in policy["style-src"]
    assert inline_styles == (path == "/docs"), path  # Mermaid's diagrams: the docs page only


def test_the_docs_page_alone_allows_inline_styles() -> None:
    assert CSP != DOCS_CSP and "unsafe" not in CSP
    assert DOCS_CSP.replace(" 'unsafe-inline'", "") == CSP


@pytest.mark.parametrize(
    "query",
    [
        "token=vt_0123456789ab_secret",
        "access_token=abc",
        "TOKEN=abc",
        "lang=ru&api_key=abc",
        "q=vt_0123456789ab_SeCrEt-secret",  # a Vitrina token under any name
        "%74oken=abc",  # a percent-encoded name
        "q=vt%5F0123456789ab%5FSeCrEt",  # a percent-encoded token
    ],
)
def test_a_token_in_the_query_string_is_refused(client: TestClient, auth, query: str) -> None:
    for path in ("/api/threads", "/api/info", "/"):
        resp = client.get(f"{path}?{query}", headers=auth)
        assert resp.status_code == 400, (path, resp.text)
        error = resp.json()["error"]
        assert error["code"] == "token_in_url"
        assert "Authorization: Bearer" in error["message"] and "в адресе" in error["message_ru"]
        assert resp.headers["content-security-policy"] == CSP
    assert client.get("/api/threads?limit=5", headers=auth).status_code == 200  # others pass


def test_the_filter_redacts_uvicorns_access_record() -> None:
    token = "vt_0123456789ab_SeCrEt-secret_value"
    record = logging.LogRecord(
        "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5", "GET", f"/api/info?x=1&access_token={token}&y=2", "1.1", 400), None,
    )  # fmt: skip
    assert RedactTokens().filter(record)
    line = record.getMessage()
    assert token not in line and "access_token=[redacted]" in line and "x=1" in line
    assert redact(f"Bearer {token}") == "Bearer [redacted]"
    encoded = token.replace("_", "%5F")
    assert redact(f"/x?%74oken=abc&q={encoded}&lang=ru") == (
        "/x?%74oken=[redacted]&q=[redacted]&lang=ru"
    )


def test_the_access_log_never_holds_a_query_string_token(demo_db, tmp_path) -> None:
    """A real server with access lines on: the refused requests are logged, the token is not."""
    home = tmp_path / "home"
    store = Store.from_settings(Settings(home=home))
    token = create_token(store, "log")
    store.close()
    env = {"VITRINA_HOME": str(home), "VITRINA_DB_URL": f"duckdb:///{demo_db}"}
    log = tmp_path / "serve.log"
    with spawn_server(env, "--log-level", "info", log=log) as proc:
        for query in (f"token={token}", f"access_token={token}", f"q={token}"):
            resp = httpx.get(f"{proc.url}/api/info?lang=ru&{query}", timeout=10)
            assert resp.status_code == 400 and resp.json()["error"]["code"] == "token_in_url"
        ok = httpx.get(f"{proc.url}/api/info?lang=ru", timeout=10)
        assert ok.status_code == 200
    text = log.read_text(encoding="utf-8", errors="replace")
    secret = token.split("_", 2)[2]
    assert "/api/info?lang=ru" in text  # access lines were written
    assert text.count("[redacted]") >= 3
    assert token not in text and secret not in text
