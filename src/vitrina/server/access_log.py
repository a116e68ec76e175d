"""No credential reaches a log line: tokens in a request's query string are redacted.

The server refuses a token in the URL (`vitrina.server.headers`), but uvicorn writes the access
line, with the full path and query, after the answer: that line, and any other line of the
server's loggers, gets ``[redacted]`` in place of a token-named parameter's value and of
anything shaped like a Vitrina token (``vt_<id>_<secret>``).

>>> redact("/api/info?lang=ru&token=vt_0123456789ab_SeCrEt-secret_secret")
'/api/info?lang=ru&token=[redacted]'
>>> redact("/x?q=vt_0123456789ab_SeCrEt-secret_secret")
'/x?q=[redacted]'
"""

from __future__ import annotations

import logging
import re
from urllib.parse import unquote_plus

REDACTED = "[redacted]"
# query parameters that carry a credential by name (compared case-insensitively)
TOKEN_PARAMS = frozenset(
    {
        "token",
        "access_token",
        "api_token",
        "api_key",
        "apikey",
        "auth",
        "authorization",
        "bearer",
        "x-vitrina-token",
    }
)
TOKEN_VALUE = re.compile(r"vt_[0-9A-Fa-f]+_[A-Za-z0-9_\-]+")
_PARAM = re.compile(r"(?P<name>[^&=?#\s]+)=(?P<value>[^&#\s\"]*)")
LOGGERS = ("uvicorn.access", "uvicorn.error", "vitrina.server")


def _param(match: re.Match[str]) -> str:
    """One ``name=value`` pair, its value redacted when the name (or the value) says token;
    both are read percent-decoded, so ``%74oken=vt%5F...`` is caught too."""
    name, value = match.group("name"), match.group("value")
    if unquote_plus(name).lower() in TOKEN_PARAMS or TOKEN_VALUE.search(unquote_plus(value)):
        return f"{name}={REDACTED}"
    return match.group(0)


def redact(text: str) -> str:
    """``text`` with token-named query values and Vitrina tokens replaced by [redacted]."""
    return TOKEN_VALUE.sub(REDACTED, _PARAM.sub(_param, text))


class RedactTokens(logging.Filter):
    """Rewrites a record's message and string arguments; never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        return True


def install(names: tuple[str, ...] = LOGGERS) -> None:
    """Put the filter on the server's loggers (once each: safe to call in every worker)."""
    for name in names:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactTokens) for f in logger.filters):
            logger.addFilter(RedactTokens())
