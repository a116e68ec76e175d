"""Limits and failures: body size, rate, question length, busy dialogs; one JSON error body each."""

from __future__ import annotations

import pytest

from vitrina.server.limits import TokenBuckets

from .helpers import new_thread, new_token


def _error(resp, status: int, code: str) -> dict:
    assert resp.status_code == status, resp.text
    assert resp.headers["content-type"].startswith("application/json")
    body = resp.json()
    assert set(body) == {"error"} and body["error"]["code"] == code
    assert body["error"]["message"] and body["error"]["message_ru"]
    assert "Traceback" not in resp.text
    return body["error"]


def test_a_body_over_the_limit_is_413(make_client):
    client = make_client(max_body_bytes=1024)
    auth = new_token(client)
    thread = new_thread(client, auth)
    resp = client.post(f"/api/threads/{thread}/messages", json={"text": "x" * 2000}, headers=auth)
    _error(resp, 413, "payload_too_large")


def test_a_chunked_body_over_the_limit_is_413(make_client):
    client = make_client(max_body_bytes=1024)
    auth = new_token(client)

    def chunks():
        yield b'{"segment": "auto", "topics": ["'
        yield b"x" * 4096
        yield b'"]}'

    resp = client.post(
        "/api/threads", content=chunks(), headers={**auth, "Content-Type": "application/json"}
    )
    _error(resp, 413, "payload_too_large")


def test_a_question_too_long_is_422(client, auth):
    thread = new_thread(client, auth)
    resp = client.post(f"/api/threads/{thread}/messages", json={"text": "я" * 2001}, headers=auth)
    _error(resp, 422, "invalid_text")


@pytest.mark.parametrize("body", [{}, {"text": ""}, {"text": 5}, {"text": "hi", "extra": 1}, []])
def test_a_malformed_message_is_422(client, auth, body):
    thread = new_thread(client, auth)
    error = _error(
        client.post(f"/api/threads/{thread}/messages", json=body, headers=auth),
        422,
        "invalid_request",
    )
    assert error["details"]


def test_invalid_json_is_422(client, auth):
    resp = client.post(
        "/api/threads", content=b"{not json", headers={**auth, "Content-Type": "application/json"}
    )
    _error(resp, 422, "invalid_request")


def test_rate_limit_per_token_is_429_with_retry_after(make_client):
    client = make_client(rate_per_minute=6, burst=3)
    first, second = new_token(client, "a"), new_token(client, "b")
    for _ in range(3):
        assert client.get("/api/threads", headers=first).status_code == 200
    resp = client.get("/api/threads", headers=first)
    error = _error(resp, 429, "rate_limited")
    assert int(resp.headers["retry-after"]) >= 1 and error["retry_after"] >= 1
    assert client.get("/api/threads", headers=second).status_code == 200  # buckets are per token


def test_token_bucket_refills_over_time():
    now = [0.0]
    buckets = TokenBuckets(60, 2, clock=lambda: now[0])
    assert buckets.take("k") == 0 and buckets.take("k") == 0
    assert buckets.take("k") == pytest.approx(1.0)
    now[0] += 1.0
    assert buckets.take("k") == 0
    assert TokenBuckets(0, 1).take("k") == 0  # rate 0 switches the limit off


def test_unknown_routes_and_methods(client):
    _error(client.get("/api/nothing"), 404, "not_found")
    _error(client.delete("/api/threads"), 405, "method_not_allowed")


def test_a_crash_is_500_without_a_traceback(client, auth):
    client.app.state.vitrina.service.catalog.topics = None  # a broken catalog: the view crashes
    _error(client.get("/api/catalog/topics", headers=auth), 500, "internal")


def test_a_failing_turn_ends_the_stream_with_an_error_event(client, auth):
    from .helpers import sse_events

    def broken(*_args, **_kwargs):
        raise RuntimeError("boom")
        yield

    thread = new_thread(client, auth)
    client.app.state.vitrina.service.stream = broken
    # a data question (small talk like "hi" goes to the supervisor's help role, not to ask)
    resp = client.post(
        f"/api/threads/{thread}/messages",
        json={"text": "Сумма платежей по месяцам в 2025 году"},
        headers=auth,
    )
    events = sse_events(resp.text)
    assert events[-1]["type"] == "error" and events[-1]["error"]["code"] == "turn_failed"
    assert "boom" not in resp.text
    # the dialog is free again
    client.app.state.vitrina.runner.claim(thread)


def test_a_busy_dialog_is_409(client, auth):
    thread = new_thread(client, auth)
    client.app.state.vitrina.runner.claim(thread)
    resp = client.post(f"/api/threads/{thread}/messages", json={"text": "hi"}, headers=auth)
    _error(resp, 409, "thread_busy")
    client.app.state.vitrina.runner.release(thread)
