"""The report planner: candidates, their scores, the chosen plan, both ways in, and the
executed report's numbers against the ask job's answer to the same question."""

from __future__ import annotations

from decimal import Decimal

import pytest

from .conftest import scripted

QUESTION = "сумма платежей по регионам за 2025 год"


def _rows(rows):
    return sorted((r[0], Decimal(str(r[1])).quantize(Decimal("0.01"))) for r in rows)


@pytest.fixture(scope="module")
def answers(demo_db):
    from vitrina.ask.service import AskService
    from vitrina.config import load_settings
    from vitrina.route import RouteService

    from .conftest import TODAY

    ask = AskService(load_settings(db_url=f"duckdb:///{demo_db}"), today=TODAY, write_files=False)
    route = RouteService(ask_service=ask, today=TODAY, write_files=False)
    yield {
        "ask": ask.ask(QUESTION),
        "direct": route.handle(f"отчёт: {QUESTION}"),
        "via_analyst": route.handle(
            "найди данные о сумме платежей по регионам за 2025 год и построй отчёт"
        ),
    }
    route.close()


def test_direct_report_matches_the_ask_answer(answers):
    direct, ask = answers["direct"], answers["ask"]
    assert direct.nodes == ["classify", "plan_report", "execute_report", "deliver"]
    assert direct.status == "answered" and ask.status == "answered"
    assert direct.report["row_count"] == ask.row_count == 12
    assert _rows(direct.report["rows"]) == _rows(ask.rows)


def test_candidates_scores_and_choice(answers):
    result = answers["direct"]
    by_id = {c["id"]: c for c in result.candidates}
    assert set(by_id) == {"breakdown", "aggregate", "detailed", "comparison", "top_n"}
    assert result.chosen["id"] == "breakdown"
    assert by_id["breakdown"]["total"] == 12.0 and by_id["breakdown"]["scores"] == {
        "measures": 1.0,
        "dimensions": 1.0,
        "joins": 1.0,
        "grain": 1.0,
        "period": 1.0,
        "size": 1.0,
    }
    assert by_id["aggregate"]["scores"]["dimensions"] == 0.0
    assert by_id["detailed"]["scores"]["grain"] == 0.0
    assert by_id["comparison"]["scores"]["period"] == 0.5, "a comparison nobody asked for"
    assert (by_id["comparison"]["previous"]["start"], by_id["comparison"]["previous"]["end"]) == (
        "2024-01-01",
        "2024-12-31",
    )
    assert by_id["top_n"]["scores"]["size"] == 0.5
    assert any("cuts 2 of 12" in r for r in by_id["top_n"]["reasons"])
    assert all(c["valid"] and c["sql"] for c in result.candidates)
    assert max(c["total"] for c in result.candidates) == by_id["breakdown"]["total"]


def test_report_via_the_metadata_analyst(answers):
    via, ask = answers["via_analyst"], answers["ask"]
    assert via.intent == "metadata" and via.nodes[1] == "analyst"
    assert via.nodes[-3:] == ["plan_report", "execute_report", "deliver"] and via.steps
    assert _rows(via.report["rows"]) == _rows(ask.rows)


def test_comparison_is_chosen_when_asked(make_route):
    result = make_route().handle("Отчёт: сумма платежей за 2025 год по сравнению с прошлым годом")
    assert result.chosen["id"] == "comparison", [(c["id"], c["total"]) for c in result.candidates]
    assert result.report["columns"] == [
        "payment_amount",
        "payment_amount_prev",
        "payment_amount_change",
        "payment_amount_change_pct",
    ]
    ((cur, prev, change, pct),) = result.report["rows"]
    assert cur > 0 and prev > 0 and change == cur - prev
    assert round(pct, 6) == round(float((cur - prev) / prev * 100), 6)
    assert result.report["compared_with"]["start"] == "2024-01-01"
    # one plan of two periods, run as an ask answer: one statement, one stored run
    assert result.report["sql"].count("WITH") == 1 and result.report["run_id"]


def test_report_outputs_chart_and_excel(make_route):
    result = make_route(write_files=True).handle(f"отчёт: {QUESTION}")
    assert result.report["chart"] and result.report["excel"].endswith(".xlsx")


