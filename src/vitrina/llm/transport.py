"""What counts as a transient failure, and a hard deadline around a streamed reply.

A retry is worth it only when the same request may succeed a moment later and soon: the
connection failed, the server was overloaded (429, 5xx). A bad request, a wrong key or an
unknown model will fail the same way again, and so will bad output. A timeout is not
retried: a server that did not answer within the deadline is busy with something (often
our own earlier request), and asking again only queues a second generation behind it.

Every reply is streamed so that it can be abandoned: closing the stream closes the HTTP
response, and servers that generate per connection (llama.cpp, vLLM, Ollama) stop. A
non-streamed request that is given up on keeps the server generating for minutes
(measured with llama-cpp-python: the next request waited 33 s behind an abandoned one,
0.2 s behind an abandoned stream).
"""

from __future__ import annotations

import contextvars
import queue
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, TypeGuard, TypeVar

if TYPE_CHECKING:
    import httpx

R = TypeVar("R")

RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})


class CallTimeout(TimeoutError):
    """The model gave no (complete) reply within the hard per-call deadline."""


def _openai_types(*names: str) -> tuple[type[BaseException], ...]:
    """The OpenAI SDK's error classes, once the SDK is loaded: an SDK error cannot exist
    before that, and importing it only to compare would cost every rules-only run ~1 s."""
    openai = sys.modules.get("openai")
    return tuple(getattr(openai, name) for name in names if hasattr(openai, name)) if openai else ()


def _httpx_types(*names: str) -> tuple[type, ...]:
    """httpx's classes, once httpx is loaded (by the model SDK): as with `_openai_types`, an
    httpx error or response cannot exist before, and a rules-only run never loads it."""
    httpx = sys.modules.get("httpx")
    return tuple(getattr(httpx, name) for name in names if hasattr(httpx, name)) if httpx else ()


def timeout_errors() -> tuple[type[BaseException], ...]:
    return (TimeoutError, *_httpx_types("TimeoutException"), *_openai_types("APITimeoutError"))


def transport_errors() -> tuple[type[BaseException], ...]:
    return (
        ConnectionError,
        *_httpx_types("TransportError"),
        *timeout_errors(),
        *_openai_types("APIConnectionError"),
    )


def _is_response(value: object) -> TypeGuard[httpx.Response]:
    return isinstance(value, _httpx_types("Response"))


def status_code(exc: BaseException) -> int | None:
    """The HTTP status of an error raised by the OpenAI SDK or httpx, when it has one."""
    code = getattr(exc, "status_code", None)
    if code is None and _is_response(getattr(exc, "response", None)):
        code = exc.response.status_code  # type: ignore[attr-defined]
    return code if isinstance(code, int) else None


def is_timeout(exc: BaseException) -> bool:
    return isinstance(exc, timeout_errors())


def is_unreachable(exc: BaseException) -> bool:
    """The endpoint gave nothing: timed out, refused or dropped the connection."""
    return isinstance(exc, transport_errors())


def is_retryable(exc: BaseException) -> bool:
    """True for connection failures and transient HTTP statuses; never for a timeout."""
    if is_timeout(exc):
        return False
    return isinstance(exc, transport_errors()) or status_code(exc) in RETRY_STATUS


def is_endpoint_failure(exc: BaseException) -> bool:
    """The endpoint failed whatever was asked (decision 175): it gave nothing, answered a 5xx,
    or sent a body that is no reply. A 4xx names a problem of the request (its key, its
    size, its JSON mode) and does not count."""
    if is_unreachable(exc):
        return True
    code = status_code(exc)
    return code is None or code >= 500


def miss_kind(exc: BaseException) -> str:
    """The `vitrina.llm.budget.MISS_KINDS` entry that says to a user why a request failed."""
    if is_timeout(exc):
        return "timeout"
    if is_unreachable(exc):
        return "unreachable"
    code = status_code(exc)
    if code is not None and code >= 500:
        return "server_error"
    if code is None and isinstance(exc, ValueError):  # a body that is not a reply
        return "invalid_reply"
    return "error"


def retry_after_s(exc: BaseException) -> float | None:
    """The server's Retry-After (seconds) on a 429/503, when it sent one."""
    response = getattr(exc, "response", None)
    if not _is_response(response):
        return None
    value = response.headers.get("retry-after")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def rejects_json_mode(exc: BaseException) -> bool:
    """A 400/422 that names response_format: the server does not do JSON mode."""
    return status_code(exc) in (400, 422) and "response_format" in str(exc)


def cut_text(exc: BaseException) -> str | None:
    """The raw text of a reply the OpenAI SDK refused to parse because it hit max_tokens."""
    completion = getattr(exc, "completion", None)
    if type(exc).__name__ != "LengthFinishReasonError" or completion is None:
        return None
    choices = getattr(completion, "choices", None) or []
    return (choices[0].message.content or "") if choices else ""


def describe(exc: BaseException) -> str:
    """One line for traces and users: the type, the status when there is one, the message."""
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    code = status_code(exc)
    head = f"{type(exc).__name__}" + (f" (HTTP {code})" if code else "")
    return f"{head}: {message}"[:500] if message else head


def call_with_deadline(fn: Callable[[], R], timeout_s: float) -> R:
    """Run `fn` in a daemon thread and give up after `timeout_s` (CallTimeout).

    For the one request that is not streamed (`vitrina config`'s ping, a few tokens).
    """
    future: Future[R] = Future()
    ctx = contextvars.copy_context()

    def work() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(fn())
        except BaseException as exc:
            future.set_exception(exc)

    threading.Thread(target=ctx.run, args=(work,), daemon=True, name="vitrina-llm-call").start()
    try:
        return future.result(timeout=timeout_s)
    except TimeoutError as exc:
        if future.done() and future.exception() is exc:
            raise  # the call itself raised a TimeoutError
        raise CallTimeout(f"no reply within {timeout_s:g} s") from None


_END = object()


def stream_with_deadline(
    open_stream: Callable[[], Iterator[Any]], timeout_s: float
) -> Generator[Any, None, None]:
    """Yield the items of a blocking stream, raising CallTimeout past `timeout_s` in total.

    The stream is read in a daemon thread so that a server that sends nothing cannot hold
    the caller past the deadline. When the caller stops (deadline, early stop, error), the
    reader stops at the next item and closes the stream, and with it the HTTP response; a
    reader blocked on a silent server ends at the HTTP read timeout, which the client sets
    to the same deadline.
    """
    items: queue.Queue[Any] = queue.Queue()
    stop = threading.Event()
    ctx = contextvars.copy_context()

    def work() -> None:
        source = None
        try:
            source = open_stream()
            for item in source:
                if stop.is_set():
                    break
                items.put(item)
            items.put(_END)
        except BaseException as exc:
            items.put(exc)
        finally:
            close = getattr(source, "close", None)
            if close is not None:
                close()  # GeneratorExit inside the SDK's `with` closes the response

    threading.Thread(target=ctx.run, args=(work,), daemon=True, name="vitrina-llm-stream").start()
    deadline = time.monotonic() + timeout_s
    try:
        while True:
            remaining = deadline - time.monotonic()
            try:
                item = items.get(timeout=max(remaining, 0.0))
            except queue.Empty:
                raise CallTimeout(f"no complete reply within {timeout_s:.1f} s") from None
            if item is _END:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
