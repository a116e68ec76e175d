"""Notifications: a local webhook receiver and a local Telegram Bot API receiver get the
important statuses of real builds, in order, with no model involved."""

from __future__ import annotations

import hashlib
import hmac
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from vitrina.team.agents.rules import rule_agents
from vitrina.team.monitor import Signal
from vitrina.team.notify import (
    MAX_TRIES,
    Notifier,
    NotifyError,
    TelegramTarget,
    WebhookTarget,
)

from .conftest import TODAY
from .scripted import Sabotaged, bar_instead_of_line

SMALL = "title: Платежи 2025\nperiod: 2025 год\nkpis:\n  - name: Сумма платежей\n    by: месяц\n"
TOKEN = "123456:test-token"


class Receiver:
    """Records every POST (path, headers, body) in arrival order; answers like the Bot API."""

    def __init__(self, fail_first: int = 0) -> None:
        self.requests: list[tuple[str, dict[str, str], bytes]] = []
        self.fail_first = fail_first
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if receiver.fail_first > 0:
                    receiver.fail_first -= 1
                    self.send_response(503)
                    self.end_headers()
                    return
                receiver.requests.append((self.path, dict(self.headers), body))
                answer = b'{"ok": true, "result": {"message_id": 1}}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: object) -> None:
                return

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def bodies(self) -> list[dict]:
        return [json.loads(body) for _path, _headers, body in self.requests]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


def _run(tmp_path: Path, demo_db: Path, brief: str, notifier: Notifier, agents=None):
    from vitrina.config import load_settings
    from vitrina.team.service import BuildService

    path = tmp_path / f"brief-{abs(hash(brief)) % 10_000}.yaml"
    path.write_text(brief, encoding="utf-8")
    service = BuildService(
        load_settings(db_url=f"duckdb:///{demo_db}"),
        board=f"sqlite:///{tmp_path / 'board.sqlite'}",
        today=TODAY,
        agents=agents,
        browser=False,
        notifier=notifier,
    )
    try:
        return service.run(path)
    finally:
        service.close()


def test_a_webhook_receiver_gets_the_notifications_in_order(
    tmp_path: Path, demo_db: Path, receiver: Receiver
) -> None:
    notifier = Notifier([WebhookTarget(receiver.url + "/hook", secret="s3cret")])
    agents = {"chart-builder": Sabotaged(rule_agents()["chart-builder"], bar_instead_of_line)}
    done = _run(tmp_path, demo_db, SMALL, notifier, agents)
    assert done.status == "done", done.blocked
    blocked = _run(tmp_path, demo_db, SMALL + "  - Индекс лояльности\n", notifier)
    assert blocked.status == "blocked"
    notifier.on_signal(
        Signal("stale_review", done.build.id, 5, "dashboard-reviewer", 7200.0, "review 5 is stale"),
        title=done.build.title,
    )
    bodies = receiver.bodies()
    assert [b["event"] for b in bodies] == ["rework", "build_published", "build_blocked", "signal"]
    assert [b["seq"] for b in bodies] == [1, 2, 3, 4]
    assert bodies[0]["build_id"] == done.build.id and bodies[0]["task_id"]
    assert bodies[1]["message"].endswith("index.html")
    assert "[BRIEF-001]" in bodies[2]["message"] and "Индекс лояльности" in bodies[2]["message"]
    for path, headers, body in receiver.requests:
        assert path == "/hook"
        expected = hmac.new(b"s3cret", body, hashlib.sha256).hexdigest()
        assert headers["X-Vitrina-Signature"] == f"sha256={expected}"
    assert notifier.failed == []


def test_the_telegram_bot_api_format(tmp_path: Path, demo_db: Path, receiver: Receiver) -> None:
    notifier = Notifier([TelegramTarget(TOKEN, "-1001", api=receiver.url)])
    report = _run(tmp_path, demo_db, SMALL.replace("Платежи 2025", "Платежи <2025> & co"), notifier)
    assert report.status == "done", report.blocked
    ((path, headers, body),) = receiver.requests
    assert path == f"/bot{TOKEN}/sendMessage"
    assert headers["Content-Type"] == "application/json"
    message = json.loads(body)
    assert message["chat_id"] == "-1001" and message["parse_mode"] == "HTML"
    lines = message["text"].splitlines()
    assert lines[0] == f"<b>Vitrina</b> · сборка {report.build.id} · Платежи &lt;2025&gt; &amp; co"
    assert lines[1] == "<b>опубликован</b>"


def test_a_failing_receiver_is_retried_then_recorded_and_the_order_holds(tmp_path: Path) -> None:
    flaky = Receiver(fail_first=MAX_TRIES + 1)  # the first notification fails every try
    try:
        notifier = Notifier([WebhookTarget(flaky.url)], sleep=lambda _s: None)
        notifier.notify("build_blocked", 1, "A", "first")
        notifier.notify("build_published", 1, "A", "second")
        assert [b["message"] for b in flaky.bodies()] == ["second"]
        assert notifier.failed and notifier.failed[0][:2] == ("webhook", 1)
        assert notifier.sent == [("webhook", 2)]
        assert any(e.message == "notification not delivered" for e in notifier.trace.events)
    finally:
        flaky.close()


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://x/y", "javascript:alert(1)", "hook"])
def test_only_http_urls_are_targets(url: str) -> None:
    with pytest.raises(NotifyError, match="http:// or https://"):
        WebhookTarget(url)
    with pytest.raises(NotifyError):
        TelegramTarget("a/b", "1")
