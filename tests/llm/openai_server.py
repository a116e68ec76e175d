"""A tiny OpenAI-compatible server on 127.0.0.1 so the real HTTP client is tested.

Standard library only. Implements POST /v1/chat/completions (JSON mode, SSE streaming
with [DONE], usage, tool calls) and GET /v1/models, with failure modes switchable per
request: every chat request takes the next mode from `modes` (then `default_mode`):

- "ok": the next reply from `replies` (else `default_reply`)
- "500", "503", "429": that status with an OpenAI-style error body
- "401": unauthorized (also any request whose bearer key differs from `api_key`)
- "slow": wait `slow_s` before replying normally (beyond a client's timeout)
- "malformed": 200 with broken JSON as the message content
- "garbage": 200 with a body that is not JSON at all
- "no_json_mode": 400 naming response_format when the request has one, else "ok"
- "hang": accept the request and send nothing until the client goes away (or `hang_s`)
- "ramble": the reply, then words without end, one per `token_s`, until max_tokens
  (finish_reason "length") or the client closes the stream (counted in `disconnects`)

`max_tokens` (or `max_completion_tokens`) is honoured like a real server: a reply longer
than the limit (in words) is cut there with finish_reason "length". `single_model`: the
server behaves like llama.cpp / llama-cpp-python: /models lists one id (a GGUF path) and
chat requests are answered whatever model they name. `ignore_completion_tokens`: like
llama-cpp-python, only `max_tokens` limits a reply.

A reply is a string (the content) or a dict {"content": ..., "tool_calls": [(name, args)]}.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

BROKEN_JSON = '{"answer": "cut off'


@dataclass
class Request:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]  # names in lower case
    body: dict[str, Any] | None


@dataclass
class ServerState:
    """What the server does next; tests change it between requests."""

    models: list[str] = field(default_factory=lambda: ["test-model"])
    api_key: str | None = None  # None: any key (or none) is accepted
    modes: deque[str] = field(default_factory=deque)
    default_mode: str = "ok"
    replies: deque[Any] = field(default_factory=deque)
    default_reply: str = "ok"
    slow_s: float = 3.0
    hang_s: float = 30.0
    token_s: float = 0.01
    single_model: bool = False
    ignore_completion_tokens: bool = False
    disconnects: int = 0  # streams the client closed before the end
    generated: int = 0  # words sent in streamed replies, all requests together
    models_endpoint: bool = True
    requests: list[Request] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def chat_requests(self) -> list[Request]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]


def _tokens(text: str) -> int:
    return max(1, len(text.split()))


class Handler(BaseHTTPRequestHandler):
    server: OpenAIServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    # --- plumbing -----------------------------------------------------------------------

    def _send(self, status: int, payload: Any, *, raw: bytes | None = None) -> None:
        body = raw if raw is not None else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _error(self, status: int, message: str, code: str | None = None) -> None:
        self._send(
            status, {"error": {"message": message, "type": "invalid_request_error", "code": code}}
        )

    def _authorized(self) -> bool:
        key = self.server.state.api_key
        return key is None or self.headers.get("Authorization") == f"Bearer {key}"

    def _record(self, body: dict[str, Any] | None) -> None:
        self.server.state.requests.append(
            Request(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        )

    # --- routes -------------------------------------------------------------------------

    def do_GET(self) -> None:
        self._record(None)
        state = self.server.state
        if self.path.rstrip("/") != "/v1/models" or not state.models_endpoint:
            return self._error(404, f"no route {self.path}")
        if not self._authorized():
            return self._error(401, "Incorrect API key provided", "invalid_api_key")
        self._send(
            200,
            {
                "object": "list",
                "data": [{"id": m, "object": "model", "owned_by": "test"} for m in state.models],
            },
        )

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        self._record(body)
        state = self.server.state
        if self.path.rstrip("/") != "/v1/chat/completions":
            return self._error(404, f"no route {self.path}")
        mode = state.modes.popleft() if state.modes else state.default_mode
        if mode == "401" or not self._authorized():
            return self._error(401, "Incorrect API key provided", "invalid_api_key")
        if body.get("model") not in state.models and not state.single_model:
            return self._error(404, f"model {body.get('model')!r} not found", "model_not_found")
        if mode in ("500", "503", "429"):
            return self._error(int(mode), f"scripted failure {mode}", "server_error")
        if mode == "garbage":
            return self._send(200, None, raw=b"<html>proxy error</html>")
        if mode == "no_json_mode" and "response_format" in body:
            return self._error(
                400, "'response_format.type' json_object is not supported by this server"
            )
        if mode == "slow" and state.stop.wait(state.slow_s):
            return  # the server is shutting down
        if mode == "hang":
            self._hang()
            return
        reply = (
            BROKEN_JSON
            if mode == "malformed"
            else (state.replies.popleft() if state.replies else state.default_reply)
        )
        if isinstance(reply, str):
            reply = {"content": reply}
        prompt_tokens = sum(_tokens(str(m.get("content") or "")) for m in body.get("messages", []))
        limit = self._limit(body)
        if mode == "ramble":
            filler = " ".join(f"word{i}" for i in range(limit or 10_000))
            reply = {**reply, "content": f"{reply.get('content') or ''} {filler}"}
        content = reply.get("content") or ""
        finish = None
        if limit is not None and _tokens(content) > limit and not reply.get("tool_calls"):
            reply = {**reply, "content": " ".join(content.split(" ")[:limit])}
            finish = "length"
        if body.get("stream"):
            return self._stream(
                body, reply, prompt_tokens, finish, pace=state.token_s if mode == "ramble" else 0
            )
        self._send(200, self._completion(body, reply, prompt_tokens, finish))

    def _limit(self, body: dict[str, Any]) -> int | None:
        names = (
            ("max_tokens",)
            if self.server.state.ignore_completion_tokens
            else ("max_tokens", "max_completion_tokens")
        )
        return next((int(body[n]) for n in names if isinstance(body.get(n), int)), None)

    def _hang(self) -> None:
        """Read nothing more, send nothing: wait until the client closes or the test ends."""
        import select

        deadline = time.monotonic() + self.server.state.hang_s
        while time.monotonic() < deadline and not self.server.state.stop.is_set():
            readable, _, _ = select.select([self.connection], [], [], 0.05)
            if readable and not self.connection.recv(1, socket_peek()):
                self.server.state.disconnects += 1  # the client closed the connection
                break
        self.close_connection = True

    # --- bodies -------------------------------------------------------------------------

    def _tool_calls(self, reply: dict[str, Any]) -> list[dict[str, Any]]:
        return [
            {
                "id": f"call_{i}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
            for i, (name, args) in enumerate(reply.get("tool_calls", []))
        ]

    def _completion(
        self,
        body: dict[str, Any],
        reply: dict[str, Any],
        prompt_tokens: int,
        finish: str | None = None,
    ) -> dict[str, Any]:
        content = reply.get("content") or ""
        calls = self._tool_calls(reply)
        message: dict[str, Any] = {
            "role": "assistant",
            "content": content or (None if calls else ""),
        }
        if calls:
            message["tool_calls"] = calls
        completion_tokens = _tokens(content) if content else len(calls)
        return {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": finish or ("tool_calls" if calls else "stop"),
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def _stream(
        self,
        body: dict[str, Any],
        reply: dict[str, Any],
        prompt_tokens: int,
        finish: str | None = None,
        pace: float = 0.0,
    ) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        content = reply.get("content") or ""
        base = {
            "id": "chatcmpl-test",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": body["model"],
        }

        def event(payload: Any) -> None:
            data = payload if isinstance(payload, str) else json.dumps(payload)
            self.wfile.write(f"data: {data}\n\n".encode())
            self.wfile.flush()

        try:
            event(
                {
                    **base,
                    "choices": [
                        {
                            "index": 0,
                            "delta": {"role": "assistant", "content": ""},
                            "finish_reason": None,
                        }
                    ],
                }
            )
            for piece in _pieces(content):
                if pace and self.server.state.stop.wait(pace):
                    return
                event(
                    {
                        **base,
                        "choices": [
                            {"index": 0, "delta": {"content": piece}, "finish_reason": None}
                        ],
                    }
                )
                self.server.state.generated += 1
            calls = self._tool_calls(reply)
            for n, call in enumerate(calls):
                event(
                    {
                        **base,
                        "choices": [
                            {
                                "index": 0,
                                "delta": {"tool_calls": [{"index": n, **call}]},
                                "finish_reason": None,
                            }
                        ],
                    }
                )
            if calls:
                finish = "tool_calls"
        except (BrokenPipeError, ConnectionResetError):
            self.server.state.disconnects += 1  # the client closed the stream: stop generating
            self.close_connection = True
            return
        event({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish or "stop"}]})
        if (body.get("stream_options") or {}).get("include_usage"):
            completion_tokens = _tokens(content)
            event(
                {
                    **base,
                    "choices": [],
                    "usage": {
                        "prompt_tokens": prompt_tokens,
                        "completion_tokens": completion_tokens,
                        "total_tokens": prompt_tokens + completion_tokens,
                    },
                }
            )
        event("[DONE]")
        self.close_connection = True


def socket_peek() -> int:
    import socket

    return socket.MSG_PEEK


def _pieces(text: str) -> list[str]:
    words = text.split(" ")
    return [w if i == 0 else " " + w for i, w in enumerate(words)] if text else []


class OpenAIServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, state: ServerState) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.state = state

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hung up mid-reply is a tested case, not a server error

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


@contextmanager
def serve(state: ServerState | None = None) -> Iterator[OpenAIServer]:
    """Run the server on a free port for the duration of the block."""
    server = OpenAIServer(state or ServerState())
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield server
    finally:
        server.state.stop.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def free_port() -> int:
    """A port nothing listens on (for the "down" case)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
