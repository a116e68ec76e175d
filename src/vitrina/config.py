"""Settings from environment variables (VITRINA_*) and an optional vitrina.toml.

Precedence: explicit arguments > environment > vitrina.toml (current directory, then
$VITRINA_HOME) > defaults, through pydantic-settings. Paths default under $VITRINA_HOME,
else the platform's user data directory, so a user's state never lands inside the source
tree. A key or variable that names no setting is reported (`unknown_settings`, a warning
from `load_settings`, a line in `vitrina config`), never silently dropped.

`Settings(...)` built directly holds the given values and the defaults only (tests, code);
`load_settings()` reads the environment and the TOML file too.
"""

from __future__ import annotations

import difflib
import logging
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from platformdirs import user_data_dir
from pydantic import Field, ValidationError, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    InitSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

log = logging.getLogger(__name__)

ENV_PREFIX = "VITRINA_"
TOML_NAME = "vitrina.toml"
# Tables of vitrina.toml that other parts read themselves (vitrina.task.limits reads [task]).
OTHER_TABLES = frozenset({"task"})
# VITRINA_* variables that are not settings: read by their own modules.
OTHER_ENV = frozenset(
    {
        "VITRINA_HOME",
        "VITRINA_DOCS_DIR",
        "VITRINA_EMBEDDINGS_DEVICE",
        "VITRINA_BENCH_WRITE",  # benchmarks/run.py: a partial run rewrites RESULTS.md
        "VITRINA_BENCH_PG_PREFIX",  # benchmarks/bench_serve.py: its PostgreSQL database name
        "VITRINA_EVAL_SUITES_DIR",
        "VITRINA_SERVE_OPTIONS",  # vitrina.server.options: serve --workers N to its workers
        "VITRINA_TELEMETRY",
        "VITRINA_TELEMETRY_FILE",
        "VITRINA_TELEMETRY_TIMEOUT_S",
        "VITRINA_TEST_PG_URL",
        "VITRINA_TEST_LLM_ENV",
        "VITRINA_TEST_LLM_REPORT",
        "VITRINA_TEST_SUPERSET_ENV",
    }
)
OTHER_ENV_PREFIXES = ("VITRINA_TASK_",)
ENDPOINT_KEYS = ("base_url", "model", "provider", "api_key")
ROLE_KEYS = ("model",)  # [team.roles.NAME]: what one role of `vitrina build` may set


class SettingsError(ValueError):
    """A setting has a value it cannot take; the message names the setting and its source."""


def vitrina_home() -> Path:
    """The directory that holds checkpoints, the demo warehouse and outputs."""
    env = os.environ.get("VITRINA_HOME")
    home = Path(env).expanduser() if env else Path(user_data_dir("vitrina", appauthor=False))
    home.mkdir(parents=True, exist_ok=True)
    return home


