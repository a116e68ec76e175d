"""The model serves the rules (decision 174): a question the rules read fully sends no
request, and a model's "ambiguous" or other topic never overrides a certain reading."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from vitrina.ask.service import AskResult, AskService
from vitrina.config import load_settings
from vitrina.llm.client import LLMClient
from vitrina.llm.fake import ScriptedChatModel

TODAY = date(2026, 11, 30)
# read fully by the rules of the demo catalog: every word placed, one topic
READ_FULLY = [
    "Какая выручка за май 2025?",
    "Сумма платежей по картам в мае 2025",
    "Сколько клиентов в каждом регионе?",
    "Total payments by region in 2025",
]
AMBIGUOUS = json.dumps(
    {"ambiguous": True, "options": ["payments", "cards"], "question": "Платежи или карты?"},
    ensure_ascii=False,
)


def ask(demo_db: Path, model: ScriptedChatModel, question: str, **settings: object) -> AskResult:
    client = LLMClient(model, timeout_s=5, max_retries=0, sleep=lambda _s: None)
    service = AskService(
        load_settings(db_url=f"duckdb:///{demo_db}", **settings),
        today=TODAY,
        write_files=False,
        llm=client,
    )
    try:
        return service.ask(question, thread_id="slots")
    finally:
        service.close()


@pytest.mark.parametrize("question", READ_FULLY)
def test_a_fully_read_question_calls_no_model(demo_db: Path, question: str) -> None:
    # every slot would get an "ambiguous" reply; none may be asked
    model = ScriptedChatModel(every=AMBIGUOUS)
    result = ask(demo_db, model, question)
    assert result.status == "answered" and result.sql_source == "rules"
    assert model.prompts == [], [p.task for p in model.prompts]
    assert result.llm_usage["calls"] == 0 and result.model_unavailable is None
    assert result.answer and "Платежи или карты" not in result.answer


def test_the_same_answer_as_without_a_model(demo_db: Path) -> None:
    question = READ_FULLY[0]
    with_model = ask(demo_db, ScriptedChatModel(every=AMBIGUOUS), question)
    service = AskService(
        load_settings(db_url=f"duckdb:///{demo_db}"), today=TODAY, write_files=False, use_llm=False
    )
    try:
        rules = service.ask(question, thread_id="slots")
    finally:
        service.close()
    assert (with_model.status, with_model.sql, with_model.answer) == (
        rules.status,
        rules.sql,
        rules.answer,
    )


def test_a_planted_ambiguous_reply_is_ignored_on_a_certain_reading(demo_db: Path) -> None:
    """With `llm_always` the slots are asked; the model's "ambiguous" and its other topic
    are read, traced as rejected, and the rules' reading stands."""
    model = ScriptedChatModel(
        {
            "topic": ['{"topic": "cards", "confidence": 0.9}'],
            "ambiguity": [AMBIGUOUS],
            "answer": ['{"text": "Выручка за май 2025 — см. таблицу."}'],
        }
    )
    result = ask(demo_db, model, "Какая выручка за май 2025?", llm_always=True)
    assert result.status == "answered", result.clarification
    assert result.clarification is None and result.topic == "payments"
    assert len(model.prompts_for("ambiguity")) == 1  # asked, as the setting says
    rejected = [e.message for e in result.trace if e.kind == "rejected"]
    assert any("ambiguity ignored" in m for m in rejected), rejected


def test_an_ambiguous_reply_still_asks_when_the_rules_are_not_certain(demo_db: Path) -> None:
    """The slot is not switched off: a question with a word the rules cannot place keeps it,
    and the model's ambiguity there becomes a clarification."""
    model = ScriptedChatModel({"ambiguity": [AMBIGUOUS]}, every='{"span": null}')
    result = ask(demo_db, model, "Средний чек клиентов-пенсионеров в мае 2025")
    assert len(model.prompts_for("ambiguity")) == 1
    assert result.status == "clarification"
    assert [o["id"] for o in result.clarification["options"]] == ["payments", "cards"]


def test_the_setting_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VITRINA_LLM_ALWAYS", "true")
    assert load_settings().llm_always is True
    monkeypatch.delenv("VITRINA_LLM_ALWAYS")
    assert load_settings().llm_always is False
