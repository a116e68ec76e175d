"""Helpers of the server tests: SSE parsing, tokens, one-line dialog calls."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator, Sequence
from datetime import date
from pathlib import Path
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


@contextlib.contextmanager
def instances_over_postgres(
    pg_url: str,
    demo_db: Path,
    gate: threading.Event,
    held: Sequence[bool],
    *,
    started: list[str] | None = None,
) -> Iterator[list[TestClient]]:
    """App instances (as `serve --workers` runs them) over one PostgreSQL state and the demo
    warehouse, a client each; an instance whose `held` is true holds its turns at `gate`
    (`hold_turns`). On exit the gate opens and every client, service and pool is closed."""
    from vitrina.ask.service import AskService
    from vitrina.config import load_settings
    from vitrina.server import ServeOptions, create_app
    from vitrina.server.checkpointer import close_checkpointer, make_checkpointer

    services: list[AskService] = []
    clients: list[TestClient] = []
    try:
        for hold in held:
            settings = load_settings(db_url=f"duckdb:///{demo_db}", state_url=pg_url)
            service = AskService(
                settings,
                checkpointer=make_checkpointer(settings),
                today=date(2026, 11, 30),
                write_files=False,
            )
            if hold:
                hold_turns(service, gate, started=started)
            services.append(service)
            client = TestClient(create_app(settings, ServeOptions(), service=service))
            client.__enter__()
            clients.append(client)
        yield clients
    finally:
        gate.set()
        for client in clients:
            client.__exit__(None, None, None)
        for service in services:
            service.close()
            close_checkpointer(service.checkpointer)
