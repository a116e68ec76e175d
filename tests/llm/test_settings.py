"""Settings through pydantic-settings: precedence, unknown keys reported, errors that name the
setting and its source, every llm_* setting honoured by the client; mask_url."""

from __future__ import annotations

import random
import string
from pathlib import Path

import pytest

from vitrina.config import Settings, SettingsError, load_settings, unknown_settings
from vitrina.llm import build_client
from vitrina.llm.sources import mask_url


def write_toml(home: Path, text: str) -> None:
    (home / "vitrina.toml").write_text(text, encoding="utf-8")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VITRINA_HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_precedence_argument_env_toml_default(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_toml(
        home,
        "row_cap = 5\nsegment = 'b2c'\n[llm]\nmodel = 'from-toml'\ntimeout_s = 7\n"
        "[llm.max_tokens]\nsql_generation = 300\n",
    )
    monkeypatch.setenv("VITRINA_LLM_MODEL", "from-env")
    monkeypatch.setenv("VITRINA_LLM_JSON_MODE", "false")
    settings = load_settings(segment="b2b")
    assert (settings.segment, settings.llm_model, settings.row_cap) == ("b2b", "from-env", 5)
    assert settings.llm_timeout_s == 7 and settings.llm_json_mode is False
    assert settings.llm_max_tokens == {"sql_generation": 300} and settings.max_sql_attempts == 3


def test_unknown_toml_keys_and_env_variables_are_reported(
    home: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    write_toml(home, "row_capp = 5\n[llm]\njson_mod = false\n[task]\nmax_plan_steps = 3\n")
    monkeypatch.setenv("VITRINA_LLM_MODLE", "x")
    monkeypatch.setenv("VITRINA_TASK_MAX_PLAN_STEPS", "4")  # read by the task job itself
    problems = unknown_settings(home)
    assert len(problems) == 3, problems
    assert any("'row_capp'" in p and "row_cap" in p for p in problems)
    assert any("'llm.json_mod'" in p and "llm.json_mode" in p for p in problems)
    assert any("VITRINA_LLM_MODLE" in p and "VITRINA_LLM_MODEL" in p for p in problems)
    with caplog.at_level("WARNING"):
        assert load_settings().llm_json_mode is True, "the misspelt key changed nothing"
    assert "json_mod" in caplog.text


@pytest.mark.parametrize(
    "where, expected",
    [
        ("env", "row_cap (environment variable VITRINA_ROW_CAP)"),
        ("toml", "row_cap ("),
    ],
)
def test_a_bad_value_names_the_setting_and_its_source(
    home: Path, monkeypatch: pytest.MonkeyPatch, where: str, expected: str
) -> None:
    if where == "env":
        monkeypatch.setenv("VITRINA_ROW_CAP", "many")
    else:
        write_toml(home, "row_cap = 'many'\n")
    with pytest.raises(SettingsError) as info:
        load_settings()
    assert expected in str(info.value)
    if where == "toml":
        assert "vitrina.toml" in str(info.value)


def test_settings_built_directly_read_no_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("VITRINA_LLM_MODEL", "from-env")
    assert Settings(home=tmp_path).llm_model is None, "tests and code get exactly what they pass"
    assert Settings(home=tmp_path).with_(row_cap=9, llm_model=None).row_cap == 9


def test_every_llm_setting_reaches_the_client(tmp_path: Path) -> None:
    settings = Settings(
        home=tmp_path,
        llm_base_url="http://127.0.0.1:9/v1",
        llm_model="m",
        llm_json_mode=False,
        llm_max_tokens={"topic": 40},
        llm_turn_budget_s=12,
        llm_turn_budget_tokens=999,
        llm_max_retries=4,
        llm_backoff_s=0.1,
        llm_breaker_failures=7,
        llm_breaker_cooldown_s=9,
    )
    client = build_client(settings)
    assert client is not None and client.json_mode is False and client.max_tokens == {"topic": 40}
    assert (client.turn_seconds, client.turn_tokens, client.max_retries, client.backoff_s) == (
        12,
        999,
        4,
        0.1,
    )
    assert client.breaker is not None and (client.breaker.threshold, client.breaker.cooldown_s) == (
        7,
        9,
    )
    assert client.breaker.path == tmp_path / "llm_state.sqlite"


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://bi:{pw}@db:5432/dwh",
        "postgresql+psycopg://bi:{pw}@db/dwh?sslmode=require",
        "mysql://root:{pw}@127.0.0.1/x",
        "clickhouse://u:{pw}@h:8123/db",
        "bi:{pw}@db/dwh",
        "://bi:{pw}@",
        "postgresql://bi@db/dwh?password={pw}",
        "host=db user=bi password={pw} dbname=x",
        "trino://u:{pw}@h:443/catalog/schema",
        "odd scheme://u:{pw}@h",
    ],
)
def test_mask_url_never_shows_a_password(url: str) -> None:
    rng = random.Random(url)
    alphabet = string.ascii_letters + string.digits + "!$%^*()-_=+[]{}~:;,."
    for _ in range(200):
        password = "".join(rng.choice(alphabet) for _ in range(rng.randint(4, 24)))
        masked = mask_url(url.format(pw=password))
        assert password not in masked, (url, password, masked)
        assert "***" in masked
