"""Settings from environment variables (VITRINA_*) and an optional vitrina.toml.

Precedence: explicit arguments > environment > vitrina.toml (current directory, then
$VITRINA_HOME) > defaults. Paths default under $VITRINA_HOME, else the platform's user
data directory, so a user's state never lands inside the source tree.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from platformdirs import user_data_dir


def vitrina_home() -> Path:
    """The directory that holds checkpoints, the demo warehouse and outputs."""
    env = os.environ.get("VITRINA_HOME")
    home = Path(env).expanduser() if env else Path(user_data_dir("vitrina", appauthor=False))
    home.mkdir(parents=True, exist_ok=True)
    return home


@dataclass(frozen=True)
class Settings:
    """Resolved settings for one run. Frozen: pass a changed copy, never mutate."""

    home: Path
    db_url: str | None = None  # None means the embedded demo warehouse
    catalog_dir: Path | None = None  # None means the demo catalog shipped with the package
    state_url: str | None = None  # None means SQLite under home
    segment: str = "auto"
    statement_timeout_s: float = 30.0
    row_cap: int = 100_000
    max_sql_attempts: int = 3
    max_clarifications: int = 2
    table_preview_rows: int = 20
    retrieval: str = "bm25"  # bm25 | embeddings | hybrid (embeddings need vitrina[embeddings])
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_api_key: str | None = None
    llm_provider: str = "auto"  # auto (openai when a URL or model is set), openai, ollama, none
    llm_temperature: float = 0.0
    llm_timeout_s: float = 60.0
    llm_max_retries: int = 2
    llm_backoff_s: float = 0.5
    onec_url: str | None = None  # a published 1C infobase (http://server/base): read via its standard OData
    onec_user: str | None = None
    onec_password: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def demo_db_path(self) -> Path:
        return self.home / "demo" / "warehouse.duckdb"

    @property
    def state_path(self) -> Path:
        return self.home / "state.sqlite"

    @property
    def outputs_dir(self) -> Path:
        path = self.home / "outputs"
        path.mkdir(parents=True, exist_ok=True)
        return path

    @property
    def warehouse_url(self) -> str:
        return self.db_url or f"duckdb:///{self.demo_db_path}"

    def with_(self, **changes: Any) -> Settings:
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


_ENV_KEYS = {f.name: "VITRINA_" + f.name.upper() for f in fields(Settings) if f.name != "extra"}


def _coerce(name: str, raw: Any) -> Any:
    kind = {f.name: f.type for f in fields(Settings)}[name]
    if raw is None:
        return None
    if "Path" in str(kind):
        return Path(str(raw)).expanduser()
    if kind in ("float", float):
        return float(raw)
    if kind in ("int", int):
        return int(raw)
    return str(raw)


def _read_toml(home: Path) -> dict[str, Any]:
    for candidate in (Path.cwd() / "vitrina.toml", home / "vitrina.toml"):
        if candidate.is_file():
            with candidate.open("rb") as fh:
                data = tomllib.load(fh)
            flat = dict(data.get("vitrina", data))
            if isinstance(data.get("llm"), dict):
                flat.update({f"llm_{k}": v for k, v in data["llm"].items()})
            return flat
    return {}


def load_settings(**overrides: Any) -> Settings:
    """Build settings from defaults, vitrina.toml, environment and explicit overrides."""
    home = vitrina_home()
    values: dict[str, Any] = {}
    for key, value in _read_toml(home).items():
        if key in _ENV_KEYS and key != "home":
            values[key] = _coerce(key, value)
    for key, env in _ENV_KEYS.items():
        if key != "home" and env in os.environ:
            values[key] = _coerce(key, os.environ[env])
    for key, value in overrides.items():
        if value is not None:
            values[key] = value
    return Settings(home=home, **values)
