"""The SQL prompt shows the columns the question's words point to, of every role
(attributes included: birth_year, payment_ts), and still prunes the rest (issue 36 item 5)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from vitrina.ask.service import AskService
from vitrina.catalog import load_catalog
from vitrina.catalog.context_text import build_sql_context
from vitrina.config import load_settings
from vitrina.llm.accounting import estimate_tokens
from vitrina.llm.client import LLMClient
from vitrina.llm.fake import ScriptedChatModel

TOKEN_BUDGET = 3000  # benchmarks/bench_retrieval.py: a prompt's context stays under it
CLIENT, PAYMENT = ["dwh.dim_client"], ["dwh.fact_payment"]


@pytest.fixture(scope="module")
def demo():
    return load_catalog(load_settings().catalog_dir)


def pruned(demo, question: str, tables: list[str]) -> str:
    return build_sql_context(question, demo, tables, period_label=None, topic=None, full=False)


@pytest.mark.parametrize(
    ("question", "tables", "column"),
    [
        ("Сколько клиентов старше 60 лет?", CLIENT, "birth_year"),
        ("Clients younger than 30", CLIENT, "birth_year"),
        ("Сумма платежей ночью, с 0 до 6 часов", PAYMENT, "payment_ts"),
        ("Payments by hour of day", PAYMENT, "payment_ts"),
        ("Платежи по времени суток", PAYMENT, "payment_ts"),
    ],
)
def test_an_attribute_the_words_point_to_is_shown(demo, question, tables, column) -> None:
    text = pruned(demo, question, tables)
    assert f"  - {column} " in text
    assert estimate_tokens(text) <= TOKEN_BUDGET


@pytest.mark.parametrize(
    ("question", "tables", "column"),
    [
        ("Сумма платежей в 2025 году", PAYMENT, "payment_ts"),
        ("Сколько клиентов в каждом регионе?", CLIENT, "birth_year"),
        ("Total payments by region", PAYMENT, "payment_ts"),
    ],
)
def test_an_attribute_nothing_points_to_is_still_pruned(demo, question, tables, column) -> None:
    """The table's own noun in every label ("Время платежа", "ID платежа") points to no
    column: «платежей» does not bring payment_ts."""
    text = pruned(demo, question, tables)
    full = build_sql_context(question, demo, tables, period_label=None, topic=None, full=True)
    assert f"  - {column} " not in text and f"  - {column} " in full
    assert len(text) < len(full)


def test_the_model_sees_birth_year_for_an_age_question(demo_db: Path) -> None:
    """Through the model path: the first SQL prompt of "older than 60" names birth_year, so
    a good model need not refuse and a mediocre one has no reason to drop the condition."""
    sql = (
        "SELECT COUNT(*) AS clients FROM dwh.dim_client "
        "WHERE birth_year <= EXTRACT(YEAR FROM CURRENT_DATE) - 60"
    )
    model = ScriptedChatModel(
        {
            "tables": ['{"tables": ["dwh.dim_client"], "reason": "clients"}'],
            "feasibility": ['{"feasible": true}'],
            "sql_generation": [json.dumps({"sql": sql, "explanation": "age", "confidence": 0.8})],
        },
        every='{"answers_question": true}',
    )
    service = AskService(
        load_settings(db_url=f"duckdb:///{demo_db}"),
        today=date(2026, 11, 30),
        write_files=False,
        llm=LLMClient(model, timeout_s=5, max_retries=0, sleep=lambda _s: None),
    )
    try:
        service.ask("Сколько клиентов старше 60 лет?", thread_id="age")
    finally:
        service.close()
    first = model.prompts_for("sql_generation")[0].text
    assert "birth_year" in first
