"""The ask graph with a scripted model: every branch of the LLM layer, rules as the net."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from vitrina.ask.service import AskResult, AskService
from vitrina.config import load_settings
from vitrina.llm.client import LLMClient
from vitrina.llm.fake import Malformed, ScriptedChatModel
from vitrina.present.numbers import format_money
from vitrina.warehouse import Warehouse

TODAY = date(2026, 11, 30)

QUESTION = "Средний чек клиентов с двумя и более картами в 2025 году"
GOOD_SQL = """
WITH multi AS (SELECT client_id FROM dwh.dim_card GROUP BY client_id HAVING COUNT(*) >= 2)
SELECT AVG(p.amount_rub) AS average_ticket
FROM dwh.fact_payment p
WHERE p.status = 'success' AND p.client_id IN (SELECT client_id FROM multi)
  AND p.payment_date >= DATE '2025-01-01' AND p.payment_date < DATE '2026-01-01'
"""
BAD_DATE_SQL = GOOD_SQL.replace(
    "DATE '2026-01-01'", "DATE '2026-13-01'"
)  # passes the guard, fails EXPLAIN


def sql(
    text: str,
    explanation: str = "average payment of clients with 2+ cards",
    confidence: float = 0.8,
) -> str:
    return json.dumps({"sql": text, "explanation": explanation, "confidence": confidence})


def run(
    demo_db: Path, scripts: dict, question: str = QUESTION, *, thread: str = "t", **settings
) -> tuple[AskResult, ScriptedChatModel]:
    model = ScriptedChatModel(scripts)
    client = LLMClient(model, timeout_s=5, max_retries=2, backoff_s=0, sleep=lambda _s: None)
    service = AskService(
        load_settings(db_url=f"duckdb:///{demo_db}", **settings),
        today=TODAY,
        write_files=False,
        llm=client,
    )
    try:
        return service.ask(question, thread_id=thread), model
    finally:
        service.close()


def model_path(**overrides) -> dict:
    """The script of a successful model-path turn; tests override single tasks."""
    scripts = {
        "topic": ['{"topic": "payments", "confidence": 0.9}'],
        "ambiguity": ['{"ambiguous": false}'],
        "tables": [
            '{"tables": ["dwh.fact_payment", "dwh.dim_card"], "reason": "payments and cards"}'
        ],
        "feasibility": ['{"feasible": true}'],
        "sql_generation": [sql(GOOD_SQL)],
        "semantic_check": ['{"answers_question": true}'],
        "answer": [lambda messages: {"text": "Средний чек за 2025 год — см. таблицу."}],
    }
    scripts.update(overrides)
    return scripts


@pytest.fixture(scope="module")
def expected_ticket(demo_db: Path) -> Decimal:
    return Warehouse(f"duckdb:///{demo_db}").execute(GOOD_SQL).rows[0][0]


def test_success_on_the_first_try(demo_db: Path, expected_ticket: Decimal) -> None:
    worded = (
        f"Средний чек таких клиентов в 2025 году — {format_money(expected_ticket, 'ru', 'RUB')}."
    )
    result, model = run(
        demo_db, model_path(answer=[json.dumps({"text": worded}, ensure_ascii=False)])
    )
    assert result.status == "answered" and result.sql_source == "llm"
    assert result.rows[0][0] == expected_ticket
    assert result.answer == worded
    assert result.sql_explanation and result.sql_confidence == 0.8
    assert result.llm_usage["calls"] == 7 and result.llm_usage["prompt_tokens"] > 0
    sent = model.prompts_for("sql_generation")[0].text
    assert "dwh.fact_payment" in sent and "from 2025-01-01 to 2025-12-31" in sent
    assert "dwh.dim_card.client_id" in sent or "client_id" in sent  # join keys found by code
    assert model.remaining() == {k: 0 for k in model.remaining()}


def test_compile_error_then_success(demo_db: Path, expected_ticket: Decimal) -> None:
    result, model = run(demo_db, model_path(sql_generation=[sql(BAD_DATE_SQL), sql(GOOD_SQL)]))
    assert result.status == "answered" and result.rows[0][0] == expected_ticket
    retry = model.prompts_for("sql_generation")[1].text
    assert "Your previous query failed" in retry and "2026-13-01" in retry
    first = model.prompts_for("sql_generation")[0].text
    assert "payment_ts" not in first and "payment_ts" in retry  # the retry gets the full schema
    written = [
        (e.data["attempt"], e.data["sql"])
        for e in result.trace
        if e.node == "generate_sql" and "sql" in e.data
    ]
    assert written == [(1, BAD_DATE_SQL), (2, GOOD_SQL)]


def test_retries_exhausted_give_a_human_explanation(demo_db: Path) -> None:
    result, _ = run(demo_db, model_path(sql_generation=[sql(BAD_DATE_SQL)] * 3))
    assert result.status == "failed"
    assert result.answer.startswith("Не удалось построить корректный запрос за 3 попытки")


def test_semantic_check_rejects_and_regenerates(demo_db: Path, expected_ticket: Decimal) -> None:
    no_filter = GOOD_SQL.replace("p.status = 'success' AND ", "")
    result, model = run(
        demo_db,
        model_path(
            sql_generation=[sql(no_filter), sql(GOOD_SQL)],
            semantic_check=[
                '{"answers_question": false, "problem": "declined payments are counted"}',
                '{"answers_question": true}',
            ],
        ),
    )
    assert result.status == "answered" and result.rows[0][0] == expected_ticket
    assert "declined payments are counted" in model.prompts_for("sql_generation")[1].text


def test_feasibility_sends_work_back_to_table_selection(demo_db: Path) -> None:
    result, model = run(
        demo_db,
        model_path(
            tables=[
                '{"tables": ["dwh.dim_client"]}',
                '{"tables": ["dwh.fact_payment", "dwh.dim_card"]}',
            ],
            feasibility=['{"feasible": false, "missing": "payment amounts"}', '{"feasible": true}'],
        ),
    )
    assert result.status == "answered"
    assert "payment amounts" in model.prompts_for("tables")[1].text


def test_feasibility_bound_ends_in_an_honest_refusal(demo_db: Path) -> None:
    result, _ = run(
        demo_db,
        model_path(
            tables=['{"tables": ["dwh.dim_client"]}'] * 2,
            feasibility=['{"feasible": false, "missing": "card ownership history"}'] * 2,
        ),
    )
    assert result.status == "refused" and "card ownership history" in result.answer


def test_rules_and_model_disagree_on_the_topic(demo_db: Path) -> None:
    """A certain rules reading keeps its topic whatever the model says (decision 174); the
    classifier is not even asked unless `llm_always`, and then its other topic is ignored."""
    question = "Сумма платежей по картам в мае 2025"
    result, model = run(demo_db, {"topic": ['{"topic": "cards", "confidence": 0.7}']}, question)
    assert result.status == "answered" and model.prompts == []
    result, model = run(
        demo_db,
        {
            "topic": ['{"topic": "cards", "confidence": 0.7}'],
            "ambiguity": ['{"ambiguous": false}'],
            "answer": ['{"text": "Сумма платежей за май 2025 — в таблице."}'],
        },
        question,
        llm_always=True,
    )
    assert result.status == "answered" and result.topic == "payments"
    assert len(model.prompts_for("topic")) == 1
    assert any(e.kind == "rejected" and "model's topic ignored" in e.message for e in result.trace)


def test_malformed_reply_is_repaired_once_then_rules_answer(demo_db: Path) -> None:
    result, model = run(
        demo_db,
        {
            "topic": [Malformed(), Malformed()],
            "ambiguity": ['{"ambiguous": false}'],
            "answer": [Malformed(), Malformed()],
        },
        "Сумма платежей по картам в мае 2025",
        llm_always=True,  # a fully read question asks no model otherwise (decision 174)
    )
    assert result.status == "answered" and result.sql_source == "rules"
    assert (
        "invalid" in model.prompts_for("topic")[1].text.lower()
    )  # the repair request quotes the error
    unusable = {e.data["task"] for e in result.trace if e.kind == "suppressed" and "task" in e.data}
    assert unusable == {"topic", "answer"}  # both model tasks fell back, each recorded


def test_answer_with_an_invented_number_is_rejected(demo_db: Path) -> None:
    result, _ = run(
        demo_db, model_path(answer=['{"text": "Средний чек — 999 999,99 ₽, рост 12 %."}'])
    )
    assert result.status == "answered"
    assert "999 999,99" not in result.answer and "12 %" not in result.answer
    rejected = [
        e.data["numbers"] for e in result.trace if e.node == "answer" and e.kind == "rejected"
    ]
    assert rejected == [["999999.99", "12"]]


def test_model_timeout_falls_back_to_rules(demo_db: Path) -> None:
    result, model = run(
        demo_db,
        {"topic": [TimeoutError("slow")] * 3},
        "Сумма платежей по картам в мае 2025",
        llm_always=True,  # a fully read question asks no model otherwise (decision 174)
    )
    assert result.status == "answered" and result.sql_source == "rules"
    assert len(model.prompts_for("topic")) == 1, "a timeout is not retried"
    assert model.remaining() == {"topic": 2}
    usage = result.llm_usage
    assert usage["down"] and "TimeoutError" in usage["down"], (
        "the endpoint is off for the rest of the turn"
    )
    assert usage["skipped"] >= 1 and usage["calls"] == 1


def test_chart_proposal_naming_a_missing_column_is_rejected(demo_db: Path) -> None:
    text_only = "SELECT DISTINCT r.region_name, r.region_name_en FROM dwh.dim_region r"
    result, _ = run(
        demo_db,
        model_path(
            period=['{"span": null}'],
            sql_generation=[sql(text_only)],
            semantic_check=['{"answers_question": true}'],
            answer=['{"text": "Список регионов."}'],
            chart=['{"kind": "bar", "x": "region_name", "y": ["payments_total"]}'],
        ),
        "Платежи: список регионов и их английских названий без дубликатов",
    )
    assert result.status == "answered"
    assert result.chart is None
    assert [
        e.data["columns"] for e in result.trace if e.node == "chart" and e.kind == "rejected"
    ] == [["payments_total"]]


def test_no_llm_flag_means_rules_only(demo_db: Path) -> None:
    service = AskService(
        load_settings(db_url=f"duckdb:///{demo_db}"),
        today=TODAY,
        write_files=False,
        llm=LLMClient(ScriptedChatModel({}), timeout_s=1),
        use_llm=False,
    )
    result = service.ask(QUESTION)
    assert result.llm_usage == {} and result.sql_source != "llm"
    # the rules cannot read "с двумя и более картами": no narrower answer, a refusal naming it
    assert result.status == "refused" and "«двумя»" in (result.answer or "")


def test_failed_model_path_refuses_naming_the_words(demo_db: Path) -> None:
    """One unexplained word sends the question to the model; when the model gives nothing
    usable, the answer is a refusal that names the word, never the rule plan without it."""
    result, _ = run(
        demo_db,
        model_path(sql_generation=[Malformed(), Malformed()] * 3),
        "Средний чек клиентов-пенсионеров в мае 2025",
    )
    assert result.status == "refused"
    assert "«пенсионеров»" in (result.answer or "")
    assert any(e.kind == "rejected" and e.node == "generate_sql" for e in result.trace)


def test_dialog_summary_every_third_turn(make_service) -> None:
    service = make_service()
    for question in ("Сумма платежей в 2025 году", "а по регионам?", "а в 2024?"):
        service.ask(question, thread_id="sum")
    state = service.graph.get_state({"configurable": {"thread_id": "sum"}}).values
    assert state["dialog_summary"].startswith("Темы: payments. Периоды: 2025 год, 2024 год.")
