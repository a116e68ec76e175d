"""The ask graph invoked end to end on the demo warehouse: every route and branch."""

from __future__ import annotations

from pathlib import Path

import pytest

from vitrina.ask.service import AskResult
from vitrina.catalog import load_catalog


def event_data(result: AskResult, node: str) -> list[dict]:
    return [e.data for e in result.trace if e.node == node]


def test_answered_route_visits_every_step(make_service) -> None:
    result = make_service().ask("Сколько кошельков открыли в мае 2025?")
    assert result.status == "answered"
    nodes = [e.node for e in result.trace]
    for node in (
        "resolve_context",
        "normalise_period",
        "detect_topic",
        "check_ambiguity",
        "select_tables",
        "prune_context",
        "generate_sql",
        "guard_sql",
        "check_sql",
        "execute",
        "check_result",
        "answer",
    ):
        assert node in nodes, node
    assert result.columns == ["wallets_opened"]
    assert result.period == {
        "start": "2025-05-01",
        "end": "2025-05-31",
        "label_ru": "май 2025",
        "label_en": "May 2025",
        "span": "в мае 2025",
        "note": None,
    }
    assert str(result.rows[0][0]) in result.answer.replace("\u00a0", "").replace(" ", "")


def test_answer_is_in_the_question_language(make_service) -> None:
    service = make_service()
    ru = service.ask("Сумма платежей по регионам в 2025 году")
    en = service.ask("Payment volume by region in 2025")
    assert ru.status == en.status == "answered"
    assert "Москва" in ru.answer and "Moscow" in en.answer
    assert sorted(r[1] for r in ru.rows) == sorted(r[1] for r in en.rows)


def test_follow_up_is_rewritten_from_the_previous_turn(make_service) -> None:
    service = make_service()
    first = service.ask("Сколько кошельков открыли в мае 2025?", thread_id="f1")
    second = service.ask("а в декабре, по неделям?", thread_id="f1")
    assert first.status == second.status == "answered"
    assert second.rewritten_question == "Сколько кошельков открыли в декабре 2025 по неделям"
    assert second.columns == ["week", "wallets_opened"]
    rewrites = [d for d in event_data(second, "resolve_context") if "rewritten" in d]
    assert rewrites == [{"previous": first.question, "rewritten": second.rewritten_question}]
    # a new breakdown replaces the weeks (decision 153); "ещё" adds them back
    third = service.ask("а по регионам?", thread_id="f1")
    assert third.rewritten_question == "Сколько кошельков открыли по регионам в декабре 2025"
    assert third.columns == ["region_name", "wallets_opened"]
    fourth = service.ask("а ещё по неделям?", thread_id="f1")
    assert (
        fourth.rewritten_question
        == "Сколько кошельков открыли по регионам в декабре 2025 по неделям"
    )
    assert fourth.columns == ["week", "region_name", "wallets_opened"]


def test_topic_tie_asks_and_resumes_by_number(make_service) -> None:
    service = make_service()
    asked = service.ask("Сколько открыли в мае 2025?", thread_id="c1")
    assert asked.status == "clarification"
    assert [o["id"] for o in asked.clarification["options"]] == ["wallets", "cards"]
    answered = service.ask("2", thread_id="c1")
    assert answered.status == "answered"
    assert answered.topic == "cards"
    assert answered.columns == ["cards_issued"]


def test_clarification_by_label(make_service) -> None:
    service = make_service()
    service.ask("How many were opened in May 2025?", thread_id="c2")
    answered = service.ask("wallets", thread_id="c2")
    assert answered.status == "answered" and answered.topic == "wallets"


def test_clarification_limit_answers_with_best_guess(make_service) -> None:
    service = make_service(max_clarifications=0)
    result = service.ask("Сколько открыли в мае 2025?")
    assert result.status == "answered"
    assert any(c["check"] == "clarification_limit" for c in result.checks)


def test_segment_contradiction_asks(make_service) -> None:
    service = make_service()
    asked = service.ask("Сумма платежей компаний в 2025 году", thread_id="s1", segment="b2c")
    assert asked.status == "clarification" and asked.clarification["kind"] == "segment"
    answered = service.ask("B2B", thread_id="s1")
    assert answered.status == "answered"
    assert "dc.segment = 'B2B'" in answered.sql


def test_segment_of_the_dialog_adds_the_mandatory_join(make_service) -> None:
    result = make_service().ask("Сколько кошельков открыли в 2025 году?", segment="b2b")
    assert result.status == "answered"
    assert "JOIN dwh.dim_client" in result.sql and "'B2B'" in result.sql
    assert {"segment": "B2B"} in event_data(result, "select_tables")


def refused_words(result: AskResult) -> list[str]:
    """What the refusal says is missing: words the catalog marks absent, names matching nothing."""
    return [
        w
        for e in result.trace
        if e.node in ("detect_topic", "select_tables")
        for w in e.data.get("words", []) + e.data.get("names", [])
    ]


