"""`vitrina config`: settings with their sources, the API key masked, the endpoint checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from vitrina.llm.commands import register

from .openai_server import OpenAIServer, free_port

runner = CliRunner()
KEY = "sk-secret-0123456789abcd"


def cli() -> typer.Typer:
    """The command on its own app, so these tests do not depend on the other jobs' imports."""
    app = typer.Typer()
    register(app)

    @app.command("noop", hidden=True)
    def noop() -> None:  # a second command keeps `config` a subcommand
        pass

    return app


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = runner.invoke(cli(), ["config", *args], env={"COLUMNS": "250", **(env or {})})
    return result.exit_code, result.output


def run_json(*args: str, env: dict[str, str] | None = None) -> tuple[int, dict]:
    code, out = run(*args, "--json", env=env)
    return code, json.loads(out)


def aimed_at(server_url: str, **more: str) -> dict[str, str]:
    return {
        "VITRINA_LLM_PROVIDER": "openai",
        "VITRINA_LLM_BASE_URL": server_url,
        "VITRINA_LLM_MODEL": "test-model",
        **more,
    }


def test_up_prints_ok_with_latency_and_masks_the_key(server: OpenAIServer) -> None:
    server.state.api_key = KEY
    code, out = run(env=aimed_at(server.base_url, VITRINA_LLM_API_KEY=KEY))
    assert code == 0, out
    assert "OK: test-model at" in out and " ms" in out
    assert KEY not in out and "sk-…abcd" in out
    assert "llm_api_key" in out and "VITRINA_LLM_API_KEY" in out
    chat = server.state.chat_requests()[0].body
    assert chat is not None and chat.get("max_completion_tokens", chat.get("max_tokens")) == 16


def test_down_says_runs_fall_back_to_rules() -> None:
    code, out = run(env=aimed_at(f"http://127.0.0.1:{free_port()}/v1"))
    assert code == 0
    assert "is not reachable" in out and "runs fall back to the rules" in out


def test_unauthorized(server: OpenAIServer) -> None:
    server.state.api_key = "sk-other-key-000000"
    code, data = run_json(env=aimed_at(server.base_url, VITRINA_LLM_API_KEY=KEY))
    assert code == 0 and data["check"]["status"] == "unauthorized"
    assert "rejected the API key (HTTP 401)" in data["check"]["message"]


def test_model_not_found_lists_the_served_models(server: OpenAIServer) -> None:
    server.state.models = ["qwen2.5:7b", "llama3.1:8b"]
    code, data = run_json("--model", "mistral", env=aimed_at(server.base_url))
    assert code == 0 and data["check"]["status"] == "model_not_found"
    assert (
        "'mistral' is not served" in data["check"]["message"]
        and "qwen2.5:7b" in data["check"]["message"]
    )
    assert len(server.state.chat_requests()) == 1, "the chat request decides (vLLM, Ollama: 404)"


def test_single_model_server_answers_under_any_name(server: OpenAIServer) -> None:
    """llama.cpp and llama-cpp-python list a GGUF path and answer whatever name is asked."""
    server.state.models = ["/models/qwen2.5-7b-instruct-q4_k_m.gguf"]
    server.state.single_model = True
    code, data = run_json("--model", "qwen2.5-7b-instruct", env=aimed_at(server.base_url))
    assert code == 0 and data["check"]["status"] == "ok", data["check"]
    assert "answers under any name" in data["check"]["message"]
    assert "qwen2.5-7b-instruct-q4_k_m.gguf" in data["check"]["message"]


def test_shows_every_setting_with_its_source_and_the_demo_warehouse(tmp_path: Path) -> None:
    (tmp_path / "vitrina.toml").write_text(
        "[llm]\njson_mode = false\njson_mod = true\n", encoding="utf-8"
    )
    code, data = run_json(
        "--no-check",
        env={
            "VITRINA_HOME": str(tmp_path),
            "VITRINA_LLM_TURN_BUDGET_S": "9",
            "VITRINA_LLM_MODLE": "x",
        },
    )
    assert code == 0
    rows = {r["name"]: r for r in data["settings"]}
    assert rows["llm_json_mode"]["value"] == "False" and rows["llm_json_mode"]["source"] == "toml"
    assert rows["llm_turn_budget_s"] == {
        "name": "llm_turn_budget_s",
        "value": "9.0",
        "source": "env",
        "env": "VITRINA_LLM_TURN_BUDGET_S",
    }
    assert str(tmp_path / "demo" / "warehouse.duckdb") in data["paths"]["demo warehouse"]
    assert any("'llm.json_mod'" in w and "llm.json_mode" in w for w in data["unknown"])
    assert any("VITRINA_LLM_MODLE" in w and "VITRINA_LLM_MODEL" in w for w in data["unknown"])


