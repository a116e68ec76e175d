"""Where each resolved setting came from, with secrets masked, for `vitrina config`.

Mirrors the precedence of `vitrina.config.load_settings`: argument > environment >
vitrina.toml > default.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from vitrina.config import SETTING_NAMES, Settings, env_name, read_toml

Source = Literal["argument", "env", "toml", "default"]
SECRET_FIELDS = frozenset({"llm_api_key", "onec_password"})
URL_FIELDS = frozenset({"db_url", "state_url", "llm_base_url", "onec_url"})
HIDDEN = "***"
# user:password@ without a scheme, and password=... in a query or a key=value DSN
_USERINFO = re.compile(r"(?P<head>(?:^|[/\s,;]|://)[^/\s:@]*):(?P<secret>[^@\s]*)@")
_KEYS = r"(?:password|passwd|pwd|pass|secret|token|api_key)"
_QUERY_SECRET = re.compile(rf"(?i)(?P<head>[?&]{_KEYS}=)(?P<secret>[^&#\s]*)")
_DSN_SECRET = re.compile(rf"(?i)(?P<head>(?:^|\s){_KEYS}\s*=\s*)(?P<secret>'(?:[^'\\]|\\.)*'?|\S*)")


@dataclass(frozen=True)
class SettingRow:
    """One line of the settings table."""

    name: str
    value: str  # for display: secrets masked, passwords in URLs hidden
    source: Source
    env: str


def mask_secret(value: str) -> str:
    """Enough to tell two keys apart, never enough to use one.

    >>> mask_secret("sk-proj-abcdefgh1234")
    'sk-…1234'
    >>> mask_secret("short")
    '****'
    """
    return f"{value[:3]}…{value[-4:]}" if len(value) >= 12 else "****"


def mask_url(value: str) -> str:
    """A URL (or DSN) with every password hidden, whether or not it parses.

    SQLAlchemy renders the URLs it can parse; the text is then masked again by pattern,
    so that a URL it cannot parse (or parses into something odd) never shows a password.

    >>> mask_url("postgresql://bi:s3cret@db:5432/dwh")
    'postgresql://bi:***@db:5432/dwh'
    >>> mask_url("not a url://u:p@ss@host/x?password=pw&x=1")
    'not a url://u:***@host/x?password=***&x=1'
    """
    text = value
    try:
        from sqlalchemy.engine import make_url

        text = make_url(value).render_as_string(hide_password=True)
    except Exception:
        text = value
    masked = _mask_userinfo(text)
    for pattern in (_QUERY_SECRET, _DSN_SECRET):
        masked = pattern.sub(lambda m: m.group("head") + HIDDEN, masked)
    return masked


def _mask_userinfo(text: str) -> str:
    """Hide everything between the first ':' after the scheme and the last '@' of the authority."""
    start = text.find("://")
    authority_start = start + 3 if start >= 0 else 0
    end = len(text)
    for sep in "/?#":
        pos = text.find(sep, authority_start)
        if pos >= 0:
            end = min(end, pos)
    at = text.rfind("@", authority_start, end)
    if at < 0:
        return _USERINFO.sub(lambda m: m.group("head") + ":" + HIDDEN + "@", text)
    colon = text.find(":", authority_start, at)
    if colon < 0:
        return text
    return text[: colon + 1] + HIDDEN + text[at:]


def display(name: str, value: Any) -> str:
    if value is None or value == {}:
        return "(not set)"
    if name in SECRET_FIELDS:
        return mask_secret(str(value))
    if name in URL_FIELDS:
        return mask_url(str(value))
    return str(value)


def describe_settings(
    settings: Settings, arguments: Mapping[str, Any] | None = None
) -> list[SettingRow]:
    """Every setting with its displayed value and its source."""
    arguments = {k: v for k, v in (arguments or {}).items() if v is not None}
    toml = read_toml(settings.home).values
    rows = []
    for name in SETTING_NAMES:
        env = env_name(name)
        source: Source
        if name in arguments:
            source = "argument"
        elif any(k.upper() == env for k in os.environ):
            source = "env"
        elif name in toml:
            source = "toml"
        else:
            source = "default"
        rows.append(SettingRow(name, display(name, getattr(settings, name)), source, env))
    return rows
