"""Where each resolved setting came from, with secrets masked, for `vitrina config`.

Mirrors the precedence of `vitrina.config.load_settings`: argument > environment >
vitrina.toml > default.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Literal

from vitrina.config import _ENV_KEYS, Settings, _read_toml

Source = Literal["argument", "env", "toml", "default"]
SECRET_FIELDS = frozenset({"llm_api_key"})
URL_FIELDS = frozenset({"db_url", "state_url"})


@dataclass(frozen=True)
class SettingRow:
    """One line of the settings table."""

    name: str
    value: str  # for display: secrets masked, passwords in URLs hidden
    source: Source
    env: str


def toml_path(home: Path) -> Path | None:
    """The vitrina.toml that load_settings reads (current directory first, then home)."""
    for candidate in (Path.cwd() / "vitrina.toml", home / "vitrina.toml"):
        if candidate.is_file():
            return candidate
    return None


def mask_secret(value: str) -> str:
    """Enough to tell two keys apart, never enough to use one.

    >>> mask_secret("sk-proj-abcdefgh1234")
    'sk-…1234'
    >>> mask_secret("short")
    '****'
    """
    return f"{value[:3]}…{value[-4:]}" if len(value) >= 12 else "****"


def mask_url(value: str) -> str:
    """A database URL with its password hidden."""
    try:
        from sqlalchemy.engine import make_url

        return make_url(value).render_as_string(hide_password=True)
    except Exception:
        return value


def display(name: str, value: Any) -> str:
    if value is None or value == {}:
        return "(not set)"
    if name in SECRET_FIELDS:
        return mask_secret(str(value))
    if name in URL_FIELDS:
        return mask_url(str(value))
    return str(value)


def describe_settings(settings: Settings, arguments: Mapping[str, Any] | None = None) -> list[SettingRow]:
    """Every setting with its displayed value and its source."""
    arguments = {k: v for k, v in (arguments or {}).items() if v is not None}
    toml = _read_toml(settings.home)
    rows = []
    for f in fields(Settings):
        if f.name == "extra":
            continue
        env = _ENV_KEYS.get(f.name, "VITRINA_" + f.name.upper())
        source: Source
        if f.name in arguments:
            source = "argument"
        elif env in os.environ:
            source = "env"
        elif f.name in toml and f.name != "home":
            source = "toml"
        else:
            source = "default"
        rows.append(SettingRow(f.name, display(f.name, getattr(settings, f.name)), source, env))
    return rows
