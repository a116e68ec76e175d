"""Build the chat model (and a ready LLMClient) from settings; None means rules only.

Every provider speaks the OpenAI chat-completions protocol through ChatOpenAI: cloud
OpenAI, Ollama (its /v1 endpoint), LM Studio, vLLM, llama.cpp's server, gateways. One code
path, one wire protocol to test. The SDK's own retries are off (max_retries=0): LLMClient
retries (tenacity), so that every attempt is counted and bounded in one place, and a timeout
is never retried (the SDK retries timeouts; see docs/decisions/060-llm-retries-and-budgets.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from collections.abc import Callable

    from langchain_core.language_models import BaseChatModel

    from vitrina.config import Settings
    from vitrina.llm.accounting import LLMCall
    from vitrina.llm.client import LLMClient

Provider = Literal["openai", "ollama", "none"]
PROVIDERS = ("auto", "openai", "ollama", "none")
OLLAMA_BASE_URL = "http://localhost:11434/v1"
NO_KEY = "not-needed"  # local servers ignore the key; the OpenAI SDK insists on one

OPENAI_BASE_URL = "https://api.openai.com/v1"
BREAKER_FILE = "llm_state.sqlite"


class LLMSettingsError(ValueError):
    """The LLM settings cannot work (unknown provider, bad URL, non-positive timeout)."""


def resolve_provider(settings: Settings) -> Provider:
    """The provider to use: explicit, or inferred ("auto"/empty) from base URL or model.

    >>> from pathlib import Path
    >>> from vitrina.config import Settings
    >>> resolve_provider(Settings(home=Path("."), llm_provider="auto", llm_model="qwen2.5:7b"))
    'openai'
    >>> resolve_provider(Settings(home=Path("."), llm_provider="auto"))
    'none'
    """
    raw = (settings.llm_provider or "auto").strip().lower()
    if raw not in PROVIDERS:
        raise LLMSettingsError(
            f"llm_provider must be one of {', '.join(PROVIDERS)}; got {settings.llm_provider!r}"
        )
    if raw == "auto":
        return "openai" if settings.llm_base_url or settings.llm_model else "none"
    return raw  # type: ignore[return-value]


def resolve_base_url(settings: Settings, provider: Provider) -> str | None:
    """The endpoint root (…/v1); Ollama gets its default and the /v1 suffix it needs."""
    url = (settings.llm_base_url or "").strip().rstrip("/") or None
    if provider == "ollama":
        url = url or OLLAMA_BASE_URL
        if not url.endswith("/v1"):
            url += "/v1"
    if url is not None and not url.startswith(("http://", "https://")):
        raise LLMSettingsError(f"llm_base_url must start with http:// or https://; got {url!r}")
    return url


def validate(settings: Settings) -> Provider:
    """Check the LLM settings; return the provider. LLMSettingsError says what is wrong."""
    provider = resolve_provider(settings)
    resolve_base_url(settings, provider)
    if settings.llm_timeout_s <= 0:
        raise LLMSettingsError(f"llm_timeout_s must be positive; got {settings.llm_timeout_s}")
    if not 0 <= settings.llm_temperature <= 2:
        raise LLMSettingsError(
            f"llm_temperature must be between 0 and 2; got {settings.llm_temperature}"
        )
    if settings.llm_max_retries < 0:
        raise LLMSettingsError("llm_max_retries must not be negative")
    if settings.llm_turn_budget_s <= 0 or settings.llm_turn_budget_tokens <= 0:
        raise LLMSettingsError("llm_turn_budget_s and llm_turn_budget_tokens must be positive")
    bad = {k: v for k, v in settings.llm_max_tokens.items() if v < 16}
    if bad:
        raise LLMSettingsError(f"llm_max_tokens must be at least 16 per task; got {bad}")
    return provider


def build_chat_model(settings: Settings, **overrides: Any) -> BaseChatModel | None:
    """A ChatOpenAI for the configured endpoint, or None (provider none, or no model set).

    `overrides` go to ChatOpenAI as they are (e.g. a shorter `timeout` for a health check).
    """
    provider = validate(settings)
    if provider == "none" or not settings.llm_model:
        return None
    base_url = resolve_base_url(settings, provider)
    api_key = settings.llm_api_key or (NO_KEY if base_url else None)
    params: dict[str, Any] = {
        "model": settings.llm_model,
        "base_url": base_url,
        "temperature": settings.llm_temperature,
        "timeout": settings.llm_timeout_s,
        "max_retries": 0,
        "use_responses_api": False,  # chat completions: the protocol every local server speaks
        "local_server": base_url is not None and not base_url.startswith(OPENAI_BASE_URL),
        "stream_usage": True,  # token usage in the last chunk where the server sends it
    }
    if api_key is not None:  # None: the SDK reads OPENAI_API_KEY for the cloud
        params["api_key"] = api_key
    params.update(overrides)
    try:
        from vitrina.llm.compat import CompatibleChatOpenAI

        return CompatibleChatOpenAI(**params)
    except Exception as exc:  # e.g. the cloud endpoint with no key anywhere
        raise LLMSettingsError(f"cannot build the chat model: {exc}") from exc


def build_client(
    settings: Settings,
    *,
    tracer: Callable[[LLMCall], None] | None = None,
    model: BaseChatModel | None = None,
) -> LLMClient | None:
    """An LLMClient over `model` (default: the configured one), or None when there is none.

    Every `llm_*` setting is honoured: retries, backoff, JSON mode, per-task max_tokens, the
    turn budget and the circuit breaker (its state in `$VITRINA_HOME/llm_state.sqlite`).
    """
    from vitrina.llm.breaker import Breaker
    from vitrina.llm.client import LLMClient

    model = model if model is not None else build_chat_model(settings)
    if model is None:
        return None
    return LLMClient(
        model,
        timeout_s=settings.llm_timeout_s,
        max_retries=settings.llm_max_retries,
        backoff_s=settings.llm_backoff_s,
        json_mode=settings.llm_json_mode,
        max_tokens=settings.llm_max_tokens,
        turn_seconds=settings.llm_turn_budget_s,
        turn_tokens=settings.llm_turn_budget_tokens,
        breaker=Breaker(
            settings.home / BREAKER_FILE,
            endpoint_key(settings),
            failures=settings.llm_breaker_failures,
            cooldown_s=settings.llm_breaker_cooldown_s,
        ),
        tracer=tracer,
    )


def endpoint_key(settings: Settings) -> str:
    """The breaker's key: the endpoint, whatever model it serves (a hung server hangs all)."""
    provider = resolve_provider(settings)
    return resolve_base_url(settings, provider) or OPENAI_BASE_URL


def endpoint_settings(settings: Settings, name: str) -> Settings:
    """The settings with the [llm] endpoint replaced by ``[llm.endpoints.NAME]`` (its address,
    model, provider and key; timeouts, retries and budgets stay the [llm] ones).

    A name that is not configured is an LLMSettingsError naming the ones that are.
    """
    known = settings.llm_endpoints
    if name not in known:
        names = ", ".join(sorted(known)) or "none configured"
        raise LLMSettingsError(
            f"model endpoint {name!r} is not configured ([llm.endpoints.{name}] in "
            f"vitrina.toml); known: {names}"
        )
    endpoint = known[name]
    changes = {f"llm_{k}": endpoint.get(k) for k in ("base_url", "model", "provider", "api_key")}
    values = {**settings.model_dump(), **changes}
    values["llm_provider"] = values["llm_provider"] or "auto"
    from vitrina.config import Settings as _Settings

    return _Settings(**values)
