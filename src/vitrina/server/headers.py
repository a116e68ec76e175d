"""Security headers on every response, and no token in a URL.

Every response carries a strict Content-Security-Policy: scripts only from this server's files
(no inline script, no handler attribute, no eval), styles only from its files, nothing
embedded, no <base>, no framing, forms only to this server. The docs page alone allows inline
styles (DOCS_CSP, sent by its view), because Mermaid draws each lineage diagram with style
attributes and a <style> element (docs/decisions/149-exports-and-pages.md). A response that
sets its own policy (the docs page, a published dashboard) keeps it.

A request with a token in its query string is refused before any view runs: URLs end up in
access logs, browser history and Referer headers (the access log redacts it as well,
`vitrina.server.access_log`).
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vitrina.server.access_log import TOKEN_PARAMS, TOKEN_VALUE
from vitrina.server.errors import error_body, send_error


def content_security_policy(*, inline_styles: bool = False) -> str:
    """The pages' policy; `inline_styles` only for the docs page, whose Mermaid diagrams carry
    style attributes and a <style> element per SVG."""
    return "; ".join(
        [
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self' 'unsafe-inline'" if inline_styles else "style-src 'self'",
            "img-src 'self' data: blob:",  # blob: the board's attachments, fetched with the token
            "connect-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "frame-ancestors 'none'",
            "form-action 'self'",
        ]
    )


CSP = content_security_policy()
DOCS_CSP = content_security_policy(inline_styles=True)
SECURITY_HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}
TOKEN_IN_URL = (
    "an API token in the URL is refused: URLs are written to logs and browser history; "
    "send it in the header 'Authorization: Bearer TOKEN'",
    "API-токен в адресе запроса не принимается: адреса попадают в журналы и историю "
    "браузера; передайте его в заголовке 'Authorization: Bearer ТОКЕН'",
)


def token_in_query(query: bytes) -> str | None:
    """The name of the query parameter that carries a token, or None."""
    text = query.decode("latin-1")
    for name, value in parse_qsl(text, keep_blank_values=True):
        if name.lower() in TOKEN_PARAMS or TOKEN_VALUE.search(value):
            return name
    return None


class SecurityHeadersMiddleware:
    """Adds SECURITY_HEADERS to each HTTP response (a header a response sets itself wins) and
    answers 400 `token_in_url` to a request with a token in its query string."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers.setdefault(name, value)
            await send(message)

        param = token_in_query(scope.get("query_string") or b"")
        if param is not None:
            body = error_body("token_in_url", *TOKEN_IN_URL, parameter=param)
            await send_error(send_with_headers, 400, body)
            return
        await self.app(scope, receive, send_with_headers)
