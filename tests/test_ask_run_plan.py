"""`AskService.run_plan`: a plan made elsewhere runs through ask's own guard, EXPLAIN,
deterministic checks, execution, result checks and answer (route's report path)."""

from __future__ import annotations

from datetime import date

import pytest

from vitrina.language.periods import extract_period
from vitrina.query import Filter, PeriodRef, build_plan, read_question
from vitrina.trace import Trace

TODAY = date(2026, 11, 30)
QUESTION = "сумма платежей по регионам за 2025 год"
SQL_NODES = {"generate_sql", "guard_sql", "check_sql", "execute", "check_result", "answer"}


@pytest.fixture(scope="module")
def service(demo_db):
    from vitrina.ask.service import AskService
    from vitrina.config import load_settings

    ask = AskService(load_settings(db_url=f"duckdb:///{demo_db}"), today=TODAY, write_files=False)
    yield ask
    ask.close()


def _plan(service, question: str):
    found = extract_period(question, TODAY)
    reading = read_question(question, service.catalog)
    outcome = build_plan(
        reading,
        service.catalog,
        topic="payments",
        lang="ru",
        period=PeriodRef.of(found) if found else None,
        segment=None,
        trace=Trace("test"),
    )
    assert outcome.plan is not None
    return outcome.plan


def test_a_plan_runs_like_the_same_question(service):
    asked = service.ask(QUESTION)
    ran = service.run_plan(_plan(service, QUESTION), question=QUESTION)
    assert ran.status == asked.status == "answered"
    assert ran.sql == asked.sql and ran.rows == asked.rows and ran.answer == asked.answer
    nodes = {e.node for e in ran.trace}
    assert nodes >= SQL_NODES and not nodes & {"detect_topic", "select_tables", "normalise_period"}
    assert any(e.node == "guard_sql" and "compile check" in e.message for e in ran.trace), (
        "the compile check ran"
    )


def test_result_checks_run_on_a_plan(service):
    plan = _plan(service, QUESTION).model_copy(
        update={
            "period": PeriodRef(
                start=date(2021, 1, 1), end=date(2021, 12, 31), label_ru="2021 год", label_en="2021"
            )
        }
    )
    ran = service.run_plan(plan, question="сумма платежей по регионам за 2021 год")
    assert [c["check"] for c in ran.checks] == ["empty"]
    assert ran.checks[0]["data_from"] == "2023-01-01", "the data range is named"


def test_a_plan_outside_the_catalog_fails_before_any_sql(service):
    plan = _plan(service, QUESTION).model_copy(
        update={"base_table": "information_schema.tables", "joins": []}
    )
    ran = service.run_plan(plan, question=QUESTION)
    assert ran.status == "failed" and not ran.rows and ran.sql is None
    assert "unknown table information_schema.tables" in ran.answer
    assert not {e.node for e in ran.trace} & SQL_NODES, "nothing compiled, nothing ran"


def test_the_guard_stops_a_plan_on_a_column_outside_the_catalog(service):
    plan = _plan(service, QUESTION)
    secret = Filter(
        table=plan.base_table, column="card_pan", values=["4111"], label_ru="x", label_en="x"
    )
    ran = service.run_plan(plan.model_copy(update={"filters": [secret]}), question=QUESTION)
    assert ran.status == "failed" and not ran.rows
    assert any(e.node == "guard_sql" and e.kind.value == "rejected" for e in ran.trace)
    assert not any(e.node == "execute" for e in ran.trace), "nothing ran"


def test_a_thread_answers_a_question_after_a_plan(service):
    service.run_plan(_plan(service, QUESTION), question=QUESTION, thread_id="mixed")
    again = service.ask("сколько карт выпустили в мае 2025", thread_id="mixed")
    assert again.status == "answered" and again.topic == "cards"
