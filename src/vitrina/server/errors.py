"""One JSON error body for every failure: ``{"error": {"code", "message", "message_ru"}}``.

A client (the web UI, a bot) switches on ``code``; people read ``message``. A 500 never
carries a traceback: it is logged on the server with the request path.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import Send

log = logging.getLogger("vitrina.server")

_HTTP_CODES = {
    400: ("bad_request", "bad request", "неверный запрос"),
    401: ("unauthorized", "an API token is required", "нужен API-токен"),
    403: ("forbidden", "forbidden", "доступ запрещён"),
    404: ("not_found", "not found", "не найдено"),
    405: ("method_not_allowed", "method not allowed", "метод не поддерживается"),
    409: ("conflict", "conflict", "конфликт"),
    413: ("payload_too_large", "request body too large", "слишком большой запрос"),
    429: ("rate_limited", "too many requests", "слишком много запросов"),
    503: ("not_ready", "service not ready", "сервис не готов"),
}


class ApiError(Exception):
    """A failure a client should see: HTTP status, a stable code and a message in two languages."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        message_ru: str | None = None,
        *,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.message_ru = message_ru or message
        self.headers = headers
        self.extra = extra


def error_body(
    code: str, message: str, message_ru: str | None = None, **extra: Any
) -> dict[str, Any]:
    return {
        "error": {"code": code, "message": message, "message_ru": message_ru or message, **extra}
    }


async def send_error(send: Send, status: int, body: dict[str, Any]) -> None:
    """An error reply written straight to ASGI, for middleware that answers before the app."""
    payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})


def error_response(
    status: int,
    code: str,
    message: str,
    message_ru: str | None = None,
    *,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    return JSONResponse(
        error_body(code, message, message_ru, **extra), status_code=status, headers=headers
    )


async def _api_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return error_response(
        exc.status, exc.code, exc.message, exc.message_ru, headers=exc.headers, **exc.extra
    )


async def _http_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code, en, ru = _HTTP_CODES.get(
        exc.status_code, ("http_error", "request failed", "запрос не выполнен")
    )
    detail = (
        exc.detail
        if isinstance(exc.detail, str) and exc.detail not in ("Not Found", "Method Not Allowed")
        else None
    )
    return error_response(
        exc.status_code, code, detail or en, ru, headers=getattr(exc, "headers", None)
    )


async def _validation_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    problems = [
        {
            "field": ".".join(str(p) for p in err.get("loc", ()) if p != "body"),
            "message": err.get("msg", ""),
        }
        for err in exc.errors()
    ]
    where = "; ".join(f"{p['field'] or 'body'}: {p['message']}" for p in problems[:5])
    return error_response(
        422,
        "invalid_request",
        f"invalid request: {where}",
        f"неверный запрос: {where}",
        details=problems,
    )


async def _internal_error(request: Request, exc: Exception) -> JSONResponse:
    log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(
        500,
        "internal",
        "internal error; the server log has the details",
        "внутренняя ошибка; подробности в журнале сервера",
    )


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(Exception, _internal_error)
