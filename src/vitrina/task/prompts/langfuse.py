"""Prompts from Langfuse over its public REST API (`GET /api/public/v2/prompts/{name}`).

Configured by LANGFUSE_PUBLIC_KEY, LANGFUSE_SECRET_KEY and LANGFUSE_HOST (or
LANGFUSE_BASE_URL; default https://cloud.langfuse.com). Basic auth with the key pair; a
short timeout; answers are cached per client so a task asks once per prompt.
"""

from __future__ import annotations

import os
import threading
from typing import Any
from urllib.parse import quote

import httpx

DEFAULT_HOST = "https://cloud.langfuse.com"


class LangfuseError(RuntimeError):
    """Langfuse did not give the prompt (unreachable, unauthorised, unknown, malformed)."""


class LangfuseClient:
    def __init__(self, host: str, public_key: str, secret_key: str, *, timeout_s: float = 3.0) -> None:
        self.host = host.rstrip("/")
        self._auth = (public_key, secret_key)
        self.timeout_s = timeout_s
        self._cache: dict[tuple[str, str], dict[str, Any]] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_env(cls) -> LangfuseClient | None:
        public, secret = os.environ.get("LANGFUSE_PUBLIC_KEY"), os.environ.get("LANGFUSE_SECRET_KEY")
        if not public or not secret:
            return None
        host = os.environ.get("LANGFUSE_HOST") or os.environ.get("LANGFUSE_BASE_URL") or DEFAULT_HOST
        return cls(host, public, secret)

    def get_prompt(self, name: str, *, label: str) -> dict[str, Any]:
        key = (name, label)
        with self._lock:
            if key in self._cache:
                return self._cache[key]
        url = f"{self.host}/api/public/v2/prompts/{quote(name, safe='')}"
        try:
            reply = httpx.get(url, params={"label": label}, auth=self._auth, timeout=self.timeout_s)
        except httpx.HTTPError as exc:
            raise LangfuseError(f"Langfuse unreachable at {self.host}: {exc}") from None
        if reply.status_code != 200:
            raise LangfuseError(f"Langfuse answered {reply.status_code} for prompt {name!r} label {label!r}")
        try:
            body = reply.json()
        except ValueError:
            raise LangfuseError("Langfuse sent a non-JSON body") from None
        if not isinstance(body, dict) or "prompt" not in body or "version" not in body:
            raise LangfuseError("Langfuse reply has no prompt or version")
        with self._lock:
            self._cache[key] = body
        return body
