"""Notifications on the statuses a person must know about, delivered by code, never a model.

A build that is published, blocked with questions, sent back for rework, escalated, or
signalled by the monitor becomes a `Notification`; each target delivers it in order: a
generic webhook (the notification as JSON, signed with HMAC-SHA256 when a secret is set)
or the Telegram Bot API's ``sendMessage`` (the text as HTML, every value escaped). A
target that fails is retried a bounded number of times and then written to the trace;
a notification never stops a build.

>>> note = Notification(seq=1, event="build_blocked", build_id=3, title="A <b>", message="why?")
>>> telegram_text(note)
'<b>Vitrina</b> · build 3 · A &lt;b&gt;\\n<b>blocked</b>\\nwhy?'
"""

from __future__ import annotations

import hashlib
import hmac
import html
import json
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit

import httpx

from vitrina.team.errors import TeamError
from vitrina.trace import Trace

Event = Literal[
    "build_published", "build_blocked", "rework", "escalated", "signal", "gate_questions"
]
EVENT_WORDS = {
    "build_published": ("опубликован", "published"),
    "build_blocked": ("заблокирован", "blocked"),
    "rework": ("на доработке", "sent back for rework"),
    "escalated": ("передан человеку", "escalated"),
    "signal": ("сигнал монитора", "monitor signal"),
}
MAX_TRIES = 3
MESSAGE_CHARS = 3500  # Telegram's limit is 4096 characters per message


class NotifyError(TeamError):
    """A notification target is set up wrong (a URL that is not http or https)."""


@dataclass(frozen=True)
class Notification:
    seq: int
    event: str
    build_id: int
    title: str
    message: str
    task_id: int | None = None
    link: str | None = None
    lang: str = "en"
    at: float = field(default_factory=time.time)


def telegram_text(n: Notification) -> str:
    ru = n.lang == "ru"
    word = EVENT_WORDS.get(n.event, (n.event, n.event))[0 if ru else 1]
    lines = [
        f"<b>Vitrina</b> · {'сборка' if ru else 'build'} {n.build_id} · {html.escape(n.title)}",
        f"<b>{html.escape(word)}</b>",
        html.escape(n.message[:MESSAGE_CHARS]),
    ]
    if n.link:
        lines.append(html.escape(n.link))
    return "\n".join(lines)


def _http_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise NotifyError(f"a notification URL must be http:// or https://, got {url!r}")
    return url.rstrip("/")


class Target(Protocol):
    name: str

    def send(self, http: httpx.Client, notification: Notification) -> None: ...


class WebhookTarget:
    """POST the notification as JSON; ``X-Vitrina-Signature: sha256=<hmac>`` with a secret."""

    name = "webhook"

    def __init__(self, url: str, secret: str | None = None) -> None:
        self.url = _http_url(url)
        self._secret = secret

    def send(self, http: httpx.Client, notification: Notification) -> None:
        body = json.dumps(asdict(notification), ensure_ascii=False).encode("utf-8")
        headers = {"Content-Type": "application/json", "X-Vitrina-Event": notification.event}
        if self._secret:
            digest = hmac.new(self._secret.encode(), body, hashlib.sha256).hexdigest()
            headers["X-Vitrina-Signature"] = f"sha256={digest}"
        http.post(self.url, content=body, headers=headers).raise_for_status()


class TelegramTarget:
    """The Bot API's sendMessage: ``{api}/bot<token>/sendMessage`` with chat_id and HTML text."""

    name = "telegram"

    def __init__(self, token: str, chat_id: str, *, api: str = "https://api.telegram.org") -> None:
        if not token or "/" in token or not chat_id:
            raise NotifyError("a Telegram target needs a bot token (no '/') and a chat id")
        self._token = token
        self.chat_id = chat_id
        self.api = _http_url(api)

    def send(self, http: httpx.Client, notification: Notification) -> None:
        answer = http.post(
            f"{self.api}/bot{self._token}/sendMessage",
            json={
                "chat_id": self.chat_id,
                "text": telegram_text(notification),
                "parse_mode": "HTML",
                "disable_web_page_preview": True,
            },
        )
        answer.raise_for_status()
        if not answer.json().get("ok", False):
            raise httpx.HTTPError(f"Telegram answered: {answer.text[:200]}")


class Notifier:
    """Delivers notifications to every target, one after another, in the order they come."""

    def __init__(
        self,
        targets: list[Target],
        *,
        timeout_s: float = 10.0,
        backoff_s: float = 0.5,
        sleep: Any = time.sleep,
    ) -> None:
        self.targets = targets
        self.timeout_s = timeout_s
        self.backoff_s = backoff_s
        self._sleep = sleep
        self.seq = 0
        self.sent: list[tuple[str, int]] = []  # (target, seq) delivered
        self.failed: list[tuple[str, int, str]] = []
        self.trace = Trace("notify")

    def notify(
        self, event: str, build_id: int, title: str, message: str, **extra: Any
    ) -> Notification:
        self.seq += 1
        notification = Notification(self.seq, event, build_id, title, message, **extra)
        with httpx.Client(timeout=self.timeout_s, follow_redirects=False) as http:
            for target in self.targets:
                self._deliver(http, target, notification)
        return notification

    def _deliver(self, http: httpx.Client, target: Target, notification: Notification) -> None:
        error = ""
        for attempt in range(MAX_TRIES):
            try:
                target.send(http, notification)
                self.sent.append((target.name, notification.seq))
                return
            except httpx.HTTPError as exc:
                error = str(exc)[:300] or type(exc).__name__
                if attempt + 1 < MAX_TRIES:
                    self._sleep(self.backoff_s * (2**attempt))
        self.failed.append((target.name, notification.seq, error))
        self.trace.error(
            "notification not delivered", target=target.name, seq=notification.seq, error=error
        )

    # what a build's events mean -------------------------------------------------------
    def on_build_event(self, build_id: int, title: str, lang: str) -> Any:
        """An ``on_event`` callback for BuildService.run: the steps worth a notification."""

        def handle(kind: str, detail: dict[str, Any]) -> None:
            if kind != "step":
                return
            step = detail.get("step") or {}
            action = step.get("action")
            event = {"return_for_rework": "rework", "escalate": "escalated"}.get(str(action))
            if event is not None:
                self.notify(
                    event,
                    build_id,
                    title,
                    str(step.get("reason", ""))[:MESSAGE_CHARS],
                    task_id=step.get("task_id"),
                    lang=lang,
                )

        return handle

    def on_signal(self, signal: Any, title: str = "", lang: str = "en") -> None:
        """The monitor's hook (monitor.raise_signals(on_signal=...))."""
        self.notify(
            "signal", signal.build_id, title, signal.message, task_id=signal.task_id, lang=lang
        )

    def build_finished(self, build: Any, lang: str) -> None:
        """The build's final status: published (with where) or blocked (with the questions)."""
        if build.status == "done":
            self.notify(
                "build_published",
                build.id,
                build.title,
                str(build.result.get("location") or ""),
                link=_superset_link(build.result),
                lang=lang,
            )
        elif build.status == "blocked":
            blocked = build.result.get("blocked") or {}
            message = "\n".join(x for x in (blocked.get("reason"), blocked.get("questions")) if x)
            self.notify("build_blocked", build.id, build.title, message, lang=lang)


def _superset_link(result: dict[str, Any]) -> str | None:
    for publication in result.get("publications") or []:
        if publication.get("target") == "superset":
            return str(publication.get("location"))
    return None
