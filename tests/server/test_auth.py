"""Tokens: required, hashed, constant-time checked; a dialog belongs to the token that made it."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from vitrina.server.options import ServeOptions, is_loopback
from vitrina.server.store import Store
from vitrina.server.tokens import digest, verify_token

from .helpers import ask, new_thread, new_token

PROTECTED = [
    ("GET", "/api/threads"),
    ("POST", "/api/threads"),
    ("GET", "/api/threads/x"),
    ("POST", "/api/threads/x/messages"),
    ("GET", "/api/runs/x/excel"),
    ("GET", "/api/runs/x/csv"),
    ("GET", "/api/runs/x/parquet"),
    ("GET", "/api/runs/x/chart"),
    ("GET", "/api/runs/x/chart.png"),
    ("GET", "/api/catalog/topics"),
    ("GET", "/api/catalog/tables"),
    ("GET", "/api/docs"),
    ("GET", "/api/docs/manual"),
    ("GET", "/api/docs/measures/x"),
]


@pytest.mark.parametrize(("method", "path"), PROTECTED)
def test_no_token_is_401_with_an_error_body(client, method, path):
    resp = client.request(method, path, json={"text": "hi"} if method == "POST" else None)
    assert resp.status_code == 401
    assert resp.headers["www-authenticate"] == "Bearer"
    assert resp.json()["error"]["code"] == "unauthorized"


@pytest.mark.parametrize(
    "token", ["nonsense", "vt_abc_def", "vt__x", "Bearer", "vt_" + "a" * 12 + "_" + "b" * 43]
)
def test_a_wrong_token_is_401(client, token):
    resp = client.get("/api/threads", headers={"Authorization": f"Bearer {token}"})
    assert resp.status_code == 401 and resp.json()["error"]["code"] == "invalid_token"


def test_a_token_with_a_wrong_secret_is_401(client, auth):
    good = auth["Authorization"]
    tampered = good[:-4] + ("AAAA" if not good.endswith("AAAA") else "BBBB")
    assert client.get("/api/threads", headers={"Authorization": tampered}).status_code == 401
    assert client.get("/api/threads", headers=auth).status_code == 200


def test_tokens_are_stored_hashed_and_can_be_revoked(client, auth):
    store: Store = client.app.state.vitrina.store
    token = auth["Authorization"].split()[1]
    record = verify_token(store, token)
    assert record is not None and record.name == "tests"
    secret = token.split("_", 2)[2]
    assert record.secret_sha256 == digest(secret) and secret not in str(store.list_tokens())
    assert store.revoke_tokens("tests") == 1
    resp = client.get("/api/threads", headers=auth)
    assert resp.status_code == 401 and resp.json()["error"]["code"] == "invalid_token"


def test_another_tokens_dialog_is_not_found(client, auth):
    other = new_token(client, "someone-else")
    thread = new_thread(client, auth)
    run_id = ask(client, auth, thread, "Сумма платежей по месяцам в 2025 году")[-1]["run_id"]
    assert client.get(f"/api/threads/{thread}", headers=other).status_code == 404
    resp = client.post(f"/api/threads/{thread}/messages", json={"text": "а в 2024?"}, headers=other)
    assert resp.status_code == 404 and resp.json()["error"]["code"] == "thread_not_found"
    for path in ("excel", "chart", "chart.png"):
        assert client.get(f"/api/runs/{run_id}/{path}", headers=other).status_code == 404
    assert client.get("/api/threads", headers=other).json() == []
    assert client.get(f"/api/threads/{thread}", headers=auth).status_code == 200


def test_no_auth_on_loopback_serves_everyone_as_local(make_client):
    client = make_client(auth=False)
    thread = new_thread(client, {})
    assert client.get(f"/api/threads/{thread}").status_code == 200
    assert client.get("/api/info").json()["auth"] is False


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.0.1", True),
        ("::1", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.5", False),
        ("example.com", False),
    ],
)
def test_no_auth_only_on_loopback(host, loopback):
    assert is_loopback(host) is loopback
    options = ServeOptions(host=host, auth=False)
    if loopback:
        options.check()
    else:
        with pytest.raises(ValueError, match="loopback"):
            options.check()


def test_cli_refuses_no_auth_on_a_public_host():
    from vitrina.cli import app

    result = CliRunner().invoke(app, ["serve", "--no-auth", "--host", "0.0.0.0"])
    assert result.exit_code == 2
    assert "loopback" in result.output and "token create" in result.output


def test_cli_token_create_prints_the_token_last(client):
    from vitrina.cli import app

    runner = CliRunner()
    result = runner.invoke(app, ["token", "create", "bi-bot"])
    assert result.exit_code == 0, result.output
    token = result.output.split()[-1]
    assert token.startswith("vt_")
    record = verify_token(Store.from_settings(client.app.state.vitrina.settings), token)
    assert record is not None and record.name == "bi-bot"
    listed = runner.invoke(app, ["token", "list"]).output
    assert "bi-bot" in listed and token not in listed
    assert runner.invoke(app, ["token", "revoke", "bi-bot"]).exit_code == 0
    assert runner.invoke(app, ["token", "revoke", "bi-bot"]).exit_code == 2
