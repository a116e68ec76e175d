"""Options of one `vitrina serve` process: what the CLI parses and the app is built from."""

from __future__ import annotations

import ipaddress
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and localhost: the only hosts where --no-auth is allowed."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class ServeOptions:
    """Limits and switches of the HTTP app. Frozen: tests pass changed copies."""

    host: str = "127.0.0.1"
    port: int = 8000
    auth: bool = True
    max_body_bytes: int = 64 * 1024  # a question is text; nothing the API takes is larger
    max_question_chars: int = 2000
    rate_per_minute: float = 120.0  # requests per token per minute (0 switches the limit off)
    burst: int = 30  # bucket size: a page load makes a few requests at once
    workers: int = 1  # server processes (uvicorn workers), each with its own pipeline
    threads: int = 8  # turns running at the same time in one process
    max_result_rows: int = 1000  # rows of a result sent in the SSE result event
    streams_per_token: int = (
        20  # event streams (turns, task events) one token may hold open at once
    )
    docs_dir: Path | None = None  # a `vitrina docs` output folder (index.json, combined_manual.md)

    def check(self) -> None:
        """Refuse unsafe combinations before the server starts."""
        if not self.auth and not is_loopback(self.host):
            raise ValueError(
                f"--no-auth is allowed only on a loopback host (127.0.0.1, ::1, localhost), not on "
                f"{self.host!r}: create a token with `vitrina token create NAME` instead. / "
                "--no-auth разрешён только на локальном адресе (127.0.0.1, ::1, "
                "localhost), а не на "
                f"{self.host!r}: создайте токен командой `vitrina token create ИМЯ`."
            )


OPTIONS_ENV = "VITRINA_SERVE_OPTIONS"  # how `serve --workers N` hands its options to each worker


def options_to_env(options: ServeOptions) -> str:
    """The options as JSON for the worker processes (they rebuild the app from it)."""
    data = asdict(options)
    data["docs_dir"] = str(options.docs_dir) if options.docs_dir else None
    return json.dumps(data)


def options_from_env() -> ServeOptions:
    raw = json.loads(os.environ.get(OPTIONS_ENV) or "{}")
    if raw.get("docs_dir"):
        raw["docs_dir"] = Path(raw["docs_dir"])
    return ServeOptions(**raw)


def docs_dir_from_env() -> Path | None:
    """VITRINA_DOCS_DIR: the measure manual the app and the MCP server show."""
    raw = os.environ.get("VITRINA_DOCS_DIR")
    return Path(raw).expanduser() if raw else None
