"""POST /api/experiments takes prompt templates and model settings from a caller: template
injection (server-side code execution) and SSRF (the server posting to an address the
caller names) are refused before anything runs, with a message that says what to do."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from jinja2.exceptions import SecurityError, TemplateAssertionError, UndefinedError

from vitrina.config import Settings
from vitrina.eval.api import experiments_router
from vitrina.eval.errors import EvalError
from vitrina.eval.experiment import parse_config
from vitrina.eval.overrides import settings_for
from vitrina.eval.prompt_template import _environment, check_template, render_template

from .conftest import write_suite
from .helpers import scripted_model

CANARY = "vitrina-ssti-canary"

TEMPLATE_ATTACKS = [
    "{{ cycler.__init__.__globals__.os.popen('id').read() }}",
    "{{ cycler.__init__.__globals__.os.popen('touch %(canary)s').read() }}",
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ prompt.__class__.__base__.__subclasses__() }}",
    "{{ lipsum.__globals__['os'].popen('id').read() }}",
    "{{ joiner.__init__.__globals__ }}",
    "{{ namespace.__init__.__globals__ }}",
    "{{ self._TemplateReference__context }}",
    "{{ config.items() }}",
    "{{ request.application.__globals__ }}",
    "{{ prompt|attr('__class__') }}",
    "{{ prompt['__class__'] }}",
    "{{ prompt.upper() }}",
    "{{ 7*7 }}",
    "{% for c in [].__class__.__base__.__subclasses__() %}{{ c }}{% endfor %}",
    "{% set x = cycler %}{{ x }}",
    "{% include '/etc/passwd' %}",
    "{% import 'os' as os %}",
    "{% macro m() %}{% endmacro %}",
    "{% raw %}{{ x }}{% endraw %}{{ unknown_name }}",
    "{{ range(10**9)|list }}",
    "{{ prompt }}{{ 'a' * 100000000 }}",
]


@pytest.mark.parametrize("template", TEMPLATE_ATTACKS)
def test_template_attacks_refused_by_the_check(template: str) -> None:
    with pytest.raises(
        ValueError, match=r"line \d+: (only plain text|unknown placeholder|template syntax)"
    ):
        check_template(template % {"canary": CANARY} if "%(" in template else template)


@pytest.mark.parametrize("template", TEMPLATE_ATTACKS[:11])
def test_the_sandbox_alone_refuses_too(template: str) -> None:
    """Defence in depth: the renderer, without the check, still reaches nothing."""
    with pytest.raises((SecurityError, UndefinedError, TemplateAssertionError)):
        _environment().from_string(
            template % {"canary": CANARY} if "%(" in template else template
        ).render({"prompt": "p"})


def test_plain_placeholders_render() -> None:
    assert render_template("A {{ prompt }} B {{prompt}}\n{# note #}", prompt="Q") == "A Q B Q\n"
    assert render_template("no placeholder at all", prompt="Q") == "no placeholder at all"


@pytest.fixture
def client(tmp_path: Path, demo_db: Path) -> TestClient:
    suites = tmp_path / "suites"
    suites.mkdir()
    write_suite(suites, demo_db, name="golden")
    app = FastAPI()
    app.include_router(
        experiments_router(suites=suites, model_factory=lambda config, settings: scripted_model())
    )
    return TestClient(app)


def test_rce_template_refused_over_http(
    client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    payload = "{{ cycler.__init__.__globals__.os.popen('touch " + CANARY + "').read() }}"
    body = {
        "suite": "golden",
        "cases": ["ru_revenue_may_2025"],
        "config": {"mode": "llm", "prompts": {"sql_generation": {"template": payload}}},
    }
    response = client.post("/api/experiments", json=body)
    assert response.status_code == 400, response.text
    assert "only plain text and {{ prompt }}" in response.json()["error"]["message"]
    assert not (tmp_path / CANARY).exists()


def test_matrix_template_refused_over_http(client: TestClient) -> None:
    bad = {
        "name": "x",
        "mode": "llm",
        "prompts": {"tables": {"template": "{{ lipsum.__globals__ }}"}},
    }
    body = {
        "suite": "golden",
        "cases": ["ru_revenue_may_2025"],
        "matrix": {"configs": [{"name": "ok"}, bad]},
    }
    response = client.post("/api/experiments", json=body)
    assert response.status_code == 400 and "attribute access" in response.text


@pytest.fixture
def listener() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    sock.settimeout(0.2)
    yield sock
    sock.close()


def _connections(sock: socket.socket) -> int:
    count = 0
    for _ in range(5):
        try:
            conn, _ = sock.accept()
        except TimeoutError:
            break
        conn.close()
        count += 1
    return count


@pytest.mark.parametrize(
    "model",
    [
        {"base_url": "http://127.0.0.1:{port}/v1", "model": "m"},
        {"base_url": "http://169.254.169.254/latest/meta-data/"},
        {"provider": "ollama", "model": "m"},
        {"api_key": "sk-x", "model": "m"},
        {"url": "http://127.0.0.1:{port}"},
    ],
)
def test_model_address_refused(client: TestClient, listener: socket.socket, model: dict) -> None:
    port = listener.getsockname()[1]
    model = {k: v.format(port=port) for k, v in model.items()}
    body = {
        "suite": "golden",
        "cases": ["ru_revenue_may_2025"],
        "config": {"mode": "llm", "model": model},
    }
    response = client.post("/api/experiments", json=body)
    assert response.status_code == 400, response.text
    assert "name an endpoint configured on the server" in response.json()["error"]["message"]
    assert _connections(listener) == 0


def test_unknown_endpoint_name_refused(client: TestClient) -> None:
    body = {
        "suite": "golden",
        "cases": ["ru_revenue_may_2025"],
        "config": {"mode": "llm", "model": {"endpoint": "elsewhere"}},
    }
    response = client.post("/api/experiments", json=body)
    assert response.status_code == 400 and "'elsewhere' is not configured" in response.text


@pytest.mark.parametrize("name", ["http://x", "../a", "a b", "x" * 65])
def test_endpoint_is_a_name(name: str) -> None:
    with pytest.raises(EvalError):
        parse_config({"model": {"endpoint": name}})


def test_endpoint_chosen_by_name(tmp_path: Path) -> None:
    base = Settings(
        home=tmp_path, llm_endpoints={"gpu": {"base_url": "http://gpu:8000/v1", "model": "qwen"}}
    )
    settings = settings_for(parse_config({"model": {"endpoint": "gpu", "temperature": 0.3}}), base)
    assert (settings.llm_base_url, settings.llm_model, settings.llm_temperature) == (
        "http://gpu:8000/v1",
        "qwen",
        0.3,
    )
    with pytest.raises(ValueError, match="unknown keys"):
        Settings(home=tmp_path, llm_endpoints={"gpu": {"headers": "x"}})
