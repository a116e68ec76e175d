"""build_chat_model / build_client from settings: none, openai (cloud or any URL), ollama."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_openai import ChatOpenAI

from vitrina.config import Settings, load_settings
from vitrina.llm import (
    LLMClient,
    LLMSettingsError,
    build_chat_model,
    build_client,
    resolve_provider,
)
from vitrina.llm.factory import NO_KEY, OLLAMA_BASE_URL
from vitrina.llm.fake import ScriptedChatModel


def settings(**values: object) -> Settings:
    return Settings(home=Path("."), **values)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "values, provider",
    [
        ({"llm_provider": "none", "llm_model": "m"}, "none"),
        ({"llm_provider": "auto"}, "none"),
        ({"llm_provider": "auto", "llm_model": "m"}, "openai"),
        ({"llm_provider": "auto", "llm_base_url": "http://h:1/v1"}, "openai"),
        ({"llm_provider": "", "llm_model": "m"}, "openai"),
        ({"llm_provider": "Ollama"}, "ollama"),
        ({"llm_provider": "openai"}, "openai"),
    ],
)
def test_resolve_provider(values: dict, provider: str) -> None:
    assert resolve_provider(settings(**values)) == provider


@pytest.mark.parametrize(
    "values",
    [
        {"llm_provider": "none"},
        {"llm_provider": "auto"},
        {"llm_provider": "openai", "llm_base_url": "http://localhost:8000/v1"},  # no model
        {"llm_provider": "ollama"},  # no model
    ],
)
def test_no_model(values: dict) -> None:
    assert build_chat_model(settings(**values)) is None
    assert build_client(settings(**values)) is None


def test_default_settings_mean_rules_only() -> None:
    assert build_chat_model(load_settings()) is None


def test_openai_compatible_endpoint() -> None:
    model = build_chat_model(
        settings(
            llm_provider="auto",
            llm_base_url="http://localhost:1234/v1/",
            llm_model="qwen2.5-7b-instruct",
            llm_temperature=0.2,
            llm_timeout_s=12,
        )
    )
    assert isinstance(model, ChatOpenAI)
    assert model.openai_api_base == "http://localhost:1234/v1"
    assert model.model_name == "qwen2.5-7b-instruct" and model.temperature == 0.2
    assert (
        model.request_timeout == 12 and model.max_retries == 0 and model.use_responses_api is False
    )
    assert model.openai_api_key is not None and model.openai_api_key.get_secret_value() == NO_KEY


def test_cloud_key_is_passed() -> None:
    model = build_chat_model(
        settings(llm_provider="openai", llm_model="gpt-4o-mini", llm_api_key="sk-test")
    )
    assert isinstance(model, ChatOpenAI) and model.openai_api_base is None
    assert model.openai_api_key is not None and model.openai_api_key.get_secret_value() == "sk-test"


@pytest.mark.parametrize(
    "base_url, expected",
    [
        (None, OLLAMA_BASE_URL),
        ("http://gpu-box:11434", "http://gpu-box:11434/v1"),
        ("http://gpu-box:11434/v1/", "http://gpu-box:11434/v1"),
    ],
)
def test_ollama(base_url: str | None, expected: str) -> None:
    model = build_chat_model(
        settings(llm_provider="ollama", llm_model="qwen2.5:7b", llm_base_url=base_url)
    )
    assert isinstance(model, ChatOpenAI) and model.openai_api_base == expected


@pytest.mark.parametrize(
    "values, message",
    [
        ({"llm_provider": "anthropic"}, "llm_provider must be one of"),
        ({"llm_provider": "openai", "llm_base_url": "localhost:8000"}, "must start with http"),
        (
            {"llm_provider": "openai", "llm_model": "m", "llm_timeout_s": 0},
            "llm_timeout_s must be positive",
        ),
        ({"llm_provider": "openai", "llm_model": "m", "llm_temperature": 5}, "llm_temperature"),
    ],
)
def test_invalid_settings(values: dict, message: str) -> None:
    with pytest.raises(LLMSettingsError, match=message):
        build_chat_model(settings(**values))


def test_settings_from_env_and_toml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "vitrina.toml").write_text(
        '[llm]\nprovider = "ollama"\nmodel = "llama3.1:8b"\ntimeout_s = 30\n'
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("VITRINA_LLM_MODEL", "qwen2.5:7b")
    model = build_chat_model(load_settings())
    assert isinstance(model, ChatOpenAI)
    assert model.model_name == "qwen2.5:7b" and model.request_timeout == 30
    assert model.openai_api_base == OLLAMA_BASE_URL


def test_build_client_takes_timeout_and_retries_from_settings() -> None:
    fake = ScriptedChatModel({})
    client = build_client(settings(llm_timeout_s=7), model=fake)
    assert isinstance(client, LLMClient) and client.model is fake
    assert client.timeout_s == 7 and client.max_retries == 2 and client.backoff_s == 0.5
