"""Follow-ups read the way people mean them (decision 153), asked through the ask graph on
the demo warehouse: a new breakdown, metric, period or value of the same column replaces
the old one; "ещё", "и по", "also" add a breakdown; a whole question is answered on its own;
after a refused turn there is nothing to continue. Rows are checked against hand-written SQL.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest
from tests.conftest import TODAY

from vitrina.ask.service import AskResult
from vitrina.language.detect import detect_lang

PAID_2025 = (
    "FROM dwh.fact_payment p JOIN dwh.dim_client c ON c.client_id = p.client_id "
    "JOIN dwh.dim_region r ON r.region_id = c.region_id "
    "WHERE p.status = 'success' AND p.payment_date BETWEEN DATE '{y}-01-01' AND DATE '{y}-12-31'"
)
BY_CHANNEL = f"SELECT p.channel, SUM(p.amount_rub) {PAID_2025} GROUP BY 1".format(y=2025)
BY_REGION_CHANNEL = (
    f"SELECT r.region_name, p.channel, SUM(p.amount_rub) {PAID_2025} GROUP BY 1, 2".format(y=2025)
)
COUNT_BY_REGION = f"SELECT r.region_name, COUNT(*) {PAID_2025} GROUP BY 1".format(y=2025)
BY_MONTH = (
    "SELECT CAST(DATE_TRUNC('month', payment_date) AS DATE), SUM(amount_rub) "
    "FROM dwh.fact_payment WHERE status = 'success' "
    "AND payment_date BETWEEN DATE '2025-01-01' AND DATE '2025-12-31' GROUP BY 1"
)
REGION_2024 = f"SELECT r.region_name, SUM(p.amount_rub) {PAID_2025} GROUP BY 1".format(y=2024)
WALLETS_MAY = (
    "SELECT COUNT(*) FROM dwh.fact_wallet_opening "
    "WHERE open_date BETWEEN DATE '2025-05-01' AND DATE '2025-05-31'"
)
CARDS_MAY = (
    "SELECT COUNT(*) FROM dwh.fact_card_issue "
    "WHERE issue_date BETWEEN DATE '2025-05-01' AND DATE '2025-05-31'"
)
TICKET_MOSCOW = f"SELECT AVG(p.amount_rub) {PAID_2025} AND r.region_name = 'Москва'".format(y=2025)
TICKET_MOSCOW_APP = TICKET_MOSCOW.replace("'Москва'", "'Москва' AND p.channel = 'app'")
PAID_ALL_2025 = (
    "SELECT SUM(amount_rub) FROM dwh.fact_payment WHERE status = 'success' "
    "AND payment_date BETWEEN DATE '2025-01-01' AND DATE '2025-12-31'"
)


def _norm(rows) -> list[tuple]:
    def cell(v):
        if isinstance(v, float | Decimal):
            return round(float(v), 2)
        try:  # JSON output (the CLI) writes decimals as text
            return round(float(v), 2) if isinstance(v, str) else str(v)
        except ValueError:
            return v

    return sorted(tuple(cell(v) for v in row) for row in rows)


def _same_as(result: AskResult, demo_db: Path, sql: str) -> None:
    assert result.status == "answered", result.answer
    if (
        detect_lang(result.question) == "en"
    ):  # English answers label regions with their English names
        sql = sql.replace("r.region_name,", "r.region_name_en,")
    with duckdb.connect(str(demo_db), read_only=True) as conn:
        expected = conn.execute(sql).fetchall()
    assert _norm(result.rows) == _norm(expected), result.sql


def _rules(result: AskResult) -> list[tuple[str, str | None]]:
    """The follow-up rules the decision trace recorded: (rule, part)."""
    return [
        (e.data["rule"], e.data.get("part"))
        for e in result.trace
        if e.node == "resolve_context" and "rule" in e.data
    ]


def _dialog(make_service, *turns: str) -> list[AskResult]:
    service = make_service()
    return [service.ask(t, thread_id="meaning") for t in turns]


@pytest.mark.parametrize(
    ("first", "follow_up", "columns", "reference"),
    [
        ("Сумма платежей по регионам в 2025 году", "а по каналам?", ["channel"], BY_CHANNEL),
        ("Payment volume by region in 2025", "and by channel?", ["channel"], BY_CHANNEL),
        ("Payment volume by region in 2025", "what about by channel?", ["channel"], BY_CHANNEL),
        ("Сумма платежей в разрезе регионов в 2025 году", "а по каналам?", ["channel"], BY_CHANNEL),
        ("Сумма платежей по регионам в 2025 году", "а по месяцам?", ["month"], BY_MONTH),
        ("Payment volume by region in 2025", "and by month?", ["month"], BY_MONTH),
    ],
)
def test_a_new_breakdown_replaces_the_old_one(
    make_service, demo_db: Path, first: str, follow_up: str, columns: list[str], reference: str
) -> None:
    _, second = _dialog(make_service, first, follow_up)
    assert second.columns == [*columns, "payment_amount"], second.rewritten_question
    _same_as(second, demo_db, reference)
    assert ("replaced", "breakdown") in _rules(second)


@pytest.mark.parametrize(
    ("first", "follow_up"),
    [
        ("Сумма платежей по регионам в 2025 году", "а ещё по каналам?"),
        ("Сумма платежей по регионам в 2025 году", "и по каналам?"),
        ("Сумма платежей по регионам в 2025 году", "а также по каналам?"),
        ("Payment volume by region in 2025", "and also by channel?"),
        ("Payment volume by region in 2025", "by channel too?"),
        ("Payment volume by region in 2025", "and additionally by channel?"),
    ],
)
def test_also_adds_the_breakdown(make_service, demo_db: Path, first: str, follow_up: str) -> None:
    _, second = _dialog(make_service, first, follow_up)
    order = [second.columns.index(c) for c in ("region_name", "channel", "payment_amount")]
    sql = BY_REGION_CHANNEL
    if detect_lang(second.question) == "en":
        sql = sql.replace("r.region_name,", "r.region_name_en,")
    with duckdb.connect(str(demo_db), read_only=True) as conn:
        expected = conn.execute(sql).fetchall()
    assert _norm([[row[i] for i in order] for row in second.rows]) == _norm(expected)
    assert ("added", "breakdown") in _rules(second)


@pytest.mark.parametrize(
    ("first", "follow_up"),
    [
        ("Сумма платежей по регионам в 2025 году", "а количество?"),
        ("Сумма платежей по регионам в 2025 году", "а число?"),
        ("Сумма платежей по регионам в 2025 году", "а сколько платежей?"),
        ("Payment volume by region in 2025", "and the count?"),
        ("Payment volume by region in 2025", "what about the number?"),
        ("Payment volume by region in 2025", "and the number of payments?"),
    ],
)
def test_a_new_metric_replaces_the_metric_and_keeps_the_rest(
    make_service, demo_db: Path, first: str, follow_up: str
) -> None:
    _, second = _dialog(make_service, first, follow_up)
    assert second.columns == ["region_name", "payment_count"], second.rewritten_question
    _same_as(second, demo_db, COUNT_BY_REGION)
    assert ("replaced", "metric") in _rules(second)


@pytest.mark.parametrize(
    "follow_up",
    ["а также количество?", "а ещё количество платежей?", "and also the number of payments?"],
)
def test_also_adds_the_metric(make_service, demo_db: Path, follow_up: str) -> None:
    """ "а также количество?" asks for both metrics: never the new one alone."""
    _, second = _dialog(make_service, "Сумма платежей по регионам в 2025 году", follow_up)
    assert second.columns == ["region_name", "payment_amount", "payment_count"]
    reference = f"SELECT r.region_name, SUM(p.amount_rub), COUNT(*) {PAID_2025} GROUP BY 1".format(
        y=2025
    )
    _same_as(second, demo_db, reference)
    assert ("added", "metric") in _rules(second)


@pytest.mark.parametrize(
    "follow_up", ["а в 2024?", "а за 2024 год?", "and in 2024?", "what about 2024?"]
)
def test_a_new_period_replaces_the_period(make_service, demo_db: Path, follow_up: str) -> None:
    _, second = _dialog(make_service, "Сумма платежей по регионам в 2025 году", follow_up)
    assert second.columns == ["region_name", "payment_amount"], second.rewritten_question
    _same_as(second, demo_db, REGION_2024)
    assert ("replaced", "period") in _rules(second)


@pytest.mark.parametrize(
    ("first", "follow_up"),
    [
        ("Средний чек в Казани в 2025 году", "а в Москве?"),
        ("Средний чек в Санкт-Петербурге в 2025 году", "а по Москве?"),
        ("Average ticket in Kazan in 2025", "and in Moscow?"),
        ("Average ticket in Saint Petersburg in 2025", "what about Moscow?"),
    ],
)
def test_a_value_of_the_same_column_replaces_the_old_one(
    make_service, demo_db: Path, first: str, follow_up: str
) -> None:
    _, second = _dialog(make_service, first, follow_up)
    _same_as(second, demo_db, TICKET_MOSCOW)
    assert ("replaced", "filter") in _rules(second)


@pytest.mark.parametrize(
    "follow_up", ["а через приложение?", "а в мобильном приложении?", "and in the app?"]
)
def test_a_value_of_another_column_is_added(make_service, demo_db: Path, follow_up: str) -> None:
    _, second = _dialog(make_service, "Средний чек в Москве в 2025 году", follow_up)
    _same_as(second, demo_db, TICKET_MOSCOW_APP)
    assert ("added", "filter") in _rules(second)


@pytest.mark.parametrize(
    ("follow_up", "reference"),
    [
        ("Сколько кошельков открыли в мае 2025?", WALLETS_MAY),
        ("а сколько кошельков открыли в мае 2025?", WALLETS_MAY),
        ("теперь сколько карт выпустили в мае 2025 года?", CARDS_MAY),
        ("And how many cards were issued in May 2025?", CARDS_MAY),
        ("now how many wallets were opened in May 2025?", WALLETS_MAY),
    ],
)
def test_a_whole_question_is_not_glued(
    make_service, demo_db: Path, follow_up: str, reference: str
) -> None:
    first, second = _dialog(make_service, "Сумма платежей по регионам в 2025 году", follow_up)
    assert first.status == "answered"
    assert "region_name" not in second.columns, second.rewritten_question
    _same_as(second, demo_db, reference)
    assert ("standalone", None) in _rules(second)


def test_a_short_new_metric_still_continues_the_dialog(make_service, demo_db: Path) -> None:
    """ "а карт?" names a metric but not a whole question: the period stays."""
    _, second = _dialog(make_service, "Сколько кошельков открыли в мае 2025?", "а карт?")
    _same_as(second, demo_db, CARDS_MAY)


NOTHING = {
    "ru": "Предыдущий вопрос остался без ответа, поэтому продолжать нечего.",
    "en": "The previous question got no answer, so there is nothing to continue.",
}


@pytest.mark.parametrize(
    ("first", "follow_up", "lang"),
    [
        ("Сколько ипотек выдали?", "а по регионам?", "ru"),
        ("Сколько ипотек выдали в 2025 году?", "а в 2024?", "ru"),
        ("Какая прибыль банка за 2025 год?", "а по месяцам?", "ru"),
        ("How many mortgages were issued?", "and by region?", "en"),
        ("How many mortgages were issued in 2025?", "what about 2024?", "en"),
    ],
)
def test_after_a_refusal_a_follow_up_has_nothing_to_continue(
    make_service, first: str, follow_up: str, lang: str
) -> None:
    refused, second = _dialog(make_service, first, follow_up)
    assert refused.status == "refused"
    assert second.status == "refused"
    assert second.answer.startswith(NOTHING[lang]), second.answer
    assert "нет данных" not in second.answer and "no data" not in second.answer
    assert ("nothing to continue", None) in _rules(second)


@pytest.mark.parametrize(
    ("follow_up", "lang"),
    [
        ("а сумма платежей в 2025 году?", "ru"),
        ("а выручка за 2025 год?", "ru"),
        ("and payment volume in 2025?", "en"),
    ],
)
def test_after_a_refusal_a_whole_question_is_answered_on_its_own(
    make_service, demo_db: Path, follow_up: str, lang: str
) -> None:
    _, second = _dialog(make_service, "Сколько ипотек выдали?", follow_up)
    _same_as(second, demo_db, PAID_ALL_2025)
    assert NOTHING[lang] in second.answer
    assert ("nothing to continue", None) in _rules(second)


def test_after_a_refusal_the_earlier_answer_is_not_continued(make_service, demo_db: Path) -> None:
    """An answered turn, a refused one, then "а по каналам?": not glued onto the first."""
    turns = _dialog(
        make_service,
        "Сумма платежей по регионам в 2025 году",
        "Сколько ипотек выдали?",
        "а по каналам?",
    )
    assert [t.status for t in turns] == ["answered", "refused", "refused"]
    assert turns[2].answer.startswith(NOTHING["ru"])


def _cli(*args: str, capsys) -> dict:
    from vitrina.cli import main

    with pytest.raises(SystemExit) as done:
        main(list(args))
    out = capsys.readouterr().out
    assert done.value.code == 0, out
    return json.loads(out)


def test_cli_thread_replaces_the_breakdown(demo_db: Path, capsys) -> None:
    """`vitrina ask ... --thread ID` through the console script's entry point."""
    db = f"duckdb:///{demo_db}"
    first = _cli(
        "ask", "Сумма платежей по регионам в 2025 году", "--db", db, "--json", capsys=capsys
    )
    thread = first["thread_id"]
    second = _cli("ask", "а по каналам?", "--db", db, "--thread", thread, "--json", capsys=capsys)
    assert second["columns"] == ["channel", "payment_amount"]
    with duckdb.connect(str(demo_db), read_only=True) as conn:
        expected = conn.execute(BY_CHANNEL).fetchall()
    assert _norm(second["rows"]) == _norm(expected)
    third = _cli("ask", "и по регионам?", "--db", db, "--thread", thread, "--json", capsys=capsys)
    assert sorted(third["columns"]) == ["channel", "payment_amount", "region_name"]
    fourth = _cli(
        "ask", "Сколько ипотек выдали?", "--db", db, "--thread", thread, "--json", capsys=capsys
    )
    assert fourth["status"] == "refused"
    fifth = _cli("ask", "and by month?", "--db", db, "--thread", thread, "--json", capsys=capsys)
    assert fifth["status"] == "refused" and fifth["answer"].startswith(NOTHING["en"])


