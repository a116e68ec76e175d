"""When the model is configured but unavailable, the answer says that the rules answered:
in the result (AskResult.model_unavailable and the answer text), the CLI and the API JSON.
The model is ScriptedChatModel failing every request, or a real endpoint that refuses."""

from __future__ import annotations

import json
import socket
from datetime import date
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from vitrina.ask.service import AskService, model_notice
from vitrina.cli import app as cli_app
from vitrina.config import load_settings
from vitrina.llm import LLMClient
from vitrina.llm.fake import ScriptedChatModel
from vitrina.query.messages import text
from vitrina.server.app import create_app
from vitrina.server.options import ServeOptions

from .helpers import ask, new_thread, new_token

TODAY = date(2026, 11, 30)  # the suite's "today" (tests/conftest.py)
RU = "Сумма платежей по картам в мае 2025"
EN = "Payment amount by card type in May 2025"


def failing_service(demo_db: Path, error: BaseException) -> AskService:
    client = LLMClient(
        ScriptedChatModel(every=error),
        timeout_s=5,
        max_retries=0,
        backoff_s=0,
        sleep=lambda _s: None,
    )
    # llm_always: the questions below are read fully by the rules, which alone ask no model
    settings = load_settings(db_url=f"duckdb:///{demo_db}", llm_always=True)
    return AskService(settings, today=TODAY, write_files=False, llm=client)


@pytest.mark.parametrize(("question", "lang"), [(RU, "ru"), (EN, "en")])
def test_outage_is_said_in_the_language_of_the_question(
    demo_db: Path, question: str, lang: str
) -> None:
    service = failing_service(demo_db, TimeoutError("model host is down"))
    try:
        result = service.ask(question)
    finally:
        service.close()
    assert result.status == "answered" and result.sql_source == "rules" and result.rows
    notice = model_notice("timeout", True, lang)
    assert notice.startswith(text("model_not_used", lang, why=text("model_why_timeout", lang)))
    assert result.model_unavailable is not None
    assert result.model_unavailable["notice"] == notice
    assert "TimeoutError" in result.model_unavailable["reason"]
    assert result.answer and result.answer.endswith(notice)
    assert result.answer.strip() != notice, "the answer itself is still there"


def test_a_working_model_or_no_model_says_nothing(demo_db: Path) -> None:
    service = AskService(
        load_settings(db_url=f"duckdb:///{demo_db}"), today=TODAY, write_files=False
    )
    try:
        result = service.ask(RU)
    finally:
        service.close()
    assert result.status == "answered" and result.model_unavailable is None
    assert text("model_not_used", "ru", why="").split(":")[0] not in (result.answer or "")


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # closed when the block ends: connections are refused


def test_cli_says_it_with_a_dead_endpoint(demo_db: Path) -> None:
    env = {
        "VITRINA_LLM_BASE_URL": f"http://127.0.0.1:{_closed_port()}/v1",
        "VITRINA_LLM_MODEL": "m",
        "VITRINA_LLM_MAX_RETRIES": "0",
        "VITRINA_LLM_ALWAYS": "true",  # RU is read fully by the rules: no model otherwise
    }
    runner = CliRunner()
    plain = runner.invoke(cli_app, ["ask", RU, "--db", f"duckdb:///{demo_db}"], env=env)
    assert plain.exit_code == 0, plain.output
    assert "Модель не использована: сервер модели недоступен" in " ".join(plain.output.split())
    assert "Traceback" not in plain.output
    as_json = runner.invoke(cli_app, ["ask", RU, "--db", f"duckdb:///{demo_db}", "--json"], env=env)
    data = json.loads(as_json.output)
    assert data["status"] == "answered"
    assert data["model_unavailable"]["notice"] == model_notice("unreachable", True, "ru")


def test_api_json_carries_it(demo_db: Path) -> None:
    service = failing_service(demo_db, httpx.ConnectError("connection refused"))
    app = create_app(service.settings, ServeOptions(), service=service)
    with TestClient(app) as client:
        headers = new_token(client)
        thread = new_thread(client, headers)
        events = ask(client, headers, thread, EN)
        reloaded = client.get(f"/api/threads/{thread}", headers=headers).json()["turns"]
    result = next(e["result"] for e in events if e["type"] == "result")
    assert result["status"] == "answered"
    assert result["model_unavailable"]["notice"] == model_notice("unreachable", True, "en")
    assert result["answer"].endswith(result["model_unavailable"]["notice"])
    # a reload shows the same turn: the note and the follow-ups are not lost
    (turn,) = reloaded
    assert turn["model_unavailable"] == result["model_unavailable"]
    assert turn["answer"] == result["answer"]
    assert turn["suggestions"] == result["suggestions"] and turn["suggestions"]
