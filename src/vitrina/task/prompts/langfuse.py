"""Prompts from Langfuse through the official SDK (`langfuse.Langfuse.get_prompt`).

Configured by LANGFUSE_PUBLIC_KEY, LANGFUSE_SECRET_KEY and LANGFUSE_HOST (or
LANGFUSE_BASE_URL; default https://cloud.langfuse.com). The SDK is imported only when
both keys are set and a prompt is first asked for, so the CLI starts without it; its own
prompt cache (60 s, refreshed in the background) and retries of transient errors apply.
Tracing stays off here: spans go through `vitrina.trace.telemetry`.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langfuse import Langfuse

DEFAULT_HOST = "https://cloud.langfuse.com"
FETCH_RETRIES = 0  # no second round after a failure (its HTTP layer already retries HTTP 5xx)


class LangfuseError(RuntimeError):
    """Langfuse did not give the prompt (unreachable, unauthorised, unknown, malformed)."""


class LangfuseClient:
    """The prompt-management part of the SDK, behind the `get_prompt -> dict` Vitrina reads."""

    def __init__(
        self, host: str, public_key: str, secret_key: str, *, timeout_s: float = 3.0
    ) -> None:
        self.host = host.rstrip("/")
        self.timeout_s = timeout_s
        self._keys = (public_key, secret_key)
        self._sdk: Langfuse | None = None
        self._lock = threading.Lock()

    @classmethod
    def from_env(cls) -> LangfuseClient | None:
        public, secret = (
            os.environ.get("LANGFUSE_PUBLIC_KEY"),
            os.environ.get("LANGFUSE_SECRET_KEY"),
        )
        if not public or not secret:
            return None
        host = (
            os.environ.get("LANGFUSE_HOST") or os.environ.get("LANGFUSE_BASE_URL") or DEFAULT_HOST
        )
        return cls(host, public, secret)

    def _client(self) -> Langfuse:
        with self._lock:
            if self._sdk is None:
                from langfuse import Langfuse

                public, secret = self._keys
                self._sdk = Langfuse(
                    public_key=public,
                    secret_key=secret,
                    host=self.host,
                    timeout=max(1, round(self.timeout_s)),
                    tracing_enabled=False,
                )
            return self._sdk

    def get_prompt(self, name: str, *, label: str) -> dict[str, Any]:
        """{"prompt", "version", "labels", "config"} of the text prompt `name` with `label`."""
        try:
            found = self._client().get_prompt(
                name,
                label=label,
                type="text",
                max_retries=FETCH_RETRIES,
                fetch_timeout_seconds=max(1, round(self.timeout_s)),
            )
        except Exception as exc:  # the SDK raises its API errors, httpx errors and pydantic errors
            raise LangfuseError(
                f"Langfuse at {self.host} gave no prompt {name!r} label {label!r}: "
                f"{type(exc).__name__}: {str(exc)[:200]}"
            ) from None
        if not isinstance(found.prompt, str):
            raise LangfuseError(f"Langfuse prompt {name!r} is not a text prompt")
        return {
            "prompt": found.prompt,
            "version": found.version,
            "labels": list(found.labels),
            "config": dict(found.config or {}),
        }