def test_after_a_failed_turn_a_follow_up_has_nothing_to_continue(
    make_service, demo_db: Path
) -> None:
    """A turn that failed (here a plan from outside naming a table the catalog lacks) leaves
    nothing to continue either; a whole question after it is answered on its own."""
    from vitrina.language.periods import extract_period
    from vitrina.query import PeriodRef, build_plan, read_question
    from vitrina.trace import Trace

    service = make_service()
    question = "Сумма платежей по регионам в 2025 году"
    found = extract_period(question, TODAY)
    outcome = build_plan(
        read_question(question, service.catalog),
        service.catalog,
        topic="payments",
        lang="ru",
        period=PeriodRef.of(found) if found else None,
        segment=None,
        trace=Trace("test"),
    )
    assert outcome.plan is not None
    broken = outcome.plan.model_copy(update={"base_table": "dwh.nowhere", "joins": []})
    service.ask(question, thread_id="failed")
    failed = service.run_plan(broken, question=question, thread_id="failed")
    assert failed.status == "failed"
    refused = service.ask("а по каналам?", thread_id="failed")
    assert refused.status == "refused" and refused.answer.startswith(NOTHING["ru"])
    service.run_plan(broken, question=question, thread_id="failed")
    answered = service.ask("and payment volume in 2025?", thread_id="failed")
    _same_as(answered, demo_db, PAID_ALL_2025)
    assert NOTHING["en"] in answered.answer