@pytest.mark.parametrize(
    ("question", "missing"),
    [
        ("Сколько ипотек выдали в 2025 году?", "ипотек"),
        ("What is the exchange rate of the dollar?", "exchange rate"),
        ("Какая погода в Москве?", "погод"),
        ("Сколько платежей было в Казахстане в 2025?", "Казахстан"),
    ],
)
def test_refusals_name_what_is_missing(make_service, question: str, missing: str) -> None:
    result = make_service().ask(question)
    assert result.status == "refused"
    assert result.sql is None and result.rows == []
    assert missing in result.answer
    assert [w for w in refused_words(result) if missing in w], refused_words(result)


def test_refusal_does_not_depend_on_clarifications(make_service) -> None:
    result = make_service(max_clarifications=0).ask("Сколько ипотек выдали в 2025 году?")
    assert result.status == "refused" and "ипотек" in result.answer


def _broken_catalog(tmp_path: Path) -> Path:
    """The demo catalog with one metric naming a column its table does not have."""
    from vitrina.catalog.loader import DEMO_CATALOG

    broken = tmp_path / "catalog"
    for f in DEMO_CATALOG.rglob("*.yaml"):
        target = broken / f.relative_to(DEMO_CATALOG)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(
            f.read_text(encoding="utf-8").replace("SUM(fee_rub)", "SUM(fee_total)"),
            encoding="utf-8",
        )
    return broken


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "Комиссионный доход за 2025 год",
            ["«Комиссионный доход» (fee_income)", "«fee_total»", "dwh.fact_payment",
             "Исправьте показатель в каталоге", "vitrina catalog check"],
        ),
        (
            "Fee income in 2025",
            ['"Fee income" (fee_income)', '"fee_total"', "dwh.fact_payment",
             "Fix the metric in the catalog", "vitrina catalog check"],
        ),
    ],
)  # fmt: skip
def test_broken_metric_is_refused_naming_the_metric_and_the_missing_column(
    make_service, tmp_path: Path, question: str, expected: list[str]
) -> None:
    # the catalog's metric names a column its table lacks: the question is refused before any
    # SQL, with what to fix, instead of a generic "not understood" or a guess at another metric
    result = make_service(catalog=load_catalog(_broken_catalog(tmp_path))).ask(question)
    assert result.status == "refused" and result.sql is None
    for part in expected:
        assert part in result.answer, (part, result.answer)
    rejected = [e.data for e in result.trace if e.node == "detect_topic" and e.kind == "rejected"]
    assert rejected and rejected[0]["metric"] == "fee_income"


def test_other_metrics_still_answer_when_one_is_broken(make_service, tmp_path: Path) -> None:
    result = make_service(catalog=load_catalog(_broken_catalog(tmp_path))).ask(
        "Сумма платежей в 2025 году"
    )
    assert result.status == "answered"


def test_unreachable_warehouse_is_a_clear_failure(make_service, tmp_path: Path) -> None:
    result = make_service(db_url=f"duckdb:///{tmp_path / 'missing.duckdb'}").ask(
        "Сумма платежей в 2025 году"
    )
    assert result.status == "failed"
    assert "Хранилище недоступно" in result.answer


def test_files_are_written(make_service) -> None:
    result = make_service(write_files=True).ask("Количество платежей по месяцам в 2025 году")
    assert result.status == "answered"
    assert Path(result.excel).is_file() and Path(result.chart_png).is_file()
    assert result.chart["type"] == "line"
    assert len(result.chart["data"]["labels"]) == 12


def test_files_are_made_on_request_once_per_run(make_service) -> None:
    service = make_service()
    result = service.ask("Количество платежей по месяцам в 2025 году")
    run_dir = service.settings.outputs_dir / str(result.run_id)
    assert result.excel is None and result.chart_png is None and not run_dir.exists()
    with_files = service.with_files(result)
    assert Path(with_files.excel).parent == run_dir and Path(with_files.chart_png).is_file()
    stamp = Path(with_files.chart_png).stat().st_mtime_ns
    again = service.with_files(result, ("chart",))
    assert again.chart_png == with_files.chart_png and again.excel is None
    assert Path(again.chart_png).stat().st_mtime_ns == stamp, (
        "the stored file is reused, not redrawn"
    )


def test_a_refusal_has_no_files_to_make(make_service) -> None:
    service = make_service()
    result = service.ask("Сколько ипотек выдали в 2025 году?")
    assert result.status == "refused"
    assert service.with_files(result).excel is None
    assert not (service.settings.outputs_dir / str(result.run_id)).exists()


def test_result_checks_flag_a_single_row_breakdown(make_service) -> None:
    result = make_service().ask("Сумма платежей по регионам в Москве в 2025 году")
    assert result.status == "answered"
    assert [c["check"] for c in result.checks] == ["single_row"]


def test_no_data_for_the_period_says_where_data_is(make_service) -> None:
    result = make_service().ask("Сумма платежей в 2021 году")
    assert result.status == "answered"
    assert [c["check"] for c in result.checks] == ["all_null"]
    assert (
        result.answer == "Данных за период «2021 год» нет. "
        "Данные по теме «Платежи» есть с 01.01.2023 по 30.11.2026."
    )
    empty = make_service().ask("Payment volume by region in 2021")
    assert empty.checks[0]["check"] == "empty" and empty.answer.startswith(
        "There is no data for 2021."
    )
