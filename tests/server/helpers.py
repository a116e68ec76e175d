"""Helpers of the server tests: SSE parsing, tokens, one-line dialog calls."""

from __future__ import annotations

import json
import threading
from typing import Any

from fastapi.testclient import TestClient

from vitrina.server.tokens import create_token


def sse_events(text: str) -> list[dict[str, Any]]:
    """Parse a text/event-stream body: every event is one ``data:`` line of JSON."""
    events = []
    for block in text.split("\n\n"):
        data = [line[5:].lstrip() for line in block.splitlines() if line.startswith("data:")]
        if data:
            events.append(json.loads("\n".join(data)))
    return events


def new_token(client: TestClient, name: str = "tests", role: str = "analyst") -> dict[str, str]:
    return {"Authorization": f"Bearer {create_token(client.app.state.vitrina.store, name, role)}"}


def ask(
    client: TestClient, headers: dict[str, str], thread_id: str, text: str
) -> list[dict[str, Any]]:
    """POST a message and return the parsed SSE events (the stream is read to its end)."""
    resp = client.post(f"/api/threads/{thread_id}/messages", json={"text": text}, headers=headers)
    assert resp.status_code == 200, resp.text
    assert resp.headers["content-type"].startswith("text/event-stream")
    return sse_events(resp.text)


def new_thread(client: TestClient, headers: dict[str, str], **body: Any) -> str:
    resp = client.post("/api/threads", json=body, headers=headers)
    assert resp.status_code == 200, resp.text
    return resp.json()["id"]


def hold_turns(
    service: Any, gate: threading.Event, *, wait_s: float = 60, started: list[str] | None = None
) -> None:
    """The service's turns wait at their second step until `gate` opens (a turn in flight for
    the test to look at); each question is appended to `started` when given."""
    real = service.stream

    def stream(question: str, *args: Any, **kwargs: Any) -> Any:
        if started is not None:
            started.append(question)
        for n, item in enumerate(real(question, *args, **kwargs)):
            if n == 1:
                assert gate.wait(wait_s), "the test never opened the gate"
            yield item

    service.stream = stream
