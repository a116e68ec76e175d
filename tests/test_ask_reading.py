"""Issue 29 items 2-5 as a user meets them: several metrics on their own fact tables, two
breakdowns as a cross table, two periods with the change, event verbs and Russian averages.
The numbers of every rephrasing are checked against reference SQL in test_ask_alignment;
here: the shape of each answer, the fan trap avoided, the partial period named, the pivot
written, and the readings that must still refuse."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import openpyxl
import pytest
from typer.testing import CliRunner

from vitrina.ask.nodes.select_tables import rules_verdict
from vitrina.catalog import load_catalog
from vitrina.cli import app
from vitrina.config import load_settings
from vitrina.language.periods.pair import read_two_periods
from vitrina.present.columns import ColumnMeta, ColumnRole, ValueFormat
from vitrina.present.pivot import MAX_COLUMNS, pivot
from vitrina.warehouse import Warehouse
from vitrina.warehouse.result import QueryResult

ROOT = Path(__file__).resolve().parents[1]
TODAY = date(2026, 11, 30)  # the demo's data end on this day: 2026 is a partial year


# --- several metrics: each on its own ---------------------------------------------------


def test_two_fact_tables_are_aggregated_apart_never_joined(make_service, demo_db: Path) -> None:
    """The naive join of payments and card issues through the client multiplies both
    counts (the fan trap); the answer equals the two separate counts."""
    result = make_service().ask("платежи и выпущенные карты в 2025 году", thread_id="m1")
    assert result.status == "answered", result.answer
    sql = result.sql or ""
    assert sql.count("FROM dwh.fact_payment") == 1 and sql.count("FROM dwh.fact_card_issue") == 1
    assert not re.search(r"JOIN dwh\.fact_", sql), "one fact table is never joined to another"
    direct = Warehouse(f"duckdb:///{demo_db}")
    try:
        where = "BETWEEN DATE '2025-01-01' AND DATE '2025-12-31'"
        payments = direct.execute(
            "SELECT COUNT(*) FROM dwh.fact_payment WHERE status = 'success' "
            f"AND payment_date {where}"
        ).rows[0][0]
        cards = direct.execute(
            f"SELECT COUNT(*) FROM dwh.fact_card_issue WHERE issue_date {where}"
        ).rows[0][0]
        fanned = direct.execute(
            "SELECT COUNT(*) FROM dwh.fact_payment p JOIN dwh.fact_card_issue c "
            f"ON c.client_id = p.client_id WHERE p.status = 'success' AND p.payment_date {where} "
            f"AND c.issue_date {where}"
        ).rows[0][0]
    finally:
        direct.close()
    assert result.rows == [[payments, cards]]
    assert fanned not in (payments, cards)  # the planted fault the plan avoids


def test_two_metrics_by_month_get_columns_a_chart_with_two_axes(make_service) -> None:
    result = make_service().ask("revenue and wallets opened by month in 2025", thread_id="m2")
    assert result.status == "answered"
    assert result.columns == ["month", "payment_amount", "wallets_opened"]
    assert len(result.rows) == 12
    chart = result.chart or {}
    axes = {d.get("yAxisID") for d in chart.get("data", {}).get("datasets", [])}
    assert axes == {"y", "y2"}, chart  # money and a count never share an axis
    assert "Payment volume" in (result.answer or "") and "Wallets opened" in result.answer


def test_a_breakdown_that_means_another_column_per_metric_is_refused(make_service) -> None:
    """ "by channel": the payment's channel for revenue, the wallet's opening channel for
    cards: no shared key, so no answer, rather than one joined on a false key."""
    result = make_service().ask("revenue and cards issued by channel in 2024", thread_id="m3")
    assert result.status == "refused" and "second metric" in (result.answer or "")


# --- two breakdowns: the cross table -------------------------------------------------


def _metas() -> list[ColumnMeta]:
    return [
        ColumnMeta(name="month", role=ColumnRole.PERIOD, label_ru="Месяц", label_en="Month",
                   fmt=ValueFormat.DATE),
        ColumnMeta(name="channel", role=ColumnRole.DIMENSION, label_ru="Канал", label_en="Channel"),
        ColumnMeta(name="n", role=ColumnRole.METRIC, label_ru="Платежи", label_en="Payments",
                   fmt=ValueFormat.COUNT),
    ]  # fmt: skip


def test_pivot_puts_time_down_the_side_and_a_column_per_value() -> None:
    long = QueryResult(
        columns=["channel", "month", "n"],
        rows=[
            ("app", date(2025, 1, 1), 5),
            ("web", date(2025, 1, 1), 3),
            ("app", date(2025, 2, 1), 7),
        ],
    )
    crossed, metas = pivot(long, _metas())  # type: ignore[misc]
    assert [m.label("en") for m in metas] == ["Month", "app", "web"]
    assert crossed.rows == [(date(2025, 1, 1), 5, 3), (date(2025, 2, 1), 7, None)]


def test_no_pivot_when_it_would_mislead_or_overflow() -> None:
    repeated = QueryResult(columns=["month", "channel", "n"], rows=[(1, "a", 1), (1, "a", 2)])
    wide = QueryResult(
        columns=["month", "channel", "n"], rows=[(1, str(i), i) for i in range(MAX_COLUMNS + 1)]
    )
    one_key = QueryResult(columns=["channel", "n"], rows=[("a", 1)])
    assert pivot(repeated, _metas()) is None and pivot(wide, _metas()) is None
    assert pivot(one_key, _metas()) is None


def test_two_breakdowns_pivot_in_the_terminal_the_table_and_excel(demo_db: Path) -> None:
    out = CliRunner().invoke(
        app, ["ask", "количество платежей по каналам и месяцам в 2025 году", "--db",
              f"duckdb:///{demo_db}"],
    )  # fmt: skip
    assert out.exit_code == 0, out.output
    header = next(line for line in out.output.splitlines() if "Месяц" in line)
    # a column per channel, named by the dictionary's words (issue 34: codes only in SQL)
    assert all(c in header for c in ("приложение", "POS-терминал", "QR-код", "сайт"))
    run_id = out.output[out.output.index("· run ") :].split()[2]
    book = openpyxl.load_workbook(load_settings().outputs_dir / run_id / "result.xlsx")
    assert book.sheetnames[1] == "Сводная"
    pivot_sheet = book["Сводная"]
    assert pivot_sheet.cell(1, 1).value == "Месяц" and pivot_sheet.max_row == 13
    long_sheet = book[book.sheetnames[0]]
    assert long_sheet.max_row == 49  # the long form stays: 12 months x 4 channels


# --- two periods ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "current", "previous"),
    [
        ("сравни выручку за 2024 и 2025 годы", 2025, 2024),
        ("выручка в 2025 году по сравнению с 2024", 2025, 2024),
        ("revenue in 2025 compared with 2024", 2025, 2024),
        ("revenue 2025 vs 2024", 2025, 2024),
        ("выручка за 2025 год к прошлому году", 2025, 2024),
        ("revenue YoY in 2025", 2025, 2024),
        ("Revenue in 1996 and 1997", 1997, 1996),
    ],
)
def test_one_two_period_reading(question: str, current: int, previous: int) -> None:
    two = read_two_periods(question, TODAY)
    assert two is not None
    assert (two.current.start.year, two.previous.start.year) == (current, previous)
    assert str(previous) not in two.question or current == previous


@pytest.mark.parametrize(
    "question",
    [
        "выручка за 2025 год",
        "выручка с 2024 года",
        "revenue in 2025 by channel",
        "revenue between 2023 and 2025",  # one range, not two periods
        "выручка с 2024 по 2025 год",
        "выручка за январь и февраль 2025",  # one year for both: not guessed
    ],
)
def test_one_period_is_no_comparison(question: str) -> None:
    assert read_two_periods(question, TODAY) is None


def test_a_comparison_gives_both_values_the_change_and_the_percent(make_service) -> None:
    result = make_service().ask("сравни выручку за 2024 и 2025 годы", thread_id="c1")
    assert result.status == "answered"
    assert result.columns == [
        "payment_amount", "payment_amount_prev", "payment_amount_change",
        "payment_amount_change_pct",
    ]  # fmt: skip
    ((cur, prev, change, pct),) = result.rows
    assert change == cur - prev and round(pct, 6) == round(float(change / prev * 100), 6)
    assert "2025 год —" in (result.answer or "") and "2024 год —" in result.answer
    assert "изменение +" in result.answer
    assert not [c for c in result.checks if c["check"] == "partial_period"]


def test_a_partial_period_is_named_and_flagged(make_service) -> None:
    result = make_service().ask("revenue in 2026 compared with 2025", thread_id="c2")
    assert result.status == "answered"
    partial = [c for c in result.checks if c["check"] == "partial_period"]
    assert len(partial) == 1 and "2026" in partial[0]["message"]
    assert "incomplete" in partial[0]["message"] and partial[0]["message"] in (result.answer or "")


def test_a_comparison_by_month_is_refused_not_narrowed(make_service) -> None:
    result = make_service().ask("выручка по месяцам в 2024 и 2025 годах", thread_id="c3")
    assert result.status == "refused" and "второй период" in (result.answer or "")


# --- verbs and averages -------------------------------------------------------------------


def test_a_metric_verb_picks_the_metric_a_shared_noun_names() -> None:
    chinook = load_catalog(ROOT / "suites" / "chinook")
    today = date(2026, 1, 15)
    sold = rules_verdict("Сколько треков купили в 2024 году?", chinook, today)["plan"]
    in_store = rules_verdict("Сколько треков в каталоге?", chinook, today)
    assert sold is not None and sold.metrics == ["tracks_sold"]
    assert in_store["plan"] is None or in_store["plan"].metrics != ["tracks_sold"]


def test_neutral_verbs_are_read_only_when_a_metric_is_named() -> None:
    demo = load_catalog()
    named = rules_verdict("сколько платежей совершили в 2025 году", demo, TODAY)
    bare = rules_verdict("сколько совершили в 2025 году", demo, TODAY)
    assert named["plan"] is not None and named["plan"].metrics == ["payment_count"]
    assert bare["plan"] is None and "совершили" in bare["unexplained"]
    adults = rules_verdict("сколько совершеннолетних клиентов в 2025 году", demo, TODAY)
    assert adults["plan"] is None and "совершеннолетних" in adults["unexplained"]


def test_a_date_verb_still_picks_the_date() -> None:
    tpch = load_catalog(ROOT / "suites" / "tpch_like")
    plan = rules_verdict("Revenue shipped in 1997", tpch, date(1998, 12, 1))["plan"]
    assert plan is not None and plan.date_column == "l_shipdate"


@pytest.mark.parametrize(
    "question",
    ["средняя выручка на одного клиента в 2025 году", "в среднем на клиента выручка в 2025 году",
     "average revenue per client in 2025", "средняя выручка на клиента в 2025 году"],
)  # fmt: skip
def test_russian_and_english_averages_read_alike(question: str) -> None:
    plan = rules_verdict(question, load_catalog(), TODAY)["plan"]
    assert plan is not None and plan.derived == "per" and plan.metrics == ["payment_amount"]


def test_an_average_without_its_unit_is_refused() -> None:
    verdict = rules_verdict("средняя выручка в 2025 году", load_catalog(), TODAY)
    assert verdict["plan"] is None and "средняя" in verdict["unexplained"]


def test_a_follow_up_keeps_both_periods(make_service) -> None:
    """ "а по каналам?" after a two-period question: the same two periods, by channel (the
    snapshot keeps the words naming both, not the one period the reader was left with)."""
    service = make_service()
    first = service.ask("сравни выручку за 2024 и 2025 годы", thread_id="f1")
    second = service.ask("а по каналам?", thread_id="f1")
    assert first.status == second.status == "answered", second.answer
    assert second.columns[:3] == ["channel", "payment_amount", "payment_amount_prev"]
    assert sum(r[1] for r in second.rows) == first.rows[0][0]
    assert sum(r[2] for r in second.rows) == first.rows[0][1]


def test_a_verb_pick_is_traced_and_answered(chinook_service) -> None:
    result = chinook_service.ask("Сколько треков купили в 2024 году?", thread_id="v1")
    assert result.status == "answered" and "tracks_sold" in (result.sql or "")
    assert any(
        e.kind == "branch" and "own verb picked it" in e.message and e.data.get("verb") == "купили"
        for e in result.trace
    )


def test_a_value_that_is_a_word_is_read_with_its_subject_noun_not_as_the_segment() -> None:
    """ "IT companies": the industry IT of the clients, not every company (B2B) with "IT"
    left unread; the noun is the value's. A value that is a word is whole: "my clients" is
    no gender M; a segment word with no such value before it is still the segment."""
    from vitrina.query.understand import read_question

    catalog = load_catalog(ROOT / "src" / "vitrina" / "demo_catalog")
    for question in ("Revenue of IT companies in 2025", "Выручка IT-компаний в 2025 году"):
        reading = read_question(question, catalog)
        assert [(m.phrase.target, m.phrase.value) for m in reading.values] == [
            ("dwh.dim_client.industry", "it")
        ], question
        assert reading.segments == [], question
    assert read_question("Revenue of B2B companies in 2025", catalog).segments == ["b2b"]
    assert read_question("Revenue of my clients in 2025", catalog).values == []