def test_latest_tag_passes_the_model_list_and_chat_decides(server: OpenAIServer) -> None:
    server.state.models = ["llama3:latest"]
    code, data = run_json("--model", "llama3", env=aimed_at(server.base_url))
    # the chat request names "llama3", which this server does not know: a 404 from chat
    assert code == 0 and data["check"]["status"] == "model_not_found"
    assert len(server.state.chat_requests()) == 1


def test_server_without_models_endpoint(server: OpenAIServer) -> None:
    server.state.models_endpoint = False
    code, data = run_json(env=aimed_at(server.base_url))
    assert code == 0 and data["check"]["status"] == "ok" and data["check"]["latency_ms"] > 0


def test_server_error_on_check(server: OpenAIServer) -> None:
    server.state.default_mode = "500"
    code, data = run_json(env=aimed_at(server.base_url))
    assert (
        code == 0 and data["check"]["status"] == "error" and "HTTP 500" in data["check"]["message"]
    )


def test_slow_endpoint_is_reported_within_the_timeout(server: OpenAIServer) -> None:
    server.state.default_mode = "slow"
    code, data = run_json("--timeout", "0.3", env=aimed_at(server.base_url))
    assert code == 0 and data["check"]["status"] == "down" and "Timeout" in data["check"]["message"]


def test_no_model_configured() -> None:
    code, out = run()
    assert code == 0 and "runs fall back to the rules" in out


def test_sources(server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "vitrina.toml").write_text('[llm]\nmodel = "test-model"\ntemperature = 0.3\n')
    code, data = run_json(
        "--base-url", server.base_url, "--no-check", env={"VITRINA_LLM_TIMEOUT_S": "9"}
    )
    assert code == 0 and data["check"] is None
    rows = {r["name"]: r for r in data["settings"]}
    assert rows["llm_model"]["source"] == "toml" and rows["llm_temperature"]["value"] == "0.3"
    assert rows["llm_base_url"]["source"] == "argument"
    assert rows["llm_timeout_s"]["source"] == "env" and rows["llm_timeout_s"]["value"] == "9.0"
    assert rows["row_cap"]["source"] == "default"
    assert data["toml"] == str(tmp_path / "vitrina.toml")


def test_db_password_is_hidden() -> None:
    code, data = run_json(
        "--no-check", env={"VITRINA_DB_URL": "postgresql://bi:hunter2@db:5432/dwh"}
    )
    assert code == 0
    rows = {r["name"]: r for r in data["settings"]}
    assert "hunter2" not in rows["db_url"]["value"] and rows["db_url"]["value"].startswith(
        "postgresql://bi:"
    )


@pytest.mark.parametrize(
    "args, env, message",
    [
        (["--provider", "anthropic"], {}, "llm_provider must be one of"),
        ([], {"VITRINA_LLM_TIMEOUT_S": "soon"}, "invalid settings"),
        (
            [],
            {"VITRINA_LLM_PROVIDER": "openai", "VITRINA_LLM_BASE_URL": "localhost:11434"},
            "must start with http",
        ),
        (
            ["--provider", "openai", "--model", "gpt-4o-mini"],
            {"OPENAI_API_KEY": ""},
            "Missing credentials",
        ),
    ],
)
def test_invalid_settings_exit_2(args: list[str], env: dict[str, str], message: str) -> None:
    result = runner.invoke(cli(), ["config", *args], env={"COLUMNS": "250", **env})
    assert result.exit_code == 2
    assert message in result.output + (result.stderr if result.stderr_bytes is not None else "")
