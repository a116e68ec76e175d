"""What counts as a transient failure, and a hard deadline around a blocking call.

A retry is worth it only when the same request may succeed a moment later: the
connection failed, the server timed out, it was overloaded (429, 5xx). A bad request,
a wrong key or an unknown model will fail the same way again, and so will bad output.
"""

from __future__ import annotations

import contextvars
import queue
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from typing import Any, TypeVar

import httpx

R = TypeVar("R")

RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})


class CallTimeout(TimeoutError):
    """The model gave no (complete) reply within the hard per-call deadline."""


def _transport_types() -> tuple[type[BaseException], ...]:
    types: list[type[BaseException]] = [TimeoutError, ConnectionError, httpx.TransportError]
    try:
        import openai

        types += [openai.APIConnectionError]  # APITimeoutError is a subclass
    except ImportError:  # pragma: no cover - openai comes with langchain-openai
        pass
    return tuple(types)


TRANSPORT_ERRORS = _transport_types()


def status_code(exc: BaseException) -> int | None:
    """The HTTP status of an error raised by the OpenAI SDK or httpx, when it has one."""
    code = getattr(exc, "status_code", None)
    if code is None and isinstance(getattr(exc, "response", None), httpx.Response):
        code = exc.response.status_code  # type: ignore[attr-defined]
    return code if isinstance(code, int) else None


def is_retryable(exc: BaseException) -> bool:
    """True for transport errors, timeouts and transient HTTP statuses."""
    return isinstance(exc, TRANSPORT_ERRORS) or status_code(exc) in RETRY_STATUS


def rejects_json_mode(exc: BaseException) -> bool:
    """A 400/422 that names response_format: the server does not do JSON mode."""
    return status_code(exc) in (400, 422) and "response_format" in str(exc)


def describe(exc: BaseException) -> str:
    """One line for traces and users: the type, the status when there is one, the message."""
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    code = status_code(exc)
    head = f"{type(exc).__name__}" + (f" (HTTP {code})" if code else "")
    return f"{head}: {message}"[:500] if message else head


def call_with_deadline(fn: Callable[[], R], timeout_s: float) -> R:
    """Run `fn` in a daemon thread and give up after `timeout_s` (CallTimeout).

    The HTTP client's own timeout bounds each read, not the whole reply; a model that
    streams slowly, or a fake that sleeps, would hold a graph node for minutes. The
    abandoned thread ends when its request does; context variables (LangGraph config,
    callbacks) are carried into it.
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


def stream_with_deadline(open_stream: Callable[[], Iterator[Any]], timeout_s: float) -> Iterator[Any]:
    """Yield the items of a blocking stream, raising CallTimeout past `timeout_s` in total."""
    items: queue.Queue[Any] = queue.Queue()
    stop = threading.Event()
    ctx = contextvars.copy_context()

    def work() -> None:
        try:
            for item in open_stream():
                if stop.is_set():
                    break  # closes the generator, and with it the HTTP response
                items.put(item)
            items.put(_END)
        except BaseException as exc:
            items.put(exc)

    threading.Thread(target=ctx.run, args=(work,), daemon=True, name="vitrina-llm-stream").start()
    deadline = time.monotonic() + timeout_s
    try:
        while True:
            remaining = deadline - time.monotonic()
            try:
                item = items.get(timeout=max(remaining, 0.0))
            except queue.Empty:
                raise CallTimeout(f"the stream did not finish within {timeout_s:g} s") from None
            if item is _END:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