def test_model_score_is_added_to_the_code_score(make_route):
    model, _ = scripted(
        {
            "route_plan_score": [
                {
                    "scores": [
                        {"id": "top_n", "score": 1.0, "reason": "leaders matter"},
                        {"id": "nope", "score": 1.0},
                    ]
                }
            ]
        }
    )
    result = make_route(llm=model).handle(f"отчёт: {QUESTION}")
    assert (
        result.llm_usage["calls"] == 1
        and result.llm_usage["by_task"]["route_plan_score"]["calls"] == 1
    )
    by_id = {c["id"]: c for c in result.candidates}
    assert by_id["top_n"]["total"] == by_id["top_n"]["code_score"] + 2.0
    assert result.chosen["id"] == "top_n"
    assert "nope" not in by_id
    assert [e.data["plan"] for e in result.trace if e.kind.value == "rejected"] == ["nope"]


def test_no_metric_is_an_honest_refusal(make_route):
    result = make_route().handle("отчёт: квантовые флуктуации")
    assert result.status == "refused" and result.nodes[-1] == "deliver" and result.report is None
    assert "не нашлось меры" in result.answer  # the reason: no measure of the catalog fits


# the compared period each request names, and the SQL (written apart from the planner) of
# the previous values by key; "{start}" / "{end}" are the compared period's dates
COMPARISONS = [
    (
        "Отчёт: открытия кошельков за 3 квартал 2026 по регионам в сравнении с прошлым годом",
        ("2025-07-01", "2025-09-30"),
        "SELECT r.region_name, COUNT(*) FROM dwh.fact_wallet_opening f JOIN dwh.dim_region r "
        "ON f.region_id = r.region_id WHERE f.open_date BETWEEN '{start}' AND '{end}' GROUP BY 1",
    ),
    (
        "report: payment volume in Q3 2026 QoQ",
        ("2026-04-01", "2026-06-30"),
        "SELECT SUM(amount_rub) FROM dwh.fact_payment WHERE status = 'success' "
        "AND payment_date BETWEEN '{start}' AND '{end}'",
    ),
    (
        "отчёт: количество выпущенных карт за октябрь 2026 к прошлому месяцу по типам карт",
        ("2026-09-01", "2026-09-30"),
        "SELECT card_type, COUNT(*) FROM dwh.fact_card_issue WHERE issue_date BETWEEN "
        "'{start}' AND '{end}' GROUP BY 1",
    ),
]


@pytest.mark.parametrize(
    ("request_text", "compared", "sql"), COMPARISONS, ids=[c[0][:40] for c in COMPARISONS]
)
def test_a_comparison_looks_back_by_the_unit_named(make_route, request_text, compared, sql):
    route = make_route()
    result = route.handle(request_text)
    assert result.chosen["id"] == "comparison" and result.status == "answered"
    report = result.report
    assert (report["compared_with"]["start"], report["compared_with"]["end"]) == compared
    expected = route.context.warehouse.execute(sql.format(start=compared[0], end=compared[1])).rows
    prev = report["columns"].index(next(c for c in report["columns"] if c.endswith("_prev")))
    got = {tuple(r[: prev - 1]): r[prev] for r in report["rows"]}
    assert got == {tuple(r[:-1]): r[-1] for r in expected}
    assert report["sql"].startswith("WITH"), "both periods in one statement"


def test_two_named_periods_and_a_partial_one(make_route) -> None:
    """The two-period reading ask uses (language.periods.pair), and the partial-period check
    ask uses (vitrina.ask.partial_checks): the data end on 30.11.2026, inside 2026."""
    route = make_route()
    named = route.handle("отчёт: сравни сумму платежей за 2024 и 2025 годы")
    assert named.chosen["id"] == "comparison" and named.status == "answered"
    assert named.report["compared_with"]["start"] == "2024-01-01"
    assert not [c for c in named.report["checks"] if c["check"] == "partial_period"]
    partial = route.handle("отчёт: сумма платежей за 2026 год по сравнению с 2025")
    flagged = [c for c in partial.report["checks"] if c["check"] == "partial_period"]
    assert len(flagged) == 1 and "неполный" in flagged[0]["message"]
    assert flagged[0]["message"] in (partial.answer or "")