class Settings(BaseSettings):
    """Resolved settings for one run. Frozen: pass a changed copy (`with_`), never mutate."""

    model_config = SettingsConfigDict(
        frozen=True, extra="forbid", env_prefix=ENV_PREFIX, validate_default=False
    )

    home: Path  # where state lives: checkpoints, the demo warehouse, outputs, caches
    db_url: str | None = None  # None means the embedded demo warehouse
    catalog_dir: Path | None = None  # None means the demo catalog shipped with the package
    state_url: str | None = None  # None means SQLite under home
    segment: str = "auto"  # the dialog's customer segment: auto, or one the catalog names
    statement_timeout_s: float = 30.0  # one warehouse statement, then it is cancelled
    row_cap: int = 100_000  # rows one query returns at most (the guard adds the LIMIT)
    # bytes of one query's result (text and bytes by length, numbers 8): reading stops and
    # the query is refused as "too large" when its rows exceed it (vitrina.warehouse.budget)
    result_max_bytes: int = Field(default=50_000_000, gt=0)
    allow_privileged_warehouse: bool = (
        False  # run as a PostgreSQL role that can do more than read (logged)
    )
    # DuckDB worker threads per process; None: DuckDB's default (every core). `vitrina serve
    # --workers N` sets cores // N, so N processes do not each run a pool as large as the machine
    duckdb_threads: int | None = None
    # memory one DuckDB warehouse (the embedded demo or a file) may hold in this process; past
    # it DuckDB's joins, aggregations and sorts spill to `home`/duckdb-tmp (issue 38: a lower
    # limit lowers a large result's peak; too low and a query that cannot spill fails).
    # DuckDB gives freed memory back at once unless DUCKDB_JE_MALLOC_CONF says otherwise
    # (decision 210: a GROUP BY of very many groups may take up to 1.7x the time for it)
    duckdb_memory_limit: str = Field(default="2GB", pattern=r"^\d+(\.\d+)?\s*[KMGT]i?B$")
    max_sql_attempts: int = 3  # SQL tries per question (a failed check or run is retried)
    max_clarifications: int = 2  # clarifying questions in a row; then the best guess
    table_preview_rows: int = 20  # rows of the answer's table view (terminal, reply)
    retrieval: str = "bm25"  # bm25 | embeddings | hybrid (embeddings need vitrina[embeddings])
    llm_base_url: str | None = None  # an OpenAI-compatible endpoint; None: rules only
    llm_model: str | None = None  # the model's name at that endpoint
    llm_api_key: str | None = None  # sent as the bearer token; never logged
    llm_provider: str = "auto"  # auto (openai when a URL or model is set), openai, ollama, none
    llm_temperature: float = 0.0  # sampling temperature of every model call
    llm_timeout_s: float = 30.0  # one request, whole reply included
    llm_max_retries: int = 2  # retries of transient errors (never of a timeout)
    llm_backoff_s: float = 0.5  # the first wait before a retry (doubling)
    llm_json_mode: bool = True  # response_format json_object for typed output
    llm_max_tokens: dict[str, int] = Field(default_factory=dict)  # per task; "default" for the rest
    llm_turn_budget_s: float = 60.0  # model seconds per turn; then the turn goes on by rules
    llm_turn_budget_tokens: int = 24_000  # model tokens (prompt + reply) per turn
    llm_breaker_failures: int = 3  # timeouts in a row (across turns and processes) that open it
    llm_breaker_cooldown_s: float = 300.0  # how long an open breaker keeps requests away
    # ask the model's optional slots (topic check, ambiguity, period, answer wording, chart,
    # dialog summary) even for a question the rules read fully (decision 174)
    llm_always: bool = False
    # Named model endpoints ([llm.endpoints.NAME] base_url/model/provider/api_key): experiments
    # pick one by name; a caller never gives an address.
    llm_endpoints: dict[str, dict[str, str]] = Field(default_factory=dict)
    # A model per role of `vitrina build` ([team.roles.NAME] model = ENDPOINT): an endpoint of
    # [llm.endpoints], "default" (the [llm] model) or "rules" (none); the rules are the
    # fallback of every role and the only path of a role without a model (decision 208)
    team_roles: dict[str, dict[str, str]] = Field(default_factory=dict)
    onec_url: str | None = (
        None  # a published 1C infobase (http://server/base): read via its standard OData
    )
    onec_user: str | None = None  # the 1C OData user
    onec_password: str | None = None  # the 1C OData password; never logged
    # `vitrina build` publishes to Apache Superset too when superset_url is set
    superset_url: str | None = None
    superset_user: str | None = None
    superset_password: str | None = None
    superset_database_uri: str | None = (
        None  # the warehouse as Superset reaches it (default: db_url)
    )
    superset_database_name: str = "Vitrina warehouse"
    # notifications of `vitrina build` (delivered by code, never a model)
    notify_webhook_url: str | None = None
    notify_webhook_secret: str | None = None
    notify_telegram_token: str | None = None
    notify_telegram_chat: str | None = None
    # the board's monitor while `vitrina serve` runs: a pass every monitor_interval_s seconds
    # (0: off) raises a signal once for a review open longer than monitor_review_s, a task
    # blocked longer than monitor_blocked_s, a running build idle longer than monitor_idle_s
    monitor_interval_s: float = Field(60.0, ge=0)
    monitor_review_s: float = Field(3600.0, ge=0)
    monitor_blocked_s: float = Field(4 * 3600.0, ge=0)
    monitor_idle_s: float = Field(1800.0, ge=0)
    # byte budgets of results (decision 146): a text cell longer than result_cell_max_chars is
    # cut, with a marker, in every JSON reply (HTTP API, `ask --json`, MCP) and in a task's
    # state; one MCP tool reply is at most mcp_reply_max_bytes of JSON; everything one task's
    # steps write (tables, files, sandbox outputs, state values) is at most task_folder_max_bytes
    result_cell_max_chars: int = Field(4_000, ge=16)
    mcp_reply_max_bytes: int = Field(1_000_000, ge=10_000)
    task_folder_max_bytes: int = Field(200 << 20, ge=1 << 20)
    # options for code that builds Settings itself (retrieval, task limits); no env variable
    extra: dict[str, Any] = Field(default_factory=dict)

    @field_validator("db_url")
    @classmethod
    def _plain_path_is_a_url(cls, value: str | None) -> str | None:
        """`--db Chinook.db` or `--db dwh.duckdb` means the file's own engine URL."""
        from vitrina.warehouse.url import as_warehouse_url

        return as_warehouse_url(value) if value else value

    @field_validator("llm_endpoints")
    @classmethod
    def _endpoint_keys(cls, value: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
        for name, endpoint in value.items():
            unknown = sorted(set(endpoint) - set(ENDPOINT_KEYS))
            if unknown:
                raise ValueError(
                    f"llm.endpoints.{name}: unknown keys {unknown}; known: "
                    f"{', '.join(ENDPOINT_KEYS)}"
                )
        return value

    @field_validator("team_roles")
    @classmethod
    def _role_keys(cls, value: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
        for name, role in value.items():
            unknown = sorted(set(role) - set(ROLE_KEYS))
            if unknown:
                raise ValueError(
                    f"team.roles.{name}: unknown keys {unknown}; known: {', '.join(ROLE_KEYS)}"
                )
        return value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        *_: Any,
        **__: Any,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings,)  # built directly: the given values and the defaults only

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
        """A validated copy with `changes` (None values are ignored)."""
        values = {**self.model_dump(), **{k: v for k, v in changes.items() if v is not None}}
        return Settings(**values)


SETTING_NAMES = tuple(name for name in Settings.model_fields if name not in ("home", "extra"))


def env_name(name: str) -> str:
    return ENV_PREFIX + name.upper()


# --- vitrina.toml -------------------------------------------------------------------------


def toml_path(home: Path) -> Path | None:
    """The vitrina.toml that is read (current directory first, then home)."""
    for candidate in (Path.cwd() / TOML_NAME, home / TOML_NAME):
        if candidate.is_file():
            return candidate
    return None


@dataclass(frozen=True)
class TomlRead:
    path: Path | None
    values: dict[str, Any]  # setting name -> raw value
    unknown: tuple[str, ...]  # dotted keys that name no setting


def read_toml(home: Path) -> TomlRead:
    """Settings from vitrina.toml: top-level keys or `[vitrina]`, and `[llm]` as `llm_*`."""
    path = toml_path(home)
    if path is None:
        return TomlRead(None, {}, ())
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: invalid TOML: {exc}") from exc
    values: dict[str, Any] = {}
    unknown: list[str] = []
    top = {**{k: v for k, v in data.items() if k != "vitrina"}, **(data.get("vitrina") or {})}
    for key, value in top.items():
        if key in ("llm", "vitrina", "team") or (key in OTHER_TABLES and isinstance(value, dict)):
            continue
        (values.__setitem__(key, value) if key in SETTING_NAMES else unknown.append(key))
    llm = data.get("llm")
    if isinstance(llm, dict):
        for key, value in llm.items():
            name = f"llm_{key}"
            (
                values.__setitem__(name, value)
                if name in SETTING_NAMES
                else unknown.append(f"llm.{key}")
            )
    team = data.get("team")
    if isinstance(team, dict):  # [team.roles.NAME] model = ... (decision 208)
        for key, value in team.items():
            if key == "roles" and isinstance(value, dict):
                values["team_roles"] = value
            else:
                unknown.append(f"team.{key}")
    return TomlRead(path, values, tuple(unknown))


class _TomlSource(PydanticBaseSettingsSource):
    def __init__(self, settings_cls: type[BaseSettings], read: TomlRead) -> None:
        super().__init__(settings_cls)
        self.read = read

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return self.read.values.get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return dict(self.read.values)


def unknown_env(environ: dict[str, str] | None = None) -> tuple[str, ...]:
    """VITRINA_* variables that name no setting (and are not read elsewhere)."""
    environ = dict(os.environ) if environ is None else environ
    known = {env_name(n) for n in SETTING_NAMES} | OTHER_ENV
    return tuple(
        sorted(
            k
            for k in environ
            if k.startswith(ENV_PREFIX) and k not in known and not k.startswith(OTHER_ENV_PREFIXES)
        )
    )


def _suggest(word: str, names: list[str]) -> str:
    close = difflib.get_close_matches(word, names, n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def unknown_settings(home: Path | None = None) -> list[str]:
    """One sentence per TOML key or VITRINA_* variable that names no setting."""
    home = home or vitrina_home()
    read = read_toml(home)
    toml_names = [
        "team.roles" if n == "team_roles" else n if not n.startswith("llm_") else "llm." + n[4:]
        for n in SETTING_NAMES
    ]
    out = [
        f"{read.path}: unknown key {key!r}{_suggest(key, toml_names)}; it is ignored"
        for key in read.unknown
    ]
    env_names = [env_name(n) for n in SETTING_NAMES]
    out += [
        f"environment: unknown variable {key}{_suggest(key, env_names)}; it is ignored"
        for key in unknown_env()
    ]
    return out


# --- loading ------------------------------------------------------------------------------


class _Loaded(Settings):
    """Settings read from arguments, environment and vitrina.toml, in that order."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        *_: Any,
        **__: Any,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        assert isinstance(init_settings, InitSettingsSource)
        read = read_toml(Path(init_settings.init_kwargs["home"]))
        env = EnvSettingsSource(settings_cls, env_prefix=ENV_PREFIX, case_sensitive=False)
        return (init_settings, _EnvOnlySettings(settings_cls, env), _TomlSource(settings_cls, read))


class _EnvOnlySettings(PydanticBaseSettingsSource):
    """The environment source, without `home` (VITRINA_HOME is read by vitrina_home)."""

    def __init__(self, settings_cls: type[BaseSettings], env: EnvSettingsSource) -> None:
        super().__init__(settings_cls)
        self.env = env

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return self.env.get_field_value(field, field_name)

    def __call__(self) -> dict[str, Any]:
        return {k: v for k, v in self.env().items() if k not in ("home", "extra")}


_WARNED: set[str] = set()


def _explain(exc: ValidationError, read: TomlRead, overrides: dict[str, Any]) -> SettingsError:
    lines = []
    for err in exc.errors():
        name = str(err["loc"][0]) if err["loc"] else "?"
        if name in overrides:
            where = "argument"
        elif env_name(name) in os.environ:
            where = f"environment variable {env_name(name)}"
        elif name in read.values:
            where = f"{read.path}"
        else:
            where = "default"
        lines.append(f"{name} ({where}): {err['msg']}")
    return SettingsError("invalid settings: " + "; ".join(lines))


def load_settings(**overrides: Any) -> Settings:
    """Build settings from defaults, vitrina.toml, environment and explicit overrides.

    Unknown TOML keys and VITRINA_* variables are logged once as warnings; a value of the
    wrong type is a SettingsError naming the setting and where it came from.
    """
    home = vitrina_home()
    read = read_toml(home)
    given = {k: v for k, v in overrides.items() if v is not None}
    try:
        loaded = _Loaded(home=home, **given)
    except ValidationError as exc:
        raise _explain(exc, read, given) from None
    for problem in unknown_settings(home):
        if problem not in _WARNED:
            _WARNED.add(problem)
            log.warning("%s", problem)
    return Settings(**loaded.model_dump())
