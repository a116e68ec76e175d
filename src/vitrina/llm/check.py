"""Is the configured endpoint usable? One short, classified answer for `vitrina config`.

Two tiny requests with a short timeout: GET /models (reachability, the key, what the
server lists; skipped quietly where a server lacks it) and a one-line chat completion under
the configured name. The chat request decides whether the model is served, because servers
differ: llama.cpp's server and llama-cpp-python serve the one model they loaded under any
name (their list shows a file path), LM Studio may load a model on request, while Ollama and
vLLM answer 404 for a name they do not serve. Every outcome maps to a status and a sentence
saying what to do, and that runs fall back to the rules meanwhile.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Literal

import httpx

from vitrina.config import Settings
from vitrina.llm.factory import build_chat_model, resolve_base_url, validate
from vitrina.llm.prompts import render
from vitrina.llm.transport import call_with_deadline, describe, status_code, transport_errors

Status = Literal["ok", "off", "down", "unauthorized", "model_not_found", "error"]
OPENAI_BASE_URL = "https://api.openai.com/v1"
FALLBACK = "runs fall back to the rules"
# GET /models "owned_by" -> the server, for the messages
SERVERS = {
    "llamacpp": "llama.cpp server",
    "me": "llama-cpp-python server",
    "library": "Ollama",
    "ollama": "Ollama",
    "vllm": "vLLM",
    "organization_owner": "LM Studio",
    "system": "LM Studio",
}


@dataclass(frozen=True)
class EndpointCheck:
    """The verdict on one endpoint."""

    status: Status
    message: str
    endpoint: str | None = None
    latency_ms: float | None = None
    models: tuple[str, ...] = field(default=())
    server: str | None = None  # what the model list says the server is, when it says

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def _served(model: str, models: tuple[str, ...]) -> bool:
    """Ollama lists 'qwen2.5:7b' and 'llama3:latest'; a bare 'llama3' means ':latest'."""
    return model in models or f"{model}:latest" in models


def list_models(
    base_url: str, api_key: str | None, timeout_s: float
) -> tuple[tuple[str, ...], str | None]:
    """Model ids from GET /models and the server they name; raises httpx errors."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    response = httpx.get(f"{base_url}/models", headers=headers, timeout=timeout_s)
    response.raise_for_status()
    data = [item for item in response.json().get("data") or [] if isinstance(item, dict)]
    owners = {str(item.get("owned_by") or "") for item in data}
    server = next((SERVERS[o] for o in owners if o in SERVERS), None)
    return tuple(str(item["id"]) for item in data if item.get("id")), server


def _names_model(exc: BaseException, model: str) -> bool:
    """A 4xx whose message is about the model (vLLM: 'does not exist'; Ollama: 'not found')."""
    text = str(exc).lower()
    return (
        status_code(exc) in (400, 404, 422)
        and ("model" in text or model.lower() in text)
        and any(
            word in text
            for word in (
                "not found",
                "does not exist",
                "not exist",
                "unknown",
                "no such",
                "not loaded",
                "invalid model",
                "model_not_found",
            )
        )
    )


def check_endpoint(settings: Settings, *, timeout_s: float = 5.0) -> EndpointCheck:
    """Classify the endpoint as ok / off / down / unauthorized / model_not_found / error.

    LLMSettingsError propagates: invalid settings are the caller's to report.
    """
    provider = validate(settings)
    if provider == "none":
        return EndpointCheck("off", f"no model configured (llm_provider none): {FALLBACK}")
    endpoint = resolve_base_url(settings, provider) or OPENAI_BASE_URL
    api_key = settings.llm_api_key or (
        None if settings.llm_base_url or provider == "ollama" else os.environ.get("OPENAI_API_KEY")
    )
    model = build_chat_model(settings, timeout=timeout_s)  # settings errors before any request
    models: tuple[str, ...] = ()
    server: str | None = None
    try:
        models, server = list_models(endpoint, api_key, timeout_s)
    except httpx.HTTPStatusError as exc:
        if exc.response.status_code in (401, 403):
            return _unauthorized(endpoint, exc.response.status_code)
        # 404/405/5xx: some servers have no /models; the chat request decides
    except httpx.TransportError as exc:
        return _down(endpoint, describe(exc))
    except ValueError:
        pass  # /models answered something that is not JSON: the chat request decides
    if not settings.llm_model:
        listed = f"; it serves: {', '.join(models)}" if models else ""
        return EndpointCheck(
            "off",
            f"no model set (llm_model){listed}: {FALLBACK}",
            endpoint,
            models=models,
            server=server,
        )

    assert model is not None  # provider and model are set
    name = settings.llm_model
    start = time.perf_counter()
    try:
        call_with_deadline(lambda: model.invoke(render("ping"), max_tokens=16), timeout_s + 1)
    except Exception as exc:
        code = status_code(exc)
        if code in (401, 403):
            return _unauthorized(endpoint, code)
        if code == 404 or _names_model(exc, name):
            return _not_found(endpoint, name, models, provider, server)
        if isinstance(exc, transport_errors()):
            return _down(endpoint, describe(exc))
        return EndpointCheck(
            "error",
            f"{endpoint} failed the test request: {describe(exc)}; {FALLBACK}",
            endpoint,
            models=models,
            server=server,
        )
    latency = round((time.perf_counter() - start) * 1000, 1)
    message = f"OK: {name} at {endpoint} answered in {latency:.0f} ms"
    if server:
        message += f" ({server})"
    if models and not _served(name, models):
        message += (
            f"; the server does not list {name!r} but answers under any name: it serves "
            f"{', '.join(models[:3])}"
        )
    return EndpointCheck("ok", message, endpoint, latency, models, server)


def _down(endpoint: str, error: str) -> EndpointCheck:
    return EndpointCheck(
        "down", f"the LLM endpoint {endpoint} is not reachable ({error}); {FALLBACK}", endpoint
    )


def _unauthorized(endpoint: str, code: int) -> EndpointCheck:
    return EndpointCheck(
        "unauthorized",
        f"{endpoint} rejected the API key (HTTP {code}): set "
        f"VITRINA_LLM_API_KEY or [llm] api_key; {FALLBACK}",
        endpoint,
    )


def _not_found(
    endpoint: str, model: str, models: tuple[str, ...], provider: str, server: str | None
) -> EndpointCheck:
    hint = f" (available: {', '.join(models[:10])})" if models else ""
    ollama = provider == "ollama" or server == "Ollama"
    pull = f"; run `ollama pull {model}`" if ollama else ""
    return EndpointCheck(
        "model_not_found",
        f"model {model!r} is not served by {endpoint}{hint}{pull}; {FALLBACK}",
        endpoint,
        models=models,
        server=server,
    )
